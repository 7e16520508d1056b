package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/upload"
)

// JobStore keeps reconciliation jobs, their files and results, quota counts and idempotency
// keys, and queues jobs on Queue in the transaction that creates them.
type JobStore struct {
	DB    *sqlx.DB
	Queue Enqueuer
	// Sealer seals the files that must not be stored in the clear (upload.File.Sealed).
	Sealer Sealer
}

var _ reconjob.Store = (*JobStore)(nil)

// NewJobStore returns the job store of db, queueing on q.
func NewJobStore(db *sqlx.DB, q Enqueuer) *JobStore { return &JobStore{DB: db, Queue: q} }

// ClaimKey implements reconjob.Store; see claimKey.
func (s *JobStore) ClaimKey(ctx context.Context, k idempotency.Key, now time.Time) (idempotency.Record, bool, error) {
	return claimKey(ctx, s.DB, k, now)
}

// ReleaseKey implements reconjob.Store; see releaseKey.
func (s *JobStore) ReleaseKey(ctx context.Context, k idempotency.Key) error {
	return releaseKey(ctx, s.DB, k)
}

// QuotaUsed implements reconjob.Store; see quotaUsed.
func (s *JobStore) QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error) {
	return quotaUsed(ctx, s.DB, accountID, scope, period)
}

// Create implements reconjob.Store: files, job row, quota charge, idempotency record and queued work
// in one transaction. A job refused by the quota rolls everything back.
func (s *JobStore) Create(ctx context.Context, j reconjob.Job, bank, expected upload.File, q quota.Charge, k idempotency.Key) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		bankID, err := storeFile(ctx, tx, j.AccountID, bank, s.Sealer, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("store bank file: %w", err)
		}
		expectedID, err := storeFile(ctx, tx, j.AccountID, expected, s.Sealer, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("store expected file: %w", err)
		}
		queued, err := s.Queue.EnqueueReconcile(ctx, tx.Tx, j.ID)
		if err != nil {
			return fmt.Errorf("queue job: %w", err)
		}
		_, err = tx.ExecContext(ctx, `
INSERT INTO recon_jobs (id, account_id, env, status, bank_upload, expected_upload, bank_file, expected_file, queue_job_id, created_at)
VALUES ($1, $2, $3, 'processing', $4, $5, $6, $7, $8, $9)`,
			j.ID, j.AccountID, string(j.Env), bankID, expectedID, j.BankFile, j.ExpectedFile, queued, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("insert job: %w", err)
		}
		return chargeAndRecordKey(ctx, tx, j.AccountID, q, k)
	})
}

const jobColumns = `id, account_id, env, status, bank_file, expected_file, error_code, error_message, created_at, completed_at, deleted_at, files_deleted_at, results_deleted_at`

type jobRow struct {
	ID           uuid.UUID           `db:"id"`
	AccountID    uuid.UUID           `db:"account_id"`
	Env          sql.Null[string]    `db:"env"`
	Status       sql.Null[string]    `db:"status"`
	BankFile     sql.Null[string]    `db:"bank_file"`
	ExpectedFile sql.Null[string]    `db:"expected_file"`
	ErrorCode    sql.NullString      `db:"error_code"`
	ErrorMessage sql.NullString      `db:"error_message"`
	CreatedAt    sql.Null[time.Time] `db:"created_at"`
	CompletedAt  sql.NullTime        `db:"completed_at"`
	DeletedAt    sql.NullTime        `db:"deleted_at"`
	FilesGone    sql.NullTime        `db:"files_deleted_at"`
	ResultsGone  sql.NullTime        `db:"results_deleted_at"`
}

func (r jobRow) job() reconjob.Job {
	j := reconjob.Job{ID: r.ID, AccountID: r.AccountID, Env: account.Environment(r.Env.V), Status: reconjob.Status(r.Status.V),
		BankFile: r.BankFile.V, ExpectedFile: r.ExpectedFile.V, CreatedAt: r.CreatedAt.V.UTC()}
	if r.CompletedAt.Valid {
		t := r.CompletedAt.Time.UTC()
		j.CompletedAt = &t
	}
	if r.ErrorCode.Valid {
		j.Error = &reconjob.Failure{Code: reconjob.ErrorCode(r.ErrorCode.String), Message: r.ErrorMessage.String}
	}
	j.DeletedAt, j.FilesDeletedAt, j.ResultsDeletedAt = whenSet(r.DeletedAt), whenSet(r.FilesGone), whenSet(r.ResultsGone)
	return j
}

