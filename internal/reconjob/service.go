package reconjob

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/expected"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

// Accounts finds an account's plans; account.Store has it.
type Accounts interface {
	Account(ctx context.Context, id uuid.UUID) (account.Account, error)
}

// Service applies the job rules.
type Service struct {
	Store    Store
	Accounts Accounts
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Limits bound what parsing a file may consume; the zero value means the defaults.
	Limits statement.Options
	// Logger records job outcomes; slog.Default when nil.
	Logger *slog.Logger
	// Digester identifies a bank statement's password in the idempotency record by its keyed
	// digest; needed only by requests that send a password.
	Digester upload.Digester
	// Observer is told how jobs go, for the metrics; nil tells nobody.
	Observer attempt.Observer
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// NewJob is a request to create a job.
type NewJob struct {
	AccountID uuid.UUID
	Env       account.Environment
	Bank      upload.File
	Expected  upload.File
	// Password opens a bank statement protected by one (see upload.Unlock); it goes no further
	// than the check.
	Password string
	// IdempotencyKey is the client's Idempotency-Key, empty when none was sent.
	IdempotencyKey string
}

// Accepted is the answer to a create: the job, and whether it is the replay of an earlier
// request with the same Idempotency-Key.
type Accepted struct {
	Job      Job
	Replayed bool
}

// Create accepts a job: it honours the Idempotency-Key, checks both files' formats (a
// *FileError naming the field), charges the monthly quota (a *quota.Error past it) and stores
// the job with its files and its queued work in one transaction.
func (s *Service) Create(ctx context.Context, req NewJob) (Accepted, error) {
	a, err := s.accept(ctx, req)
	if qe := (*quota.Error)(nil); errors.As(err, &qe) {
		attempt.Observed(s.Observer).QuotaRefused(QuotaScope(req.Env))
	}
	return a, err
}

func (s *Service) accept(ctx context.Context, req NewJob) (Accepted, error) {
	now := s.now()
	hash, err := requestHash(req, s.Digester)
	if err != nil {
		return Accepted{}, err
	}
	key := idempotency.Key{AccountID: req.AccountID, Scope: QuotaScope(req.Env), Key: req.IdempotencyKey, Hash: hash}
	return idempotency.Run(ctx, s.Store, key, now, s.logger(),
		func() (Accepted, error) { return s.create(ctx, req, key, now) },
		func(existing idempotency.Record) (Accepted, error) { return s.replay(ctx, req, existing) })
}

func (s *Service) create(ctx context.Context, req NewJob, key idempotency.Key, now time.Time) (Accepted, error) {
	bank, err := upload.Unlock(req.Bank, req.Password, s.Limits)
	if err != nil {
		var serr *statement.Error
		if errors.As(err, &serr) {
			return Accepted{}, &FileError{Field: "bank", Msg: err.Error()}
		}
		return Accepted{}, err
	}
	if err := s.checkBank(bank); err != nil {
		return Accepted{}, err
	}
	if err := s.checkExpected(req.Expected); err != nil {
		return Accepted{}, err
	}
	acc, err := s.Accounts.Account(ctx, req.AccountID)
	if err != nil {
		return Accepted{}, fmt.Errorf("load account: %w", err)
	}
	start, reset := quota.Period(now)
	charge := quota.Charge{Scope: QuotaScope(req.Env), Period: start, Limit: QuotaLimit(acc.ReconPlan, req.Env), ResetAt: reset}
	// A cheap early refusal for an account whose quota is used up, before its files are written;
	// the exact check is the charge inside Create.
	if used, err := s.Store.QuotaUsed(ctx, req.AccountID, charge.Scope, start); err != nil {
		return Accepted{}, fmt.Errorf("read quota: %w", err)
	} else if used >= charge.Limit {
		return Accepted{}, &quota.Error{Limit: charge.Limit, ResetAt: reset}
	}
	j := Job{ID: uuid.New(), AccountID: req.AccountID, Env: req.Env, Status: StatusProcessing,
		BankFile: req.Bank.Name, ExpectedFile: req.Expected.Name, CreatedAt: now.Truncate(time.Microsecond)}
	key.ResourceID = j.ID
	if err := s.Store.Create(ctx, j, bank, req.Expected, charge, key); err != nil {
		return Accepted{}, err
	}
	return Accepted{Job: j}, nil
}

// replay answers a request whose Idempotency-Key is held, done, by the same request.
func (s *Service) replay(ctx context.Context, req NewJob, existing idempotency.Record) (Accepted, error) {
	j, err := s.Store.Get(ctx, req.AccountID, req.Env, existing.ResourceID)
	if err != nil {
		return Accepted{}, fmt.Errorf("load replayed job: %w", err)
	}
	// The first answer again: a job is always accepted as processing.
	j.Status, j.CompletedAt, j.Error = StatusProcessing, nil, nil
	return Accepted{Job: j, Replayed: true}, nil
}

// requestHash identifies a create request for idempotency: the same files under the same
// names in the same environment, with the same password (by its keyed digest) if any.
func requestHash(req NewJob, d upload.Digester) ([]byte, error) {
	h := sha256.New()
	field := func(b []byte) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(b)))
		h.Write(b)
	}
	field([]byte("recon-job/v1"))
	field([]byte(req.Env))
	field([]byte(req.Bank.Name))
	field(req.Bank.SHA256[:])
	field([]byte(req.Expected.Name))
	field(req.Expected.SHA256[:])
	if err := upload.HashPassword(h, d, req.Password); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// checkBank is the check made before a job is accepted: see upload.CheckStatement. A file too large
