package job

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/expected"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
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
	Bank      File
	Expected  File
	// IdempotencyKey is the client's Idempotency-idempotency.Key, empty when none was sent.
	IdempotencyKey string
}

// Accepted is the answer to a create: the job, and whether it is the replay of an earlier
// request with the same Idempotency-Key.
type Accepted struct {
	Job      Job
	Replayed bool
}

// Create accepts a job: it honours the Idempotency-idempotency.Key, checks both files' formats (a
// *FileError naming the field), charges the monthly quota (a *QuotaError past it) and stores
// the job with its files and its queued work in one transaction.
func (s *Service) Create(ctx context.Context, req NewJob) (Accepted, error) {
	now := s.now()
	key := idempotency.Key{AccountID: req.AccountID, Scope: QuotaScope(req.Env), Key: req.IdempotencyKey, Hash: requestHash(req)}
	return idempotency.Run(ctx, s.Store, key, now, s.logger(),
		func() (Accepted, error) { return s.create(ctx, req, key, now) },
		func(existing idempotency.Record) (Accepted, error) { return s.replay(ctx, req, existing) })
}

func (s *Service) create(ctx context.Context, req NewJob, key idempotency.Key, now time.Time) (Accepted, error) {
	if err := s.checkBank(req.Bank); err != nil {
		return Accepted{}, err
	}
	if err := s.checkExpected(req.Expected); err != nil {
		return Accepted{}, err
	}
	acc, err := s.Accounts.Account(ctx, req.AccountID)
	if err != nil {
		return Accepted{}, fmt.Errorf("load account: %w", err)
	}
	start, reset := Period(now)
	charge := Charge{Scope: QuotaScope(req.Env), Period: start, Limit: QuotaLimit(acc.ReconPlan, req.Env), ResetAt: reset}
	// A cheap early refusal for an account whose quota is used up, before its files are written;
	// the exact check is the charge inside Create.
	if used, err := s.Store.QuotaUsed(ctx, req.AccountID, charge.Scope, start); err != nil {
		return Accepted{}, fmt.Errorf("read quota: %w", err)
	} else if used >= charge.Limit {
		return Accepted{}, &QuotaError{Limit: charge.Limit, ResetAt: reset}
	}
	j := Job{ID: uuid.New(), AccountID: req.AccountID, Env: req.Env, Status: StatusProcessing,
		BankFile: req.Bank.Name, ExpectedFile: req.Expected.Name, CreatedAt: now.Truncate(time.Microsecond)}
	key.ResourceID = j.ID
	if err := s.Store.Create(ctx, j, req.Bank, req.Expected, charge, key); err != nil {
		return Accepted{}, err
	}
	return Accepted{Job: j}, nil
}

// replay answers a request whose Idempotency-idempotency.Key is held, done, by the same request.
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
// names in the same environment.
func requestHash(req NewJob) []byte {
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
	return h.Sum(nil)
}

// sniffBytes is how much of a text file the upload check reads: what format detection looks
// at, and the head whose rows the check parses.
const sniffBytes = 64 << 10

// checkBank is the check made before a job is accepted: see CheckStatement. A file too large
// to parse is left to the worker, which fails the job with FILE_TOO_LARGE.
func (s *Service) checkBank(f File) error {
	_, err := CheckStatement(f, s.Limits)
	if err != nil && !errors.Is(err, statement.ErrTooManyRows) && !errors.Is(err, statement.ErrResourceLimit) {
		var serr *statement.Error
		if !errors.As(err, &serr) {
			return err
		}
		return &FileError{Field: "bank", Msg: err.Error()}
	}
	return nil
}

// CheckStatement is the check of a bank statement before a job is accepted, shared by both
// APIs (PRODUCT.md section 6: every format is checked before the 202). It returns the detected
// format, and a *statement.Error when the file is refused; other errors are failures to read
// the spooled upload. A parser's internal failure is not the file's fault and is left to the
// worker.
//
// Containers (PDF, Excel) and the spreadsheet exports that are markup (HTML tables, XML
// Spreadsheets) are read whole: a container's table of contents is at its end, encryption or
// damage shows only when it is opened, and a page's head may be all styles and an embedded logo
// before its first table. Text formats of records (CSV, QIF, MT940, BAI2, OFX, CAMT) are
// parsed in their head only, so a large file is never read whole here; see checkHead.
func CheckStatement(f File, limits statement.Options) (statement.Format, error) {
	head, err := readHead(f, sniffBytes)
	if err != nil {
		return "", err
	}
	format, err := engine.Detect(head)
	if err == nil && !readWhole(format) {
		return checkHead(head, format, f.Size <= int64(len(head)), limits)
	}
	if err != nil && f.Size <= sniffBytes {
		return "", err
	}
	data, err := ReadAll(f)
	if err != nil {
		return "", err
	}
	st, err := engine.Parse(data, limits)
	if err != nil {
		return refusal(format, err)
	}
	return st.Format, nil
}

