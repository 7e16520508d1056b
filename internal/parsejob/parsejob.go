// Package parsejob holds the rules of parsing jobs, the Parsing API's jobs: accepting an upload
// (idempotency, the monthly job limit, the file's first check), working it (parse the statement,
// keep its transactions, decide between completed and review), and reading it back: lists of
// jobs, pages of transactions, exports, usage and the account's plan. Storage and the queue are
// behind the Store interface; the idempotency and quota rules are those of packages idempotency and
// quota, shared by both APIs.
package parsejob

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

// Status is a parsing job's state: Queued -> Processing -> Completed | Review | Failed.
type Status string

// The statuses of a parsing job.
const (
	StatusQueued     Status = "queued"
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusReview     Status = "review"
	StatusFailed     Status = "failed"
)

// Statuses lists every status, in lifecycle order.
var Statuses = []Status{StatusQueued, StatusProcessing, StatusCompleted, StatusReview, StatusFailed}

// HasResults reports whether a job in this status has readable transactions.
func (s Status) HasResults() bool { return s == StatusCompleted || s == StatusReview }

// Finished reports whether a job in this status will never change again.
func (s Status) Finished() bool { return s.HasResults() || s == StatusFailed }

// ErrorCode says why a job failed, as in the API's JobErrorCode.
type ErrorCode string

// The failure codes of a parsing job.
const (
	CodeUnsupportedFormat ErrorCode = "unsupported_format"
	CodeFileCorrupt       ErrorCode = "file_corrupt"
	CodeFileEncrypted     ErrorCode = "file_encrypted"
	CodePasswordRequired  ErrorCode = "password_required"
	CodePasswordIncorrect ErrorCode = "password_incorrect"
	CodeNoTextLayer       ErrorCode = "no_text_layer"
	CodeNoTransactions    ErrorCode = "no_transactions"
	CodeTooManyRows       ErrorCode = "too_many_rows"
	CodeResourceLimit     ErrorCode = "resource_limit"
	CodeTimeout           ErrorCode = "timeout"
	CodeInternalError     ErrorCode = "internal_error"
)

// Failure is why a job failed; its Message may be shown to the client.
type Failure = attempt.Failure[ErrorCode]

// Job is a parsing job and what was learned about its statement. The statement fields are set
// when the job is completed or in review.
type Job struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	Status    Status
	// FileName is the client's file name with directory parts removed; only ever displayed.
	FileName string
	// Format was detected from the content when the file was uploaded.
	Format            statement.Format
	BankName          string
	Account           string
	Currency          string
	PeriodStart       statement.Date
	PeriodEnd         statement.Date
	OpeningBalance    *decimal.Decimal
	ClosingBalance    *decimal.Decimal
	TransactionsCount int
	ReviewReasons     []statement.ReviewReason
	// Error is set when Status is StatusFailed.
	Error     *Failure
	CreatedAt time.Time
	// CompletedAt is set when the job reached a final status.
	CompletedAt *time.Time
	// RequestID is the request id of the upload that created the job: an idempotent replay
	// repeats the first answer, request id included.
	RequestID string
	// DeletedAt is set when the job's data was deleted on request: the job is a tombstone, its
	// file, transactions and statement details gone.
	DeletedAt *time.Time
	// FilesDeletedAt and ResultsDeletedAt are set when the job's files, and its results, were
	// deleted after their retention periods; the job itself stays.
	FilesDeletedAt   *time.Time
	ResultsDeletedAt *time.Time
}

// Accepted returns the job as it was when it was accepted: what the upload answered.
func (j Job) Accepted() Job {
	return Job{ID: j.ID, AccountID: j.AccountID, Status: StatusQueued, FileName: j.FileName, Format: j.Format,
		CreatedAt: j.CreatedAt, RequestID: j.RequestID}
}

// Transaction is one parsed statement line of a job. Its position in the statement is Seq
// (0-based), the order of results and exports.
type Transaction struct {
	ID  uuid.UUID
	Seq int
	statement.Transaction
}

// Errors of the parsing job rules. The HTTP layer maps them with errors.Is and errors.As.
var (
	// ErrNotFound: no such job in the account.
	ErrNotFound = errors.New("job not found")
	// ErrNotReady: the job has no readable results (queued, processing or failed); or, to
	// Delete, it has not finished.
	ErrNotReady = errors.New("job not ready")
	// ErrGone: the job's data was deleted, on request or after its retention period; see
	// GoneError.
	ErrGone = errors.New("job deleted")
)

// FileError refuses an uploaded file; its text may be shown to the client.
type FileError struct {
	Msg string
	// TooLarge: the file has more rows than allowed (413), rather than not being a readable
	// statement (400).
	TooLarge bool
}

func (e *FileError) Error() string { return "file: " + e.Msg }

