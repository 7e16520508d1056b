// Package reconjob holds the rules of reconciliation jobs: accepting one (idempotency, quota, the
// files' first check), following it, and working it (parse the bank statement, read the
// expected references, match, store the results), whoever runs the worker and however often
// it is retried. Storage and the queue are behind the Store interface.
package reconjob

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/upload"
)

// Status is a job's state. Completed and Failed are final.
type Status string

// The statuses of a reconciliation job.
const (
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
)

// ErrorCode says why a job failed, as in the API's JobErrorCode.
type ErrorCode string

// The failure codes of a job.
const (
	// CodeFileInvalid: a file passed the upload check but could not be read while processing.
	CodeFileInvalid ErrorCode = "FILE_INVALID"
	// CodeFileTooLarge: a file has more rows than allowed or expands past the limits.
	CodeFileTooLarge ErrorCode = "FILE_TOO_LARGE"
	// CodeServerError: the service could not finish the job.
	CodeServerError ErrorCode = "SERVER_ERROR"
)

// Failure is why a job failed; its Message may be shown to the client.
type Failure = attempt.Failure[ErrorCode]

// Job is a reconciliation job.
type Job struct {
	ID           uuid.UUID
	AccountID    uuid.UUID
	Env          account.Environment
	Status       Status
	BankFile     string
	ExpectedFile string
	CreatedAt    time.Time
	// CompletedAt is set when the job finished, either way.
	CompletedAt *time.Time
	// Error is set when Status is StatusFailed.
	Error *Failure
	// DeletedAt is set when the job's data was deleted on request: the job is a tombstone, its
	// files, results and file names gone.
	DeletedAt *time.Time
	// FilesDeletedAt and ResultsDeletedAt are set when the job's files, and its results, were
	// deleted after their retention periods; the job itself stays.
	FilesDeletedAt   *time.Time
	ResultsDeletedAt *time.Time
}

// ListQuery selects a page of an account's jobs in one environment, newest first (created_at,
// then id, both descending).
type ListQuery struct {
	Env    account.Environment
	Status *Status
	// FileName, when set, keeps the jobs either of whose file names contains it, compared
	// without case.
	FileName      string
	CreatedAfter  *time.Time // inclusive
	CreatedBefore *time.Time // exclusive
	// After, when set, is the last job of the previous page: the page starts after it.
	After *cursor.Mark
	Limit int
}

// Errors of the job rules. The HTTP layer maps them with errors.Is.
var (
	// ErrNotFound: no such job for this account in this environment.
	ErrNotFound = errors.New("job not found")
	// ErrNotReady: the job has no results (still processing, or failed); or, to Delete, it is
	// still processing.
	ErrNotReady = errors.New("job not ready")
	// ErrGone: the job's data was deleted, on request or after its retention period; see
	// GoneError.
	ErrGone = errors.New("job deleted")
	// ErrFileInvalid: an uploaded file is of an unsupported format or cannot be opened; see
	// FileError.
	ErrFileInvalid = errors.New("invalid file")
)

// FileError is the ErrFileInvalid error of one uploaded file. Its text names the form field and
// the problem and may be shown to the client.
type FileError struct {
	// Field is the multipart field: "bank" or "expected".
	Field string
	Msg   string
}

func (e *FileError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrFileInvalid) true.
func (e *FileError) Unwrap() error { return ErrFileInvalid }

// Store keeps jobs, their files, results, quota counts and idempotency keys, and queues work.
// Implementations must make Create atomic: the files, the job row, the quota charge, the
// idempotency record and the queued work are committed together or not at all.
type Store interface {
	// ClaimKey records key as pending for a request with hash, unless a live record exists:
	// then it returns that record and claimed false. Records older than idempotency.KeyTTL,
	// and pending ones older than idempotency.PendingTTL, are replaced.
	ClaimKey(ctx context.Context, k idempotency.Key, now time.Time) (existing idempotency.Record, claimed bool, err error)
	// ReleaseKey deletes the pending record of a request that failed.
	ReleaseKey(ctx context.Context, k idempotency.Key) error
	// Create stores the job and its files, charges the quota (refusing with a *quota.Error when
	// the period's count has reached limit), marks the key done when k.Key is set, and queues
	// the job's work.
	Create(ctx context.Context, j Job, bank, expected upload.File, q quota.Charge, k idempotency.Key) error
	// Get returns the job of the account in env, a tombstone included; ErrNotFound otherwise.
	Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, error)
	// Delete deletes the finished job's files and results and makes it a tombstone deleted at
	// now, all at once: ErrNotFound for no such job, ErrNotReady while it is processing, nil
	// when it is a tombstone already.
	Delete(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID, now time.Time) error
	// List returns up to q.Limit jobs of the account in q.Env, newest first.
	List(ctx context.Context, accountID uuid.UUID, q ListQuery) ([]Job, error)
	// JobsPerDay counts the account's jobs in env created on each day from from (a UTC day's
	// start) until to.
	JobsPerDay(ctx context.Context, accountID uuid.UUID, env account.Environment, from, to time.Time) ([]int, error)
	// Results returns the stored results document of a completed job.
	Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, []byte, error)
	// ResultsPart returns up to n bytes of the stored results document of job id from byte
	// offset off (0-based): fewer at its end, none past it; ErrNotFound when the job has no
	// results (any more).
	ResultsPart(ctx context.Context, id uuid.UUID, off, n int64) ([]byte, error)
	// QuotaUsed returns the jobs charged to scope in the period starting at period.
	QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error)

	// Claim makes attempt the job's current attempt, unless the job is finished or a newer
	// attempt claimed it (attempt.ErrStale), and returns the job.
	Claim(ctx context.Context, id uuid.UUID, attempt int) (Job, error)
	// ReadFile returns the content of one of the job's files ("bank" or "expected").
	ReadFile(ctx context.Context, id uuid.UUID, field string) ([]byte, error)
	// Complete stores the results and marks the job completed, if attempt still holds it
	// (attempt.ErrStale otherwise).
	Complete(ctx context.Context, id uuid.UUID, attempt int, results []byte, now time.Time) error
	// Fail marks the job failed, unless it is finished or a newer attempt claimed it (attempt.ErrStale):
	// the final attempt fails the job even when it could not claim it first.
	Fail(ctx context.Context, id uuid.UUID, attempt int, f Failure, now time.Time) error
}