// readWhole reports whether the check reads a file of the format whole.
func readWhole(f statement.Format) bool {
	switch f {
	case statement.FormatPDF, statement.FormatXLSX, statement.FormatXLS, statement.FormatHTML, statement.FormatSpreadsheetML:
		return true
	}
	return false
}

// checkHead parses the head of a text statement. A file that fits in the head is parsed whole,
// and any failure is the file's. Of a larger file, the head is cut after its last full line,
// and only a failure the head proves refuses it: it is no statement of its format, or holds no
// column of dates and amounts (statement.ErrNotAStatement). What else a head shows, an element
// or record left open, no transaction yet, a control total that does not match, may be the cut
// and not the file; the worker reads the whole file and says.
func checkHead(head []byte, format statement.Format, whole bool, limits statement.Options) (statement.Format, error) {
	if !whole {
		head = cutAtLine(head)
	}
	st, err := engine.Parse(head, limits)
	switch {
	case err == nil:
		return st.Format, nil
	case whole, errors.Is(err, statement.ErrNotAStatement):
		return refusal(format, err)
	}
	return format, nil
}

// refusal turns a parse failure into CheckStatement's answer.
func refusal(format statement.Format, err error) (statement.Format, error) {
	var serr *statement.Error
	if errors.As(err, &serr) && serr.Format != "" {
		// The head alone does not always tell the format: a ZIP's directory is at its end,
		// so a workbook larger than the head is only known as one by the parse.
		format = serr.Format
	}
	switch {
	case errors.Is(err, statement.ErrInternal):
		return format, nil
	case !errors.As(err, &serr):
		// Parsers return *statement.Error; anything else is still the file's problem.
		return format, statement.Errorf(format, statement.ErrCorrupt, statement.Position{}, "%v", err)
	}
	return format, err
}

// cutAtLine cuts a head of text after its last full line, so the parse does not meet half a
// record. UTF-16 text (by its byte-order mark, or NULs beside ASCII) is cut after a whole
// line-feed unit; a head without any line end is kept as it is.
func cutAtLine(head []byte) []byte {
	le := bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || len(head) >= 2 && head[0] != 0 && head[1] == 0
	be := bytes.HasPrefix(head, []byte{0xFE, 0xFF}) || len(head) >= 2 && head[0] == 0 && head[1] != 0
	switch {
	case le:
		for i := len(head)&^1 - 2; i >= 2; i -= 2 {
			if head[i] == '\n' && head[i+1] == 0 {
				return head[:i+2]
			}
		}
		return head[:len(head)&^1]
	case be:
		for i := len(head)&^1 - 2; i >= 2; i -= 2 {
			if head[i] == 0 && head[i+1] == '\n' {
				return head[:i+2]
			}
		}
		return head[:len(head)&^1]
	}
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		return head[:i+1]
	}
	return head
}

// checkExpected checks that the expected-references file is CSV or Excel with a reference and
// an amount column.
func (s *Service) checkExpected(f File) error {
	data, err := ReadAll(f)
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

func readHead(f File, n int64) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open upload: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return b, nil
}

// ReadAll returns the whole content of an uploaded file.
func ReadAll(f File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open upload: %w", err)
	}
	defer r.Close()
	b := make([]byte, 0, f.Size)
	buf := bytes.NewBuffer(b)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return buf.Bytes(), nil
}

// Get returns a job of the account in env.
func (s *Service) Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, error) {
	return s.Store.Get(ctx, accountID, env, id)
}

// Results returns a completed job's results: ErrNotFound for no such job, and ErrNotReady
// (with the job) while it is processing or when it failed.
func (s *Service) Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (Job, Results, error) {
	j, body, err := s.Store.Results(ctx, accountID, env, id)
	if err != nil {
		return j, Results{}, err
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

// Quota returns the account's job quota in env for the current month.
func (s *Service) Quota(ctx context.Context, accountID uuid.UUID, env account.Environment) (Quota, error) {
	acc, err := s.Accounts.Account(ctx, accountID)
	if err != nil {
		return Quota{}, fmt.Errorf("load account: %w", err)
	}
	start, reset := Period(s.now())
	used, err := s.Store.QuotaUsed(ctx, accountID, QuotaScope(env), start)
	if err != nil {
		return Quota{}, err
	}
	return Quota{Plan: acc.ReconPlan, Env: env, Limit: QuotaLimit(acc.ReconPlan, env), Used: used, ResetAt: reset}, nil
}
