package parsejob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// Process works one attempt of a job: it claims the job for the attempt (making it
// processing), reads its file, parses it, and stores the transactions with the final status
// (completed, or review when the statement's checks found something) or the failure, in a way
// that is safe to repeat. A job that is finished, or that a newer attempt claimed, is left
// alone and Process returns nil. A file that cannot be parsed fails the job for good and
// returns nil. Any other error (the database is unreachable, say) is returned so the queue
// retries the attempt later; on the final attempt the job is failed first, so it never stays
// processing.
func (s *Service) Process(ctx context.Context, id uuid.UUID, attempt int, final bool) error {
	log := s.logger().With(slog.String("job_id", id.String()), slog.Int("attempt", attempt))
	if _, err := s.Store.Claim(ctx, id, attempt); err != nil {
		if errors.Is(err, ErrStale) || errors.Is(err, ErrNotFound) {
			log.InfoContext(ctx, "parse attempt skipped: the job is finished or a newer attempt holds it")
			return nil
		}
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("claim job: %w", err))
	}
	data, err := s.Store.ReadFile(ctx, id)
	if err != nil {
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("read file: %w", err))
	}
	st, failure := s.parse(data)
	data = nil
	if failure == nil && ctx.Err() != nil {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The process is shutting down: the queue runs the attempt again elsewhere.
			return ctx.Err()
		}
		// The attempt ran past its time limit: the same file would again.
		failure = &Failure{Code: CodeTimeout, Message: "parsing the file took longer than allowed"}
	}
	if failure != nil {
		log.InfoContext(ctx, "parse job failed", slog.String("code", string(failure.Code)), slog.String("reason", failure.Message))
		err = s.Store.Fail(context.WithoutCancel(ctx), id, attempt, *failure, s.now())
	} else {
		out := outcome(st)
		now := s.now()
		out.CompletedAt = &now
		err = s.Store.Complete(ctx, id, attempt, out, st.Transactions)
		if err == nil {
			log.InfoContext(ctx, "parse job finished", slog.String("status", string(out.Status)),
				slog.Int("transactions", out.TransactionsCount), slog.Int("review_reasons", len(out.ReviewReasons)))
		}
	}
	if errors.Is(err, ErrStale) {
		log.WarnContext(ctx, "parse outcome dropped: a newer attempt holds the job")
		return nil
	}
	if err != nil {
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("store outcome: %w", err))
	}
	return nil
}

// MessageAbandoned is the failure message of a job whose attempts all ended in errors of the
// service (or whose work the queue gave up on): the file itself may be fine.
const MessageAbandoned = "the job could not be processed; upload the file again"

// retryOrFail returns err for the queue to retry, after failing the job on the final attempt.
func (s *Service) retryOrFail(ctx context.Context, log *slog.Logger, id uuid.UUID, attempt int, final bool, err error) error {
	log.ErrorContext(ctx, "parse attempt failed", slog.String("error", err.Error()), slog.Bool("final", final))
	if final {
		f := Failure{Code: CodeInternalError, Message: MessageAbandoned}
		if ferr := s.Store.Fail(context.WithoutCancel(ctx), id, attempt, f, s.now()); ferr != nil && !errors.Is(ferr, ErrStale) {
			log.ErrorContext(ctx, "fail job", slog.String("error", ferr.Error()))
		}
	}
	return err
}

// parse reads the statement. It is deterministic: the same file gives the same statement or
// the same failure.
func (s *Service) parse(data []byte) (st *statement.Statement, failure *Failure) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 4<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logger().Error("panic while parsing", slog.Any("panic", r), slog.String("stack", string(buf)))
			st, failure = nil, &Failure{Code: CodeInternalError, Message: statement.ErrInternal.Error()}
		}
	}()
	st, err := engine.Parse(data, s.Limits)
	if err != nil {
		if errors.Is(err, statement.ErrInternal) {
			s.logger().Error("parser failure", slog.String("error", err.Error()))
		}
		return nil, failureOf(err)
	}
	return st, nil
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

// outcome is what a parsed statement tells about the job: its fields, its status (review when
// the checks left reasons), and its transactions made ready to store: each with a currency
// where its section or the statement has one, and money written with the currency's decimals.
func outcome(st *statement.Statement) Job {
	for _, sec := range st.Sections {
		if sec.Currency == "" || sec.First < 0 || sec.First+sec.Count > len(st.Transactions) {
			continue
		}
		for i := sec.First; i < sec.First+sec.Count; i++ {
			if st.Transactions[i].Currency == "" {
				st.Transactions[i].Currency = sec.Currency
			}
		}
	}
	for i := range st.Transactions {
		t := &st.Transactions[i]
		t.Amount = statement.WithCurrencyDecimals(t.Amount, t.Currency)
		if t.Balance != nil {
			b := statement.WithCurrencyDecimals(*t.Balance, t.Currency)
			t.Balance = &b
		}
	}
	out := Job{Status: StatusCompleted, Format: st.Format, BankName: st.BankName, Account: st.Account, Currency: st.Currency,
		PeriodStart: st.PeriodStart, PeriodEnd: st.PeriodEnd, TransactionsCount: len(st.Transactions), ReviewReasons: st.Review}
	if st.OpeningBalance != nil {
		b := statement.WithCurrencyDecimals(*st.OpeningBalance, st.Currency)
		out.OpeningBalance = &b
	}
	if st.ClosingBalance != nil {
		b := statement.WithCurrencyDecimals(*st.ClosingBalance, st.Currency)
		out.ClosingBalance = &b
	}
	if len(st.Review) > 0 {
		out.Status = StatusReview
	}
	return out
}
