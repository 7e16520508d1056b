package parsejob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// Process works one attempt of a job by the rules of attempt.Runner: it claims the job (making
// it processing), reads its file, parses it, and stores the transactions with the final status
// (completed, or review when the statement's checks found something) or the failure, in a way
// that is safe to repeat. A file that cannot be parsed, or whose parse ran past the attempt's
// time limit, fails the job for good and returns nil; an error of the service is returned so
// the queue retries the attempt, and the final attempt fails the job first, so it never stays
// processing.
func (s *Service) Process(ctx context.Context, id uuid.UUID, n int, final bool) error {
	r := &attempt.Runner[Job, ErrorCode]{Kind: "parse", Store: s.Store, Logger: s.logger(), Now: s.now, NotFound: ErrNotFound,
		TimedOut: timedOut, Abandoned: Abandoned, Observer: s.Observer}
	return r.Run(ctx, attempt.Attempt{JobID: id, Number: n, Final: final}, func(ctx context.Context, _ Job) (attempt.Outcome[ErrorCode], error) {
		data, err := s.Store.ReadFile(ctx, id)
		if err != nil {
			return attempt.Outcome[ErrorCode]{}, fmt.Errorf("read file: %w", err)
		}
		read, failure := s.parse(ctx, data)
		if ctx.Err() != nil || failure != nil {
			// The file's format, for the metrics, from its bytes: no statement was read.
			format, _ := engine.Detect(data)
			if ctx.Err() != nil {
				// The attempt ended while OCR read the file: the runner says whether it timed out.
				failure = nil
			}
			return attempt.Outcome[ErrorCode]{Failure: failure, Format: string(format)}, nil
		}
		st := read.Statement
		var out Job
		return attempt.Outcome[ErrorCode]{Format: string(st.Format), Review: func() bool { return out.Status == StatusReview }, Store: func(ctx context.Context) error {
			now := s.now()
			out = Job{CompletedAt: &now}
			// The statement is finished as its transactions are stored: its status is known
			// when the last has been written, and the job row is written after them.
			txs, whole := stored(read)
			txs.Finish = func(o *Job) {
				if !*whole {
					// The store read none (a statement of balances only): finish it.
					if err := read.Finished(func(*statement.Transaction) bool { return true }); err != nil {
						s.logger().ErrorContext(ctx, "statement could not be finished", slog.String("error", err.Error()))
					}
				}
				*o = outcome(st, read.Count)
				o.CompletedAt = &now
				out = *o
			}
			if err := s.Store.Complete(ctx, id, n, out, txs); err != nil {
				return err
			}
			s.logger().InfoContext(ctx, "parse job finished", slog.String("job_id", id.String()), slog.Int("attempt", n),
				slog.String("status", string(out.Status)), slog.Int("transactions", out.TransactionsCount),
				slog.Int("review_reasons", len(out.ReviewReasons)))
			return nil
		}}, nil
	})
}

// The failures the attempt runner writes for the service, not for the files.
var (
	// Abandoned is the failure of a job whose attempts all ended in errors of the service, or whose
	// work the queue gave up on: the file itself may be fine.
	Abandoned = Failure{Code: CodeInternalError, Message: "the job could not be processed; upload the file again"}
	// timedOut is the failure of an attempt that ran past its deadline.
	timedOut = Failure{Code: CodeTimeout, Message: "parsing the file took longer than allowed"}
)

// parse reads the statement without holding its transactions where the format allows:
// Complete reads them again, finishing the statement, as it stores them. It is deterministic:
// the same file gives the same statement or the same failure.
func (s *Service) parse(ctx context.Context, data []byte) (read *statement.Stream, failure *Failure) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 4<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logger().Error("panic while parsing", slog.Any("panic", r), slog.String("stack", string(buf)))
			read, failure = nil, &Failure{Code: CodeInternalError, Message: statement.ErrInternal.Error()}
		}
	}()
	read, err := engine.Stream(data, s.Limits.WithContext(ctx))
	if err != nil {
		if errors.Is(err, statement.ErrInternal) {
			s.logger().Error("parser failure", slog.String("error", err.Error()))
		}
		return nil, failureOf(err)
	}
	return read, nil
}