// The reads of a job and of a job with its results, by id, account and environment ($1-$3), and
// the same reads counting a deferred request (countedQuery), built once.
const (
	jobGetQuery     = `SELECT ` + jobColumns + ` FROM recon_jobs WHERE id = $1 AND account_id = $2 AND env = $3`
	jobResultsQuery = `
SELECT j.*, coalesce(r.body, ''::bytea) AS body
  FROM (SELECT ` + jobColumns + ` FROM recon_jobs) j LEFT JOIN recon_results r ON r.job_id = j.id
 WHERE j.id = $1 AND j.account_id = $2 AND j.env = $3`
)

var jobGetCounted, jobResultsCounted = countedQuery(jobGetQuery, 3), countedQuery(jobResultsQuery, 3)

// resultsRow is a job with its results' body.
type resultsRow struct {
	jobRow
	Body []byte `db:"body"`
}

// Get implements reconjob.Store. A request whose rate-limit count is deferred
// (ratelimit.Pending) is counted in the same statement.
func (s *JobStore) Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (reconjob.Job, error) {
	if d := ratelimit.Pending(ctx, accountID); d != nil {
		var r struct {
			countedRow
			jobRow
		}
		found, err := r.record(d, s.DB.GetContext(ctx, &r, jobGetCounted, countedArgs(d, id, accountID, string(env))...))
		switch {
		case err != nil:
			return reconjob.Job{}, err
		case !found:
			return reconjob.Job{}, reconjob.ErrNotFound
		}
		return r.job(), nil
	}
	var r jobRow
	err := s.DB.GetContext(ctx, &r, jobGetQuery, id, accountID, string(env))
	if errors.Is(err, sql.ErrNoRows) {
		return reconjob.Job{}, reconjob.ErrNotFound
	}
	if err != nil {
		return reconjob.Job{}, err
	}
	return r.job(), nil
}

// List implements reconjob.Store.
func (s *JobStore) List(ctx context.Context, accountID uuid.UUID, q reconjob.ListQuery) ([]reconjob.Job, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	args := []any{accountID, string(q.Env)}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + jobColumns + ` FROM recon_jobs WHERE account_id = $1 AND env = $2 AND deleted_at IS NULL`)
	if q.Status != nil {
		b.WriteString(` AND status = ` + arg(string(*q.Status)))
	}
	if q.FileName != "" {
		n := arg(q.FileName)
		b.WriteString(` AND (strpos(lower(bank_file), lower(` + n + `)) > 0 OR strpos(lower(expected_file), lower(` + n + `)) > 0)`)
	}
	if q.CreatedAfter != nil {
		b.WriteString(` AND created_at >= ` + arg(*q.CreatedAfter))
	}
	if q.CreatedBefore != nil {
		b.WriteString(` AND created_at < ` + arg(*q.CreatedBefore))
	}
	if q.After != nil {
		b.WriteString(` AND (created_at, id) < (` + arg(q.After.CreatedAt) + `, ` + arg(q.After.ID) + `)`)
	}
	b.WriteString(` ORDER BY created_at DESC, id DESC LIMIT ` + arg(q.Limit))
	var rows []jobRow
	if err := s.DB.SelectContext(ctx, &rows, b.String(), args...); err != nil {
		return nil, fmt.Errorf("list recon jobs: %w", err)
	}
	jobs := make([]reconjob.Job, len(rows))
	for i, r := range rows {
		jobs[i] = r.job()
	}
	return jobs, nil
}

// JobsPerDay implements reconjob.Store.
func (s *JobStore) JobsPerDay(ctx context.Context, accountID uuid.UUID, env account.Environment, from, to time.Time) ([]int, error) {
	return jobsPerDay(ctx, s.DB, "recon_jobs", "AND env = $4", accountID, from, to, string(env))
}

// Results implements reconjob.Store. A request whose rate-limit count is deferred
// (ratelimit.Pending) is counted in the same statement.
func (s *JobStore) Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (reconjob.Job, []byte, error) {
	if d := ratelimit.Pending(ctx, accountID); d != nil {
		var r struct {
			countedRow
			resultsRow
		}
		found, err := r.record(d, s.DB.GetContext(ctx, &r, jobResultsCounted, countedArgs(d, id, accountID, string(env))...))
		switch {
		case err != nil:
			return reconjob.Job{}, nil, err
		case !found:
			return reconjob.Job{}, nil, reconjob.ErrNotFound
		}
		return r.job(), r.Body, nil
	}
	var r resultsRow
	err := s.DB.GetContext(ctx, &r, jobResultsQuery, id, accountID, string(env))
	if errors.Is(err, sql.ErrNoRows) {
		return reconjob.Job{}, nil, reconjob.ErrNotFound
	}
	if err != nil {
		return reconjob.Job{}, nil, err
	}
	return r.job(), r.Body, nil
}

