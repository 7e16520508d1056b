package parsejob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/upload"
)

// Monthly job limits of the Parsing API plans.
const (
	LimitFree     = 50
	LimitStarter  = 1_000
	LimitPro      = 10_000
	LimitBusiness = 100_000
)

// MonthlyLimit is the jobs a calendar month the plan allows.
func MonthlyLimit(plan account.ParsePlan) int {
	switch plan {
	case account.ParseStarter:
		return LimitStarter
	case account.ParsePro:
		return LimitPro
	case account.ParseBusiness:
		return LimitBusiness
	}
	return LimitFree
}

// QuotaScope is the quota and idempotency scope of the Parsing API (it has one environment).
const QuotaScope = "parse"

// Page sizes.
const (
	DefaultListLimit    = 20
	MaxListLimit        = 100
	DefaultResultsLimit = 100
	MaxResultsLimit     = 1000
	// exportBatch is how many transactions an export reads from the store at a time: the
	// export's memory is one batch, whatever the job's size.
	exportBatch = 2000
)

// DegradedAfter is how long a job may wait for a worker before the service reports itself
// degraded: jobs are picked up within a poll interval when workers are running.
const DegradedAfter = time.Minute

// Accounts finds an account's plans; account.Store has it.
type Accounts interface {
	Account(ctx context.Context, id uuid.UUID) (account.Account, error)
}

// Service applies the parsing job rules.
type Service struct {
	Store    Store
	Accounts Accounts
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Limits bound what parsing a file may consume; the zero value means the defaults.
	Limits statement.Options
	// Logger records job outcomes; slog.Default when nil.
	Logger *slog.Logger
	// Digester identifies a file's password in the idempotency record by its keyed digest;
	// needed only by uploads that send a password.
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

// NewJob is an upload.
type NewJob struct {
	AccountID uuid.UUID
	File      upload.File
	// Password opens a file protected by one (see upload.Unlock); it goes no further than the
	// check.
	Password string
	// IdempotencyKey is the client's Idempotency-Key, empty when none was sent.
	IdempotencyKey string
	// RequestID is the id of the upload request, kept for idempotent replays.
	RequestID string
}

// Accepted is the answer to an upload: the job as accepted, and whether it is the replay of an
// earlier request with the same Idempotency-Key.
type Accepted struct {
	Job      Job
	Replayed bool
}

// Create accepts an upload: it honours the Idempotency-Key, checks the file (a *FileError),
// charges the monthly job limit (a *quota.Error past it) and stores the queued job with its file
// and its work in one transaction.
func (s *Service) Create(ctx context.Context, req NewJob) (Accepted, error) {
	a, err := s.accept(ctx, req)
	if qe := (*quota.Error)(nil); errors.As(err, &qe) {
		attempt.Observed(s.Observer).QuotaRefused(QuotaScope)
	}
	return a, err
}

func (s *Service) accept(ctx context.Context, req NewJob) (Accepted, error) {
	now := s.now()
	hash, err := requestHash(req, s.Digester)
	if err != nil {
		return Accepted{}, err
	}
	key := idempotency.Key{AccountID: req.AccountID, Scope: QuotaScope, Key: req.IdempotencyKey, Hash: hash}
	return idempotency.Run(ctx, s.Store, key, now, s.logger(),
		func() (Accepted, error) { return s.create(ctx, req, key, now) },
		func(existing idempotency.Record) (Accepted, error) { return s.replay(ctx, req, existing) })
}

func (s *Service) create(ctx context.Context, req NewJob, key idempotency.Key, now time.Time) (Accepted, error) {
	file, err := upload.Unlock(req.File, req.Password, s.Limits)
	if err != nil {
		var serr *statement.Error
		if errors.As(err, &serr) {
			return Accepted{}, &FileError{Msg: err.Error()}
		}
		return Accepted{}, err
	}
	format, err := s.checkFile(file)
	if err != nil {
		return Accepted{}, err
	}
	acc, err := s.Accounts.Account(ctx, req.AccountID)
	if err != nil {
		return Accepted{}, fmt.Errorf("load account: %w", err)
	}
	start, reset := quota.Period(now)
	charge := quota.Charge{Scope: QuotaScope, Period: start, Limit: MonthlyLimit(acc.ParsePlan), ResetAt: reset,
		Announce: UsageThresholds}
	// A cheap early refusal for an account whose limit is used up, before its file is written;
	// the exact check is the charge inside Create.
	if used, err := s.Store.QuotaUsed(ctx, req.AccountID, QuotaScope, start); err != nil {
		return Accepted{}, fmt.Errorf("read quota: %w", err)
	} else if used >= charge.Limit {
		return Accepted{}, &quota.Error{Limit: charge.Limit, ResetAt: reset}
	}
	j := Job{ID: uuid.New(), AccountID: req.AccountID, Status: StatusQueued, FileName: req.File.Name, Format: format,
		CreatedAt: now.Truncate(time.Microsecond), RequestID: req.RequestID}
	key.ResourceID = j.ID
	if err := s.Store.Create(ctx, j, file, charge, key); err != nil {
		return Accepted{}, err
	}
	return Accepted{Job: j}, nil
}

// replay answers a request whose Idempotency-Key is held, done, by the same request: the first
// answer again.
func (s *Service) replay(ctx context.Context, req NewJob, existing idempotency.Record) (Accepted, error) {
	j, err := s.Store.Get(ctx, req.AccountID, existing.ResourceID)
	if err != nil {
		return Accepted{}, fmt.Errorf("load replayed job: %w", err)
	}
	return Accepted{Job: j.Accepted(), Replayed: true}, nil
}

// requestHash identifies an upload for idempotency: the same content under the same name, with
// the same password (by its keyed digest) if any.
func requestHash(req NewJob, d upload.Digester) ([]byte, error) {
	h := sha256.New()
	field := func(b []byte) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(b)))
		h.Write(b)
	}
	field([]byte("parse-job/v1"))
	field([]byte(req.File.Name))
	field(req.File.SHA256[:])
	if err := upload.HashPassword(h, d, req.Password); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// checkFile is the check before a job is accepted: a supported format that opens (see
