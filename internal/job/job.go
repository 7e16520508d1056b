// Package job holds the rules of reconciliation jobs: accepting one (idempotency, quota, the
// files' first check), following it, and working it (parse the bank statement, read the
// expected references, match, store the results), whoever runs the worker and however often
// it is retried. Storage and the queue are behind the Store interface.
package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/idempotency"
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
type Failure struct {
	Code    ErrorCode
	Message string
}

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
}

// File is an uploaded file, already received in full (spooled), with its digest.
type File struct {
	// Name is the client's file name with directory parts removed; it is only ever displayed.
	Name   string
	Size   int64
	SHA256 [32]byte
	// Open returns the content from the start; each call gives a new reader.
	Open func() (io.ReadCloser, error)
}

// Errors of the job rules. The HTTP layer maps them with errors.Is.
var (
	// ErrNotFound: no such job for this account in this environment.
	ErrNotFound = errors.New("job not found")
	// ErrNotReady: the job has no results (still processing, or failed).
	ErrNotReady = errors.New("job not ready")
	// ErrQuotaExceeded: the account's monthly job quota is used up; see QuotaError.
	ErrQuotaExceeded = errors.New("job quota exceeded")
	// ErrFileInvalid: an uploaded file is of an unsupported format or cannot be opened; see
	// FileError.
	ErrFileInvalid = errors.New("invalid file")
	// ErrStale: a worker attempt lost its claim on the job to a newer attempt, or the job is
	// already finished. Its outcome must be dropped.
	ErrStale = errors.New("stale job attempt")
)

// QuotaError is the ErrQuotaExceeded error with what a client needs to know.
type QuotaError struct {
	Limit   int
	ResetAt time.Time
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("the monthly quota of %d jobs is used up; it resets at %s", e.Limit, e.ResetAt.Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrQuotaExceeded) true.
func (e *QuotaError) Unwrap() error { return ErrQuotaExceeded }

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
	// Create stores the job and its files, charges the quota (refusing with a *QuotaError when
	// the period's count has reached limit), marks the key done when k.Key is set, and queues
	// the job's work.
	Create(ctx context.Context, j Job, bank, expected File, q Charge, k idempotency.Key) error
	// Get returns the job of the account in env; ErrNotFound otherwise.
	Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, error)
	// Results returns the stored results document of a completed job.
	Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, []byte, error)
	// QuotaUsed returns the jobs charged to scope in the period starting at period.
	QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error)

	// Claim makes attempt the job's current attempt, unless the job is finished or a newer
	// attempt claimed it (ErrStale), and returns the job.
	Claim(ctx context.Context, id uuid.UUID, attempt int) (Job, error)
	// ReadFile returns the content of one of the job's files ("bank" or "expected").
	ReadFile(ctx context.Context, id uuid.UUID, field string) ([]byte, error)
	// Complete stores the results and marks the job completed, if attempt still holds it
	// (ErrStale otherwise).
	Complete(ctx context.Context, id uuid.UUID, attempt int, results []byte, now time.Time) error
	// Fail marks the job failed, unless it is finished or a newer attempt claimed it (ErrStale):
	// the final attempt fails the job even when it could not claim it first.
	Fail(ctx context.Context, id uuid.UUID, attempt int, f Failure, now time.Time) error
}

// Charge is the quota charge of a new job.
type Charge struct {
	Scope  string
	Period time.Time
	Limit  int
	// ResetAt is when the period ends, for the QuotaError.
	ResetAt time.Time
}