// to parse is left to the worker, which fails the job with FILE_TOO_LARGE.
func (s *Service) checkBank(f upload.File) error {
	_, err := upload.CheckStatement(f, s.Limits)
	if err != nil && !errors.Is(err, statement.ErrTooManyRows) && !errors.Is(err, statement.ErrResourceLimit) {
		var serr *statement.Error
		if !errors.As(err, &serr) {
			return err
		}
		return &FileError{Field: "bank", Msg: err.Error()}
	}
	return nil
}

// checkExpected checks that the expected-references file is CSV or Excel with a reference and
// an amount column.
func (s *Service) checkExpected(f upload.File) error {
	data, err := upload.ReadAll(f)
	if err != nil {
		return err
	}
	if err := expected.Check(data, s.Limits); err != nil {
		if errors.Is(err, expected.ErrTooLarge) {
			return nil // the worker fails the job with FILE_TOO_LARGE
		}
		return &FileError{Field: "expected", Msg: err.Error()}
	}
	return nil
}

// Get returns a job of the account in env: ErrNotFound for no such job, a *GoneError for one
// deleted on request.
func (s *Service) Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, error) {
	j, err := s.Store.Get(ctx, accountID, env, id)
	if err == nil && j.DeletedAt != nil {
		return Job{}, &GoneError{ID: id, DeletedAt: *j.DeletedAt}
	}
	return j, err
}

// GoneError is ErrGone for a job deleted on request, or whose results or files were deleted
// after their retention period (Expired: what went), with when.
type GoneError struct {
	ID        uuid.UUID
	DeletedAt time.Time
	Expired   string
}

func (e *GoneError) Error() string {
	if e.Expired != "" {
		return fmt.Sprintf("the %s of job %s were deleted on %s, after the retention period", e.Expired, e.ID, e.DeletedAt.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("job %s was deleted on request on %s", e.ID, e.DeletedAt.UTC().Format(time.RFC3339))
}

// Is makes a GoneError ErrGone.
func (e *GoneError) Is(target error) bool { return target == ErrGone }

// Delete deletes a finished job's files and results at once, for good, and leaves its id
// known as deleted: ErrNotFound for no such job, ErrNotReady while it is processing. Deleting
// a job deleted already succeeds.
func (s *Service) Delete(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) error {
	return s.Store.Delete(ctx, accountID, env, id, s.now())
}

// MaxListLimit is the largest page List returns.
const MaxListLimit = 100

// List returns a page of the account's jobs in q.Env, newest first, at most q.Limit of them
// (MaxListLimit when 0 or more), and the place of the page's last job when more follow (nil on
// the last page), for the next page's q.After.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, q ListQuery) ([]Job, *cursor.Mark, error) {
	limit := q.Limit
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	q.Limit = limit + 1
	jobs, err := s.Store.List(ctx, accountID, q)
	if err != nil {
		return nil, nil, err
	}
	if len(jobs) <= limit {
		return jobs, nil, nil
	}
	jobs = jobs[:limit]
	last := jobs[limit-1]
	return jobs, &cursor.Mark{CreatedAt: last.CreatedAt, ID: last.ID}, nil
}

// Results returns a completed job's results: ErrNotFound for no such job, and ErrNotReady
// (with the job) while it is processing or when it failed.
func (s *Service) Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, Results, error) {
	j, body, err := s.Store.Results(ctx, accountID, env, id)
	if err != nil {
		return j, Results{}, err
	}
	if j.DeletedAt != nil {
		return Job{}, Results{}, &GoneError{ID: id, DeletedAt: *j.DeletedAt}
	}
	if j.ResultsDeletedAt != nil {
		return j, Results{}, &GoneError{ID: id, DeletedAt: *j.ResultsDeletedAt, Expired: "results"}
	}
	if j.Status != StatusCompleted {
		return j, Results{}, ErrNotReady
	}
	var res Results
	if err := json.Unmarshal(body, &res); err != nil {
		return j, Results{}, fmt.Errorf("decode results of job %s: %w", id, err)
	}
	return j, res, nil
}

// JobsPerDay counts the account's jobs in env on each day of the current month (UTC) so far.
func (s *Service) JobsPerDay(ctx context.Context, accountID uuid.UUID, env account.Environment) ([]int, error) {
	now := s.now()
	start, _ := quota.Period(now)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return s.Store.JobsPerDay(ctx, accountID, env, start, today.AddDate(0, 0, 1))
}

// Quota returns the account's job quota in env for the current month.
func (s *Service) Quota(ctx context.Context, accountID uuid.UUID, env account.Environment) (Quota, error) {
	acc, err := s.Accounts.Account(ctx, accountID)
	if err != nil {
		return Quota{}, fmt.Errorf("load account: %w", err)
	}
	start, reset := quota.Period(s.now())
	used, err := s.Store.QuotaUsed(ctx, accountID, QuotaScope(env), start)
	if err != nil {
		return Quota{}, err
	}
	return Quota{Plan: acc.ReconPlan, Env: env, Limit: QuotaLimit(acc.ReconPlan, env), Used: used, ResetAt: reset}, nil
}