// upload.CheckStatement), and not more rows than allowed where that shows without parsing. A text
// file with no more lines than the row limit cannot hold more rows; one with more is parsed here
// once to count them, so an oversized upload is refused before it is stored. Containers (PDF,
// Excel) and markup exports (HTML tables, XML Spreadsheets) were parsed whole by the check;
// their row count decides there too.
func (s *Service) checkFile(f upload.File) (statement.Format, error) {
	limits := s.Limits.WithDefaults()
	format, err := upload.CheckStatement(f, limits)
	var serr *statement.Error
	switch {
	case errors.Is(err, statement.ErrTooManyRows):
		return "", &FileError{Msg: err.Error(), TooLarge: true}
	case errors.Is(err, statement.ErrResourceLimit):
		return format, nil // the worker fails the job with resource_limit
	case errors.As(err, &serr):
		return "", &FileError{Msg: err.Error()}
	case err != nil:
		return "", err
	}
	switch format {
	case statement.FormatPDF, statement.FormatXLSX, statement.FormatXLS, statement.FormatHTML, statement.FormatSpreadsheetML:
		return format, nil
	}
	lines, err := countLines(f)
	if err != nil {
		return "", err
	}
	if lines <= limits.MaxRows {
		return format, nil
	}
	data, err := upload.ReadAll(f)
	if err != nil {
		return "", err
	}
	if _, err := engine.Stream(data, limits); errors.Is(err, statement.ErrTooManyRows) {
		return "", &FileError{Msg: err.Error(), TooLarge: true}
	}
	return format, nil
}

func countLines(f upload.File) (int, error) {
	r, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("open upload: %w", err)
	}
	defer r.Close()
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n + 1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("read upload: %w", err)
		}
	}
}

// Get returns a job of the account: ErrNotFound for no such job, a *GoneError for one deleted
// on request.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (Job, error) {
	j, err := s.Store.Get(ctx, accountID, id)
	if err == nil {
		err = gone(j)
	}
	if err != nil {
		return Job{}, err
	}
	return j, nil
}

// gone is the GoneError of a job deleted on request (a tombstone), or nil.
func gone(j Job) error {
	if j.DeletedAt != nil {
		return &GoneError{ID: j.ID, DeletedAt: *j.DeletedAt}
	}
	return nil
}

// GoneError is ErrGone for a job deleted on request, or whose transactions or file were
// deleted after their retention period (Expired: what went), with when.
type GoneError struct {
	ID        uuid.UUID
	DeletedAt time.Time
	Expired   string
}

