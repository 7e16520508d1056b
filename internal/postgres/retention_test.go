package postgres_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/queue"
)

// TestRetentionPurge: files go after the file retention, results and transactions after the
// result retention, from finished jobs only, in batches, oldest first; job rows stay with when
// their data went, and the service answers 410 GONE for what went; webhook events past 30 days
// go with their deliveries, expired idempotency records too; a second purge finds nothing.
func TestRetentionPurge(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	day := 24 * time.Hour
	now := b.now
	jobAt := func(age time.Duration, status parsejob.Status, n int) uuid.UUID {
		j := b.createAt(t, b.account, now.Add(-age))
		if status != parsejob.StatusQueued {
			b.finish(t, j.ID, status, n)
		}
		return j.ID
	}
	// Ages: past both periods (400 days), past the file retention only (40 days), fresh.
	old := jobAt(400*day, parsejob.StatusCompleted, 12_345)
	oldReview := jobAt(400*day, parsejob.StatusReview, 3)
	oldFailed := jobAt(400*day, parsejob.StatusFailed, 0)
	middle := jobAt(40*day, parsejob.StatusCompleted, 7)
	fresh := jobAt(time.Hour, parsejob.StatusCompleted, 5)
	// A job still queued keeps its file however old: a worker may be about to read it.
	stuck := jobAt(400*day, parsejob.StatusQueued, 0)
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM uploads`))

	recon := postgres.NewJobStore(b.db, mustEnqueuer(t, b))
	rb := &jobBundle{db: b.db, store: recon, account: b.account, now: now.Add(-400 * day)}
	rj := rb.create(t)
	_, err := recon.Claim(ctx, rj.ID, 1)
	require.NoError(t, err)
	require.NoError(t, recon.Complete(ctx, rj.ID, 1, []byte(`{"job_id":"x"}`), now.Add(-400*day)))

	_, err = b.db.Exec(`INSERT INTO webhook_events (id, account_id, type, body, created_at) VALUES
 ($1, $3, 'job.created', '{}', $4), ($2, $3, 'job.created', '{}', $5)`,
		uuid.New(), uuid.New(), b.account.ID, now.Add(-31*day), now.Add(-29*day))
	require.NoError(t, err)
	_, err = b.db.Exec(`INSERT INTO idempotency_keys (account_id, scope, key, request_hash, state, resource_id, created_at) VALUES
 ($1, 'parse', 'old', '\x00', 'done', $2, $3), ($1, 'parse', 'new', '\x00', 'done', $2, $4)`,
		b.account.ID, fresh, now.Add(-25*time.Hour), now.Add(-23*time.Hour))
	require.NoError(t, err)

	r := &postgres.Retention{DB: b.db, FileRetention: 30 * day, ResultRetention: 365 * day, Now: func() time.Time { return now }}
	p, err := r.Purge(ctx)
	require.NoError(t, err)
	require.Equal(t, postgres.Purged{Files: 4 + 2, Results: 2 + 1, Transactions: 12_345 + 3, Events: 1, IdempotencyKeys: 1}, p,
		"4 parsing files and the reconciliation's 2; 2 parsing and 1 reconciliation results")

	kept := func(id uuid.UUID) (files, results bool, txs int) {
		var filesGone, resultsGone bool
		require.NoError(t, b.db.QueryRow(`SELECT files_deleted_at IS NOT NULL, results_deleted_at IS NOT NULL FROM parse_jobs WHERE id = $1`, id).
			Scan(&filesGone, &resultsGone))
		return !filesGone, !resultsGone, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, id)
	}
	for _, c := range []struct {
		name           string
		id             uuid.UUID
		files, results bool
		txs            int
	}{
		{"a year old", old, false, false, 0},
		{"a year old in review", oldReview, false, false, 0},
		{"a year old and failed: no results to delete", oldFailed, false, true, 0},
		{"40 days old", middle, false, true, 7},
		{"fresh", fresh, true, true, 5},
		{"still queued", stuck, true, true, 0},
	} {
		files, results, txs := kept(c.id)
		require.Equal(t, []any{c.files, c.results, c.txs}, []any{files, results, txs}, c.name)
	}
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM uploads`), "the fresh and the queued job's files")
	require.Zero(t, b.count(t, `SELECT count(*) FROM upload_chunks c LEFT JOIN uploads u ON u.id = c.upload_id WHERE u.id IS NULL`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions_purge`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM recon_results`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM recon_jobs WHERE files_deleted_at IS NOT NULL AND results_deleted_at IS NOT NULL
   AND bank_upload IS NULL AND bank_file = 'bank.csv'`), "the job keeps its details")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM webhook_events`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM idempotency_keys`))

	// The service answers for what went, and the job itself is still there.
	svc := &parsejob.Service{Store: b.store}
	j, err := svc.Get(ctx, b.account.ID, old)
	require.NoError(t, err)
	require.Equal(t, 12_345, j.TransactionsCount)
	_, _, _, err = svc.Results(ctx, b.account.ID, old, "", 10)
	require.ErrorIs(t, err, parsejob.ErrGone)
	require.Contains(t, err.Error(), "after the retention period")
	_, err = svc.File(ctx, b.account.ID, middle)
	require.ErrorIs(t, err, parsejob.ErrGone)
	_, _, _, err = svc.Results(ctx, b.account.ID, middle, "", 10)
	require.NoError(t, err, "a job past the file retention still has its transactions")

	again, err := r.Purge(ctx)
	require.NoError(t, err)
	require.Equal(t, postgres.Purged{}, again)
}

// TestRetentionFinishesAnInterruptedPurge: a purge stopped between batches of a job's
// transactions leaves the job listed, its results already gone for readers, and the next purge
// deletes the rest.
func TestRetentionFinishesAnInterruptedPurge(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	j := b.createAt(t, b.account, b.now.Add(-400*24*time.Hour))
	b.finish(t, j.ID, parsejob.StatusCompleted, 12_000)
	r := &postgres.Retention{DB: b.db, FileRetention: time.Hour, ResultRetention: time.Hour, Now: func() time.Time { return b.now }}

	// The first batch of transactions, then the purge is stopped.
	_, err := b.db.Exec(`UPDATE parse_jobs SET results_deleted_at = $2 WHERE id = $1`, j.ID, b.now)
	require.NoError(t, err)
	_, err = b.db.Exec(`INSERT INTO parse_transactions_purge (job_id) VALUES ($1)`, j.ID)
	require.NoError(t, err)
	_, err = b.db.Exec(`DELETE FROM parse_transactions WHERE job_id = $1 AND seq < 5000`, j.ID)
	require.NoError(t, err)

	p, err := r.Purge(t.Context())
	require.NoError(t, err)
	require.EqualValues(t, 7000, p.Transactions)
	require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, j.ID))
	require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions_purge`))
}

// mustEnqueuer is a queue enqueuer of the bundle's database.
func mustEnqueuer(t *testing.T, b *parseBundle) *queue.Enqueuer {
	t.Helper()
	q, err := queue.NewEnqueuer(b.db.DB)
	require.NoError(t, err)
	return q
}