// Delete implements reconjob.Store: under the job row's lock, the results, the files (their
// chunks with them) and the file names go in one transaction, and the row becomes a tombstone.
func (s *JobStore) Delete(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID, now time.Time) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		var r struct {
			Status   string        `db:"status"`
			Deleted  bool          `db:"deleted"`
			Bank     uuid.NullUUID `db:"bank_upload"`
			Expected uuid.NullUUID `db:"expected_upload"`
		}
		err := tx.GetContext(ctx, &r, `
SELECT status, deleted_at IS NOT NULL AS deleted, bank_upload, expected_upload
  FROM recon_jobs WHERE id = $1 AND account_id = $2 AND env = $3 FOR UPDATE`, id, accountID, string(env))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return reconjob.ErrNotFound
		case err != nil:
			return fmt.Errorf("lock job: %w", err)
		case r.Deleted:
			return nil
		case r.Status == string(reconjob.StatusProcessing):
			return reconjob.ErrNotReady
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM recon_results WHERE job_id = $1`, id); err != nil {
			return fmt.Errorf("delete results: %w", err)
		}
		// A failure's message may quote the file; its code stays.
		if _, err := tx.ExecContext(ctx, `
UPDATE recon_jobs SET bank_upload = NULL, expected_upload = NULL, bank_file = '', expected_file = '',
       error_message = CASE WHEN error_message IS NULL THEN NULL ELSE '' END, deleted_at = $2
 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("mark job deleted: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE id IN ($1, $2)`, r.Bank, r.Expected); err != nil {
			return fmt.Errorf("delete files: %w", err)
		}
		return nil
	})
}

// ResultsPart implements reconjob.Store. substring of a compressed bytea decompresses only the
// document's beginning up to the part, not the whole of it.
func (s *JobStore) ResultsPart(ctx context.Context, id uuid.UUID, off, n int64) ([]byte, error) {
	var part []byte
	err := s.DB.GetContext(ctx, &part, `SELECT substring(body from $2 for $3) FROM recon_results WHERE job_id = $1`, id, off+1, n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, reconjob.ErrNotFound
	}
	return part, err
}

// Claim implements reconjob.Store.
func (s *JobStore) Claim(ctx context.Context, id uuid.UUID, n int) (reconjob.Job, error) {
	var r jobRow
	err := takeOver(ctx, s.DB, reconAttempt(id, n), func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &r, `
UPDATE recon_jobs SET attempt = $2 WHERE id = $1 AND status = 'processing' AND attempt < $2
RETURNING `+jobColumns, id, n)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return reconjob.Job{}, attempt.ErrStale
	}
	if err != nil {
		return reconjob.Job{}, err
	}
	return r.job(), nil
}

// reconAttempt is attempt n at reconciliation job id.
func reconAttempt(id uuid.UUID, n int) attemptTag {
	return attemptTag{kind: reconAttemptKind, job: id, n: n}
}

// ReadFile implements reconjob.Store.
func (s *JobStore) ReadFile(ctx context.Context, id uuid.UUID, field string) ([]byte, error) {
	column := "bank_upload"
	if field == "expected" {
		column = "expected_upload"
	}
	data, err := readUpload(ctx, s.DB, s.Sealer, `SELECT u.id, u.size, u.sealed FROM recon_jobs j JOIN uploads u ON u.id = j.`+column+` WHERE j.id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, reconjob.ErrNotFound
	}
	return data, err
}

// Complete implements reconjob.Store.
func (s *JobStore) Complete(ctx context.Context, id uuid.UUID, n int, results []byte, now time.Time) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if err := reconAttempt(id, n).tag(ctx, tx); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
UPDATE recon_jobs SET status = 'completed', completed_at = $3 WHERE id = $1 AND attempt = $2 AND status = 'processing'`, id, n, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return attempt.ErrStale
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO recon_results (job_id, body) VALUES ($1, $2)`, id, results)
		return err
	})
}

// Fail implements reconjob.Store.
func (s *JobStore) Fail(ctx context.Context, id uuid.UUID, n int, f reconjob.Failure, now time.Time) error {
	return takeOver(ctx, s.DB, reconAttempt(id, n), func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `
UPDATE recon_jobs SET status = 'failed', error_code = $3, error_message = $4, completed_at = $5, attempt = $2
 WHERE id = $1 AND attempt <= $2 AND status = 'processing'`, id, n, string(f.Code), f.Message, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return attempt.ErrStale
		}
		return nil
	})
}