func (e *GoneError) Error() string {
	if e.Expired != "" {
		return fmt.Sprintf("The %s of job %s was deleted on %s, after the retention period.", e.Expired, e.ID, e.DeletedAt.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("Job %s was deleted on request on %s.", e.ID, e.DeletedAt.UTC().Format(time.RFC3339))
}

// Is makes a GoneError ErrGone.
func (e *GoneError) Is(target error) bool { return target == ErrGone }

// Delete deletes a finished job's file and transactions at once, for good, and leaves its id
// known as deleted: ErrNotFound for no such job, ErrNotReady while it is queued or processing.
// Deleting a job deleted already succeeds.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	return s.Store.Delete(ctx, accountID, id, s.now())
}

// ListRequest asks for a page of jobs.
type ListRequest struct {
	Status        *Status
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	// FileName keeps the jobs whose file name contains it, compared without case (the
	// dashboard's filter; the API has none).
	FileName string
	// Cursor is the previous page's NextCursor; empty for the first page.
	Cursor string
	// Limit is the page size; DefaultListLimit when 0.
	Limit int
}

// List returns a page of the account's jobs, newest first, and the cursor of the next page
// ("" on the last). A cursor that is malformed or was made for other filters is cursor.ErrBad.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, req ListRequest) ([]Job, string, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	filter := listFilter(req)
	q := ListQuery{Status: req.Status, CreatedAfter: req.CreatedAfter, CreatedBefore: req.CreatedBefore, FileName: req.FileName, Limit: limit + 1}
	if req.Cursor != "" {
		mark, err := decodeListCursor(req.Cursor, filter)
		if err != nil {
			return nil, "", err
		}
		q.After = &mark
	}
	jobs, err := s.Store.List(ctx, accountID, q)
	if err != nil {
		return nil, "", err
	}
	if len(jobs) <= limit {
		return jobs, "", nil
	}
	jobs = jobs[:limit]
	last := jobs[limit-1]
	return jobs, encodeListCursor(Mark{CreatedAt: last.CreatedAt, ID: last.ID}, filter), nil
}

// Results returns a page of a readable job's transactions and the cursor of the next page (""
// on the last): ErrNotFound for no such job, ErrNotReady (with the job) when it has no results,
// cursor.ErrBad for a cursor of another job or a malformed one.
func (s *Service) Results(ctx context.Context, accountID, id uuid.UUID, cursor string, limit int) (Job, []Transaction, string, error) {
	if limit <= 0 {
		limit = DefaultResultsLimit
	}
	limit = min(limit, MaxResultsLimit)
	after := -1
	if cursor != "" {
		var err error
		if after, err = decodeResultsCursor(cursor, id); err != nil {
			return Job{}, nil, "", err
		}
	}
	j, txs, err := s.readablePage(ctx, accountID, id, after, limit+1)
	if err != nil {
		return j, nil, "", err
	}
	if len(txs) <= limit {
		return j, txs, "", nil
	}
	txs = txs[:limit]
	return j, txs, encodeResultsCursor(id, txs[limit-1].Seq), nil
}

// Transaction returns transaction seq (0-based) of a readable job, with the job: ErrNotFound
// for no such job or transaction, ErrNotReady when the job has no results.
func (s *Service) Transaction(ctx context.Context, accountID, id uuid.UUID, seq int) (Job, Transaction, error) {
	after, limit := seq-1, 1
	if seq < 0 || seq > maxCursorSeq {
		after, limit = -1, 0 // the job's answer comes first: it may be missing or not ready
	}
	j, txs, err := s.readablePage(ctx, accountID, id, after, limit)
	if err != nil {
		return j, Transaction{}, err
	}
	if len(txs) == 0 {
		return j, Transaction{}, ErrNotFound
	}
	return j, txs[0], nil
}

// File returns the statement file of the account's job (decrypted if it was protected), for a
// person to see its pages: ErrNotFound for another account's job.
func (s *Service) File(ctx context.Context, accountID, id uuid.UUID) ([]byte, error) {
	j, err := s.Get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	if j.FilesDeletedAt != nil {
		return nil, &GoneError{ID: id, DeletedAt: *j.FilesDeletedAt, Expired: "file"}
	}
	return s.Store.ReadFile(ctx, id)
}

// readable returns the job when its results can be read.
func (s *Service) readable(ctx context.Context, accountID, id uuid.UUID) (Job, error) {
	j, err := s.Get(ctx, accountID, id)
	if err != nil {
		return j, err
	}
	return j, resultsReadable(j)
}

// readablePage is readable and a page of the job's transactions (up to limit with Seq >
// after), read in one round trip.
func (s *Service) readablePage(ctx context.Context, accountID, id uuid.UUID, after, limit int) (Job, []Transaction, error) {
	j, txs, err := s.Store.Results(ctx, accountID, id, after, limit)
	if err == nil {
		err = gone(j)
	}
	if err != nil {
		return Job{}, nil, err
	}
	if err := resultsReadable(j); err != nil {
		return j, nil, err
	}
	return j, txs, nil
}

// resultsReadable says why the job's results cannot be read, or nil when they can.
func resultsReadable(j Job) error {
	if !j.Status.HasResults() {
		return ErrNotReady
	}
	if j.ResultsDeletedAt != nil {
		return &GoneError{ID: j.ID, DeletedAt: *j.ResultsDeletedAt, Expired: "transactions list"}
	}
	return nil
}

// Export returns a readable job, like Results, for an export of all its transactions with
// EachTransaction.
func (s *Service) Export(ctx context.Context, accountID, id uuid.UUID) (Job, error) {
	return s.readable(ctx, accountID, id)
}