// failureOf says why a statement could not be read. The message is the parser's, which names
// the place in the file; a parser's internal failure shows only its fixed text.
func failureOf(err error) *Failure {
	codes := []struct {
		kind error
		code ErrorCode
	}{
		{statement.ErrNotAStatement, CodeUnsupportedFormat},
		{statement.ErrCorrupt, CodeFileCorrupt},
		{statement.ErrEncrypted, CodeFileEncrypted},
		{statement.ErrPasswordRequired, CodePasswordRequired},
		{statement.ErrPasswordIncorrect, CodePasswordIncorrect},
		{statement.ErrNoTextLayer, CodeNoTextLayer},
		{statement.ErrNoTransactions, CodeNoTransactions},
		{statement.ErrTooManyRows, CodeTooManyRows},
		{statement.ErrResourceLimit, CodeResourceLimit},
	}
	var serr *statement.Error
	msg := statement.ErrInternal.Error()
	if errors.As(err, &serr) && !errors.Is(err, statement.ErrInternal) {
		msg = serr.Error()
	}
	for _, c := range codes {
		if errors.Is(err, c.kind) {
			return &Failure{Code: c.code, Message: msg}
		}
	}
	return &Failure{Code: CodeInternalError, Message: statement.ErrInternal.Error()}
}

// outcome is what a finished statement of count transactions tells about the job: its fields
// and its status (review when the checks left reasons).
func outcome(st *statement.Statement, count int) Job {
	out := Job{Status: StatusCompleted, Format: st.Format, BankName: st.BankName, Account: st.Account, Currency: st.Currency,
		PeriodStart: st.PeriodStart, PeriodEnd: st.PeriodEnd, TransactionsCount: count, ReviewReasons: st.Review}
	if st.OpeningBalance != nil {
		b := statement.WithCurrencyDecimals(*st.OpeningBalance, st.Currency)
		out.OpeningBalance = &b
	}
	if st.ClosingBalance != nil {
		b := statement.WithCurrencyDecimals(*st.ClosingBalance, st.Currency)
		out.ClosingBalance = &b
	}
	if st.NeedsReview() {
		out.Status = StatusReview
	}
	return out
}

// stored is a statement's transactions as the job stores them, read again from the file: each
// finished, with its section's currency when it names none, and its money written with the
// currency's decimals. *whole reports that a reading ran to its end, so the statement is
// finished.
func stored(read *statement.Stream) (txs Transactions, whole *bool) {
	whole = new(bool)
	return Transactions{Count: read.Count, Each: func(yield func(*statement.Transaction) bool) error {
		secs := newSectionCurrencies(read.Statement.Sections, read.Count)
		i := 0
		stopped := false
		err := read.Finished(func(t *statement.Transaction) bool {
			if t.Currency == "" {
				t.Currency = secs.of(i)
			}
			i++
			t.Amount = statement.WithCurrencyDecimals(t.Amount, t.Currency)
			if t.Balance != nil {
				b := statement.WithCurrencyDecimals(*t.Balance, t.Currency)
				t.Balance = &b
			}
			stopped = !yield(t)
			return !stopped
		})
		*whole = err == nil && !stopped
		return err
	}}, whole
}

// sectionCurrencies finds the currency of the transaction at an index: that of the first
// section holding it that names one, among sections whose range lies within the transactions.
// Asked in order of the index, it walks sections that follow each other once.
type sectionCurrencies struct {
	secs    []statement.Section
	count   int
	ordered bool
	k       int
}

func newSectionCurrencies(secs []statement.Section, count int) *sectionCurrencies {
	c := &sectionCurrencies{secs: secs, count: count, ordered: true}
	end := 0
	for _, sec := range secs {
		if sec.First < end || sec.Count < 0 {
			c.ordered = false
		}
		end = sec.First + sec.Count
	}
	return c
}

func (c *sectionCurrencies) of(i int) string {
	holds := func(sec statement.Section) bool {
		return sec.Currency != "" && sec.First >= 0 && sec.Count >= 0 && sec.First+sec.Count <= c.count &&
			i >= sec.First && i < sec.First+sec.Count
	}
	if c.ordered {
		for c.k < len(c.secs) && i >= c.secs[c.k].First+c.secs[c.k].Count {
			c.k++
		}
		if c.k < len(c.secs) && holds(c.secs[c.k]) {
			return c.secs[c.k].Currency
		}
		return ""
	}
	for _, sec := range c.secs {
		if holds(sec) {
			return sec.Currency
		}
	}
	return ""
}
