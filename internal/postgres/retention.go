package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/idempotency"
)

// WebhookRetention is how long webhook events are kept after they were written, with their
// deliveries and attempts: deliveries give up after 5 days, so an event this old is settled.
const WebhookRetention = 30 * 24 * time.Hour

// Retention deletes what its periods let go: uploaded files FileRetention after their job was
// created, results and transactions ResultRetention after, webhook events, deliveries and
// attempts after WebhookRetention, and idempotency records past their 24 hours. Job rows stay,
// with when their files and results went. Audit entries, quota counters and usage thresholds
// are kept as long as the account: they are small, and the audit log is the account's record.
//
// Everything goes in small batches, each its own short transaction, oldest first: a batch locks
// the job rows it takes (skipping any another purge holds) and nothing else an API request
// waits on, so reads of other jobs never wait on a purge.
type Retention struct {
	DB              *sqlx.DB
	FileRetention   time.Duration
	ResultRetention time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Batch sizes: jobs a statement, and transactions a statement (a few tens of milliseconds each).
const (
	purgeJobBatch         = 100
	purgeTransactionBatch = 5000
	purgeRowBatch         = 1000
)

// Purged counts what one Purge deleted.
type Purged struct {
	Files, Results, Transactions, Events, IdempotencyKeys int64
}

// Purge deletes everything past its retention, until nothing is left or ctx ends (the next run
// goes on where this one stopped). Files and results are taken only from finished jobs.
func (r *Retention) Purge(ctx context.Context) (Purged, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	now = now.UTC()
	files, results := now.Add(-r.FileRetention), now.Add(-r.ResultRetention)
	var p Purged
	steps := []struct {
		what  string
		count *int64
		query string
		args  []any
	}{
		// Files: the job forgets them and they go, in one statement (the foreign key is checked
		// at its end).
		{"reconciliation files", &p.Files, `
WITH expired AS (
  SELECT id, bank_upload, expected_upload FROM recon_jobs
   WHERE bank_upload IS NOT NULL AND status <> 'processing' AND created_at < $1
   ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
cleared AS (
  UPDATE recon_jobs j SET bank_upload = NULL, expected_upload = NULL, files_deleted_at = $3 FROM expired e WHERE j.id = e.id)
DELETE FROM uploads u USING expired e WHERE u.id = e.bank_upload OR u.id = e.expected_upload`, []any{files, purgeJobBatch, now}},
		{"parsing files", &p.Files, `
WITH expired AS (
  SELECT id, upload_id FROM parse_jobs
   WHERE upload_id IS NOT NULL AND status IN ('completed', 'review', 'failed') AND created_at < $1
   ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
cleared AS (
  UPDATE parse_jobs j SET upload_id = NULL, files_deleted_at = $3 FROM expired e WHERE j.id = e.id)
DELETE FROM uploads u USING expired e WHERE u.id = e.upload_id`, []any{files, purgeJobBatch, now}},
		// Results: a reconciliation's document goes with the mark.
		{"reconciliation results", &p.Results, `
WITH expired AS (
  SELECT id FROM recon_jobs
   WHERE status = 'completed' AND results_deleted_at IS NULL AND deleted_at IS NULL AND created_at < $1
   ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
marked AS (
  UPDATE recon_jobs j SET results_deleted_at = $3 FROM expired e WHERE j.id = e.id)
DELETE FROM recon_results r USING expired e WHERE r.job_id = e.id`, []any{results, purgeJobBatch, now}},
		// A parsing job's transactions may be a million rows: the job is marked (its results
		// answer 410 from now on) and listed for purgeTransactions.
		{"parsing results", &p.Results, `
WITH expired AS (
  SELECT id FROM parse_jobs
   WHERE status IN ('completed', 'review') AND results_deleted_at IS NULL AND deleted_at IS NULL AND created_at < $1
   ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
marked AS (
  UPDATE parse_jobs j SET results_deleted_at = $3 FROM expired e WHERE j.id = e.id)
INSERT INTO parse_transactions_purge (job_id) SELECT id FROM expired ON CONFLICT DO NOTHING`, []any{results, purgeJobBatch, now}},
		{"webhook events", &p.Events, `
DELETE FROM webhook_events WHERE id IN (
  SELECT id FROM webhook_events WHERE created_at < $1 ORDER BY created_at LIMIT $2)`, []any{now.Add(-WebhookRetention), purgeRowBatch}},
		{"idempotency records", &p.IdempotencyKeys, `
DELETE FROM idempotency_keys WHERE (account_id, scope, key) IN (
  SELECT account_id, scope, key FROM idempotency_keys WHERE created_at < $1 AND state = 'done' LIMIT $2)`,
			[]any{now.Add(-idempotency.KeyTTL), purgeRowBatch}},
	}
	for _, s := range steps {
		for {
			if err := ctx.Err(); err != nil {
				return p, err
			}
			res, err := r.DB.ExecContext(ctx, s.query, s.args...)
			if err != nil {
				return p, fmt.Errorf("purge %s: %w", s.what, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return p, fmt.Errorf("purge %s: %w", s.what, err)
			}
			*s.count += n
			if n == 0 {
				break
			}
		}
	}
	n, err := r.purgeTransactions(ctx)
	p.Transactions = n
	return p, err
}

// purgeTransactions deletes the transactions of the jobs listed in parse_transactions_purge, a
// batch of the lowest sequence numbers a transaction, and takes each job off the list when its
// last is gone.
func (r *Retention) purgeTransactions(ctx context.Context) (int64, error) {
	var total int64
	for {
		var jobs []uuid.UUID
		if err := r.DB.SelectContext(ctx, &jobs, `SELECT job_id FROM parse_transactions_purge LIMIT $1`, purgeJobBatch); err != nil {
			return total, fmt.Errorf("purge transactions: %w", err)
		}
		if len(jobs) == 0 {
			return total, nil
		}
		for _, id := range jobs {
			for {
				if err := ctx.Err(); err != nil {
					return total, err
				}
				// The job's rows are numbered from 0 without gaps, and go lowest first: a range
				// of the primary key, never a scan.
				res, err := r.DB.ExecContext(ctx, `
DELETE FROM parse_transactions
 WHERE job_id = $1 AND seq < (SELECT min(seq) FROM parse_transactions WHERE job_id = $1) + $2`, id, purgeTransactionBatch)
				if err != nil {
					return total, fmt.Errorf("purge transactions of job %s: %w", id, err)
				}
				n, err := res.RowsAffected()
				if err != nil {
					return total, fmt.Errorf("purge transactions of job %s: %w", id, err)
				}
				total += n
				if n == 0 {
					break
				}
			}
			if _, err := r.DB.ExecContext(ctx, `DELETE FROM parse_transactions_purge WHERE job_id = $1`, id); err != nil {
				return total, fmt.Errorf("purge transactions of job %s: %w", id, err)
			}
		}
	}
}

// whenSet is a nullable timestamp as a time in UTC, nil for NULL.
func whenSet(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}