// EachTransaction calls fn with every transaction of the job, in statement order, reading them
// from the store a batch at a time so that memory stays flat whatever the job's size. It stops
// at the first error, fn's or the store's. It does not check the account: jobID must be the id
// of a job that Export returned for the caller.
func (s *Service) EachTransaction(ctx context.Context, jobID uuid.UUID, fn func(Transaction) error) error {
	after := -1
	for {
		txs, err := s.Store.Transactions(ctx, jobID, after, exportBatch)
		if err != nil {
			return fmt.Errorf("read transactions of job %s: %w", jobID, err)
		}
		for _, t := range txs {
			if err := fn(t); err != nil {
				return err
			}
		}
		if len(txs) < exportBatch {
			return nil
		}
		after = txs[len(txs)-1].Seq
	}
}

// Usage is an account's use of the Parsing API in the current period.
type Usage struct {
	PeriodStart        time.Time
	PeriodEnd          time.Time
	Plan               account.ParsePlan
	JobsCreated        int
	JobsLimit          int
	TransactionsParsed int64
}

// JobsRemaining is JobsLimit minus JobsCreated, never below zero.
func (u Usage) JobsRemaining() int { return max(u.JobsLimit-u.JobsCreated, 0) }

// PercentUsed is JobsCreated / JobsLimit * 100, rounded to one decimal.
func (u Usage) PercentUsed() float64 {
	if u.JobsLimit <= 0 {
		return 0
	}
	return math.Round(float64(u.JobsCreated)*1000/float64(u.JobsLimit)) / 10
}

// Usage returns the account's usage in the current calendar month (UTC).
func (s *Service) Usage(ctx context.Context, accountID uuid.UUID) (Usage, error) {
	acc, err := s.Accounts.Account(ctx, accountID)
	if err != nil {
		return Usage{}, fmt.Errorf("load account: %w", err)
	}
	start, end := quota.Period(s.now())
	used, err := s.Store.QuotaUsed(ctx, accountID, QuotaScope, start)
	if err != nil {
		return Usage{}, fmt.Errorf("read quota: %w", err)
	}
	parsed, err := s.Store.TransactionsParsed(ctx, accountID, start, end)
	if err != nil {
		return Usage{}, fmt.Errorf("count transactions: %w", err)
	}
	return Usage{PeriodStart: start, PeriodEnd: end, Plan: acc.ParsePlan, JobsCreated: used,
		JobsLimit: MonthlyLimit(acc.ParsePlan), TransactionsParsed: parsed}, nil
}

// JobsPerDay counts the account's jobs on each day of the current month (UTC) so far.
func (s *Service) JobsPerDay(ctx context.Context, accountID uuid.UUID) ([]int, error) {
	now := s.now()
	start, _ := quota.Period(now)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return s.Store.JobsPerDay(ctx, accountID, start, today.AddDate(0, 0, 1))
}

// ThresholdsReached returns the usage thresholds the account reached this month, each announced
// once by a usage.threshold event.
func (s *Service) ThresholdsReached(ctx context.Context, accountID uuid.UUID) ([]Threshold, error) {
	start, _ := quota.Period(s.now())
	return s.Store.ThresholdsReached(ctx, accountID, QuotaScope, start)
}

// Health is the service's state as the Parsing API reports it.
type Health string

// Health values.
const (
	HealthOK       Health = "ok"
	HealthDegraded Health = "degraded"
)

// AccountStatus is the service's health and the plan of an account.
type AccountStatus struct {
	Health Health
	Plan   account.ParsePlan
	// RateLimit is the requests per ratelimit.Window the plan allows.
	RateLimit    int
	MonthlyLimit int
}

// Status returns the service's health and the account's plan and limits. The service is
// degraded when a job has waited for a worker longer than DegradedAfter.
func (s *Service) Status(ctx context.Context, accountID uuid.UUID) (AccountStatus, error) {
	acc, err := s.Accounts.Account(ctx, accountID)
	if err != nil {
		return AccountStatus{}, fmt.Errorf("load account: %w", err)
	}
	health := HealthOK
	oldest, waiting, err := s.Store.OldestQueued(ctx)
	if err != nil {
		return AccountStatus{}, fmt.Errorf("read queue: %w", err)
	}
	if waiting && s.now().Sub(oldest) > DegradedAfter {
		health = HealthDegraded
	}
	return AccountStatus{Health: health, Plan: acc.ParsePlan, MonthlyLimit: MonthlyLimit(acc.ParsePlan),
		RateLimit: ratelimit.LimitFor(ratelimit.Parse, ratelimit.Plans{Parse: acc.ParsePlan})}, nil
}
