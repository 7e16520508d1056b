package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/job"
)

// chunkSize is the size of the pieces an uploaded file is stored in.
const chunkSize = 1 << 20

// JobStore keeps reconciliation jobs, their files and results, quota counts and idempotency
// keys, and queues jobs on Queue in the transaction that creates them.
type JobStore struct {
	DB    *sqlx.DB
	Queue *Queue
}

var _ job.Store = (*JobStore)(nil)

// NewJobStore returns the job store of db, queueing on q.
func NewJobStore(db *sqlx.DB, q *Queue) *JobStore { return &JobStore{DB: db, Queue: q} }

// ClaimKey implements job.Store. The insert either takes the key, or (on conflict) takes it
// over when the existing record expired or was abandoned pending; otherwise the existing record
// is read. A record deleted between the two statements is claimed on the next round.
func (s *JobStore) ClaimKey(ctx context.Context, k job.Key, now time.Time) (job.KeyRecord, bool, error) {
	for range 3 {
		var claimed bool
		err := s.DB.QueryRowContext(ctx, `
INSERT INTO idempotency_keys (account_id, scope, key, request_hash, state, created_at)
VALUES ($1, $2, $3, $4, 'pending', $5)
ON CONFLICT (account_id, scope, key) DO UPDATE
   SET request_hash = EXCLUDED.request_hash, state = 'pending', job_id = NULL, created_at = EXCLUDED.created_at
 WHERE idempotency_keys.created_at <= $6
    OR (idempotency_keys.state = 'pending' AND idempotency_keys.created_at <= $7)
RETURNING true`, k.AccountID, k.Scope, k.Key, k.Hash, now, now.Add(-job.KeyTTL), now.Add(-job.PendingTTL)).Scan(&claimed)
		if err == nil {
			return job.KeyRecord{}, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return job.KeyRecord{}, false, err
		}
		var (
			rec   job.KeyRecord
			state string
			id    uuid.NullUUID
		)
		err = s.DB.QueryRowContext(ctx, `
SELECT request_hash, state, job_id, created_at FROM idempotency_keys
 WHERE account_id = $1 AND scope = $2 AND key = $3`, k.AccountID, k.Scope, k.Key).Scan(&rec.Hash, &state, &id, &rec.CreatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return job.KeyRecord{}, false, err
		}
		rec.Done, rec.JobID = state == "done", id.UUID
		return rec, false, nil
	}
	return job.KeyRecord{}, false, errors.New("idempotency key changed hands repeatedly")
}

// ReleaseKey implements job.Store.
func (s *JobStore) ReleaseKey(ctx context.Context, k job.Key) error {
	_, err := s.DB.ExecContext(ctx, `
DELETE FROM idempotency_keys WHERE account_id = $1 AND scope = $2 AND key = $3 AND state = 'pending' AND request_hash = $4`,
		k.AccountID, k.Scope, k.Key, k.Hash)
	return err
}

// Create implements job.Store: files, job row, quota charge, idempotency record and queued work
// in one transaction. A job refused by the quota rolls everything back.
func (s *JobStore) Create(ctx context.Context, j job.Job, bank, expected job.File, q job.Charge, k job.Key) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		bankID, err := storeFile(ctx, tx, j.AccountID, bank, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("store bank file: %w", err)
		}
		expectedID, err := storeFile(ctx, tx, j.AccountID, expected, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("store expected file: %w", err)
		}
		queued, err := s.Queue.enqueueReconcile(ctx, tx.Tx, j.ID)
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
		// The quota is charged last: its row lock serialises an account's concurrent creates, so
		// it is held only for the end of the transaction, not while the files are written.
		var used int
		err = tx.QueryRowContext(ctx, `
INSERT INTO job_quota (account_id, scope, period, used) VALUES ($1, $2, $3, 1)
ON CONFLICT (account_id, scope, period) DO UPDATE SET used = job_quota.used + 1 WHERE job_quota.used < $4
RETURNING used`, j.AccountID, q.Scope, q.Period, q.Limit).Scan(&used)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && used > q.Limit) {
			return &job.QuotaError{Limit: q.Limit, ResetAt: q.ResetAt}
		}
		if err != nil {
			return fmt.Errorf("charge quota: %w", err)
		}
		if k.Key != "" {
			res, err := tx.ExecContext(ctx, `
UPDATE idempotency_keys SET state = 'done', job_id = $5
 WHERE account_id = $1 AND scope = $2 AND key = $3 AND request_hash = $4 AND state = 'pending'`,
				k.AccountID, k.Scope, k.Key, k.Hash, k.JobID)
			if err != nil {
				return fmt.Errorf("record idempotency key: %w", err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				// Another request took the key over (this one was pending past PendingTTL).
				return job.ErrIdempotencyConflict
			}
		}
		return nil
	})
}

// storeFile writes an uploaded file in chunks and returns its id.
func storeFile(ctx context.Context, tx *sqlx.Tx, accountID uuid.UUID, f job.File, now time.Time) (uuid.UUID, error) {
	id := uuid.New()
	if _, err := tx.ExecContext(ctx, `INSERT INTO uploads (id, account_id, file_name, size, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, accountID, f.Name, f.Size, f.SHA256[:], now); err != nil {
		return uuid.Nil, err
	}
	r, err := f.Open()
	if err != nil {
		return uuid.Nil, err
	}
	defer r.Close()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_chunks (upload_id, seq, data) VALUES ($1, $2, $3)`)
	if err != nil {
		return uuid.Nil, err
	}
	defer stmt.Close()
	buf := make([]byte, chunkSize)
	h := sha256.New()
	var size int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			h.Write(buf[:n])
			size += int64(n)
			if _, err := stmt.ExecContext(ctx, id, seq, buf[:n]); err != nil {
				return uuid.Nil, err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return uuid.Nil, err
		}
	}
	// The spooled file is what was checked and hashed; make sure it is also what is stored.
	if size != f.Size || !bytes.Equal(h.Sum(nil), f.SHA256[:]) {
		return uuid.Nil, errors.New("uploaded file changed while it was stored")
	}
	return id, nil
}