// ListQuery selects a page of an account's jobs, newest first (created_at, then id, both
// descending).
type ListQuery struct {
	Status        *Status
	CreatedAfter  *time.Time // inclusive
	CreatedBefore *time.Time // exclusive
	// FileName, when set, keeps the jobs whose file name contains it, compared without case.
	FileName string
	// After, when set, is the last job of the previous page: the page starts after it.
	After *Mark
	Limit int
}

// Threshold is a share of the monthly quota an account reached, announced by a usage.threshold
// event to the endpoints that subscribe to it.
type Threshold struct {
	Percent   int
	ReachedAt time.Time
}

// Mark is a job's place in the newest-first order.
type Mark = cursor.Mark

// Store keeps parsing jobs, their files and transactions, and queues their work. Create must be
// atomic: the file, the job row, the quota charge, the idempotency record and the queued work
// are committed together or not at all; so must Complete: the transactions and the final
// status.
type Store interface {
	// ClaimKey, ReleaseKey and QuotaUsed are as in reconjob.Store.
	ClaimKey(ctx context.Context, k idempotency.Key, now time.Time) (existing idempotency.Record, claimed bool, err error)
	ReleaseKey(ctx context.Context, k idempotency.Key) error
	QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error)

	// Create stores the queued job and its file, charges the quota (a *quota.Error when the
	// period's count has reached the limit), marks the key done when k.Key is set, and queues
	// the job's work.
	Create(ctx context.Context, j Job, f upload.File, q quota.Charge, k idempotency.Key) error
	// Get returns the account's job, a tombstone included; ErrNotFound otherwise.
	Get(ctx context.Context, accountID, id uuid.UUID) (Job, error)
	// Delete deletes the finished job's file and transactions and makes it a tombstone deleted
	// at now, all at once: ErrNotFound for no such job, ErrNotReady while it is unfinished, nil
	// when it is a tombstone already.
	Delete(ctx context.Context, accountID, id uuid.UUID, now time.Time) error
	// List returns up to q.Limit jobs of the account, newest first.
	List(ctx context.Context, accountID uuid.UUID, q ListQuery) ([]Job, error)
	// JobsPerDay counts the account's jobs created on each day from from (a UTC day's start)
	// until to.
	JobsPerDay(ctx context.Context, accountID uuid.UUID, from, to time.Time) ([]int, error)
	// ThresholdsReached returns the usage thresholds the account reached in scope in the quota
	// period starting at period, lowest first.
	ThresholdsReached(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) ([]Threshold, error)
	// Transactions returns up to limit transactions of the job with Seq > after, in order.
	Transactions(ctx context.Context, jobID uuid.UUID, after, limit int) ([]Transaction, error)
	// Results is Get and Transactions at once, in one round trip: the account's job (a
	// tombstone included; ErrNotFound otherwise) and up to limit of its transactions with Seq >
	// after, in order.
	Results(ctx context.Context, accountID, id uuid.UUID, after, limit int) (Job, []Transaction, error)
	// TransactionsParsed sums the transactions of the account's jobs created in [from, to).
	TransactionsParsed(ctx context.Context, accountID uuid.UUID, from, to time.Time) (int64, error)
	// OldestQueued returns when the oldest job still waiting for a worker was created; false
	// when none waits.
	OldestQueued(ctx context.Context) (time.Time, bool, error)

	// Claim makes attempt the job's current attempt and the job processing, unless the job is
	// finished or a newer attempt claimed it (attempt.ErrStale).
	Claim(ctx context.Context, id uuid.UUID, attempt int) (Job, error)
	// ReadFile returns the content of the job's file.
	ReadFile(ctx context.Context, id uuid.UUID) ([]byte, error)
	// Complete stores the transactions and the statement fields of out (Status completed or
	// review, the statement's fields, TransactionsCount, ReviewReasons, CompletedAt), if
	// attempt still holds the job (attempt.ErrStale otherwise). When txs has a Finish, out is
	// completed by it once the transactions have been read, before it is stored.
	Complete(ctx context.Context, id uuid.UUID, attempt int, out Job, txs Transactions) error
	// Fail marks the job failed, unless it is finished or a newer attempt claimed it (attempt.ErrStale):
	// the final attempt fails the job even when it could not claim it first.
	Fail(ctx context.Context, id uuid.UUID, attempt int, f Failure, now time.Time) error
}

// Transactions are a job's transactions as Store.Complete writes them: Each yields them in
// order, Count of them, without their being held (a statement.Stream reads them again from the
// file), and returns why it could not. Finish, when set, completes the job's fields from what
// the reading found (a statement finished as its transactions pass: its status and review
// reasons are known only after the last).
type Transactions struct {
	Count  int
	Each   func(yield func(*statement.Transaction) bool) error
	Finish func(out *Job)
}