const jobColumns = `id, account_id, env, status, bank_file, expected_file, error_code, error_message, created_at, completed_at`

type jobRow struct {
	ID           uuid.UUID      `db:"id"`
	AccountID    uuid.UUID      `db:"account_id"`
	Env          string         `db:"env"`
	Status       string         `db:"status"`
	BankFile     string         `db:"bank_file"`
	ExpectedFile string         `db:"expected_file"`
	ErrorCode    sql.NullString `db:"error_code"`
	ErrorMessage sql.NullString `db:"error_message"`
	CreatedAt    time.Time      `db:"created_at"`
	CompletedAt  sql.NullTime   `db:"completed_at"`
}

func (r jobRow) job() job.Job {
	j := job.Job{ID: r.ID, AccountID: r.AccountID, Env: account.Environment(r.Env), Status: job.Status(r.Status),
		BankFile: r.BankFile, ExpectedFile: r.ExpectedFile, CreatedAt: r.CreatedAt.UTC()}
	if r.CompletedAt.Valid {
		t := r.CompletedAt.Time.UTC()
		j.CompletedAt = &t
	}
	if r.ErrorCode.Valid {
		j.Error = &job.Failure{Code: job.ErrorCode(r.ErrorCode.String), Message: r.ErrorMessage.String}
	}
	return j
}

// Get implements job.Store.
func (s *JobStore) Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (job.Job, error) {
	var r jobRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+jobColumns+` FROM recon_jobs WHERE id = $1 AND account_id = $2 AND env = $3`, id, accountID, string(env))
	if errors.Is(err, sql.ErrNoRows) {
		return job.Job{}, job.ErrNotFound
	}
	if err != nil {
		return job.Job{}, err
	}
	return r.job(), nil
}

// Results implements job.Store.
func (s *JobStore) Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (job.Job, []byte, error) {
	var r struct {
		jobRow
		Body []byte `db:"body"`
	}
	err := s.DB.GetContext(ctx, &r, `
SELECT j.*, coalesce(r.body, ''::bytea) AS body
  FROM (SELECT `+jobColumns+` FROM recon_jobs) j LEFT JOIN recon_results r ON r.job_id = j.id
 WHERE j.id = $1 AND j.account_id = $2 AND j.env = $3`, id, accountID, string(env))
	if errors.Is(err, sql.ErrNoRows) {
		return job.Job{}, nil, job.ErrNotFound
	}
	if err != nil {
		return job.Job{}, nil, err
	}
	return r.job(), r.Body, nil
}

// QuotaUsed implements job.Store.
func (s *JobStore) QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error) {
	var used int
	err := s.DB.QueryRowContext(ctx, `SELECT coalesce(sum(used), 0) FROM job_quota WHERE account_id = $1 AND scope = $2 AND period = $3`,
		accountID, scope, period).Scan(&used)
	return used, err
}

// Claim implements job.Store.
func (s *JobStore) Claim(ctx context.Context, id uuid.UUID, attempt int) (job.Job, error) {
	var r jobRow
	err := s.DB.GetContext(ctx, &r, `
UPDATE recon_jobs SET attempt = $2 WHERE id = $1 AND status = 'processing' AND attempt < $2
RETURNING `+jobColumns, id, attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return job.Job{}, job.ErrStale
	}
	if err != nil {
		return job.Job{}, err
	}
	return r.job(), nil
}

// ReadFile implements job.Store.
func (s *JobStore) ReadFile(ctx context.Context, id uuid.UUID, field string) ([]byte, error) {
	column := "bank_upload"
	if field == "expected" {
		column = "expected_upload"
	}
	var size int64
	var upload uuid.UUID
	err := s.DB.QueryRowContext(ctx, `SELECT u.id, u.size FROM recon_jobs j JOIN uploads u ON u.id = j.`+column+` WHERE j.id = $1`, id).Scan(&upload, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, job.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT data FROM upload_chunks WHERE upload_id = $1 ORDER BY seq`, upload)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	data := make([]byte, 0, size)
	for rows.Next() {
		var chunk sql.RawBytes
		if err := rows.Scan(&chunk); err != nil {
			return nil, err
		}
		data = append(data, chunk...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("upload %s: read %d bytes, stored size is %d", upload, len(data), size)
	}
	return data, nil
}

// Complete implements job.Store.
func (s *JobStore) Complete(ctx context.Context, id uuid.UUID, attempt int, results []byte, now time.Time) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `
UPDATE recon_jobs SET status = 'completed', completed_at = $3 WHERE id = $1 AND attempt = $2 AND status = 'processing'`, id, attempt, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return job.ErrStale
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO recon_results (job_id, body) VALUES ($1, $2)`, id, results)
		return err
	})
}

// Fail implements job.Store.
func (s *JobStore) Fail(ctx context.Context, id uuid.UUID, attempt int, f job.Failure, now time.Time) error {
	res, err := s.DB.ExecContext(ctx, `
UPDATE recon_jobs SET status = 'failed', error_code = $3, error_message = $4, completed_at = $5
 WHERE id = $1 AND attempt = $2 AND status = 'processing'`, id, attempt, string(f.Code), f.Message, now)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return job.ErrStale
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func inTx(ctx context.Context, db *sqlx.DB, fn func(*sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
