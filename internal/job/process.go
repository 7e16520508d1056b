package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/expected"
	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// Process works one attempt of a job: it claims the job for the attempt, reads both files,
// matches, and stores the results or the failure, in a way that is safe to repeat. A job that
// is finished, or that a newer attempt claimed, is left alone and Process returns nil. A
// problem with the files fails the job for good and returns nil. Any other error (the database
// is unreachable, say) is returned so the queue retries the attempt later; on the final
// attempt the job is failed with SERVER_ERROR first, so it never stays processing.
func (s *Service) Process(ctx context.Context, id uuid.UUID, attempt int, final bool) (err error) {
	log := s.logger().With(slog.String("job_id", id.String()), slog.Int("attempt", attempt))
	if _, err := s.Store.Claim(ctx, id, attempt); err != nil {
		if errors.Is(err, ErrStale) || errors.Is(err, ErrNotFound) {
			log.InfoContext(ctx, "job attempt skipped: the job is finished or a newer attempt holds it")
			return nil
		}
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("claim job: %w", err))
	}
	bank, err := s.Store.ReadFile(ctx, id, "bank")
	if err != nil {
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("read bank file: %w", err))
	}
	exp, err := s.Store.ReadFile(ctx, id, "expected")
	if err != nil {
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("read expected file: %w", err))
	}
	res, failure := s.reconcile(bank, exp)
	bank, exp = nil, nil // let the files go before the results are encoded
	now := s.now()
	if failure != nil {
		log.InfoContext(ctx, "job failed", slog.String("code", string(failure.Code)), slog.String("reason", failure.Message))
		err = s.Store.Fail(ctx, id, attempt, *failure, now)
	} else {
		var body []byte
		body, err = json.Marshal(res)
		if err != nil {
			return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("encode results: %w", err))
		}
		err = s.Store.Complete(ctx, id, attempt, body, now)
		if err == nil {
			log.InfoContext(ctx, "job completed", slog.Int("matched", res.Summary.MatchedCount),
				slog.Int("partial", res.Summary.PartialCount), slog.Int("unmatched", res.Summary.UnmatchedCount))
		}
	}
	if errors.Is(err, ErrStale) {
		log.WarnContext(ctx, "job outcome dropped: a newer attempt holds the job")
		return nil
	}
	if err != nil {
		return s.retryOrFail(ctx, log, id, attempt, final, fmt.Errorf("store outcome: %w", err))
	}
	return nil
}

// MessageAbandoned is the failure message of a job whose attempts all ended in errors of the
// service (or whose work the queue gave up on): the files themselves may be fine.
const MessageAbandoned = "the job could not be processed; create it again"

// retryOrFail returns err for the queue to retry, after failing the job on the final attempt.
func (s *Service) retryOrFail(ctx context.Context, log *slog.Logger, id uuid.UUID, attempt int, final bool, err error) error {
	log.ErrorContext(ctx, "job attempt failed", slog.String("error", err.Error()), slog.Bool("final", final))
	if final {
		f := Failure{Code: CodeServerError, Message: MessageAbandoned}
		if ferr := s.Store.Fail(context.WithoutCancel(ctx), id, attempt, f, s.now()); ferr != nil && !errors.Is(ferr, ErrStale) {
			log.ErrorContext(ctx, "fail job", slog.String("error", ferr.Error()))
		}
	}
	return err
}

// reconcile reads both files and matches them. It is deterministic: the same files give the
// same results or the same failure.
func (s *Service) reconcile(bankData, expectedData []byte) (res Results, failure *Failure) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 4<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logger().Error("panic while reconciling", slog.Any("panic", r), slog.String("stack", string(buf)))
			failure = &Failure{Code: CodeServerError, Message: "the job could not be processed"}
		}
	}()
	st, err := engine.Parse(bankData, s.Limits)
	if err != nil {
		return Results{}, bankFailure(err)
	}
	exp, err := expected.Read(expectedData, s.Limits)
	if err != nil {
		code := CodeFileInvalid
		if errors.Is(err, expected.ErrTooLarge) {
			code = CodeFileTooLarge
		}
		return Results{}, &Failure{Code: code, Message: "expected: " + err.Error()}
	}
	bank := bankEntries(st)
	return buildResults(exp, bank, match.Reconcile(exp, bank)), nil
}

// bankFailure says why the bank statement could not be read.
func bankFailure(err error) *Failure {
	switch {
	case errors.Is(err, statement.ErrInternal):
		return &Failure{Code: CodeServerError, Message: "bank: " + statement.ErrInternal.Error()}
	case errors.Is(err, statement.ErrTooManyRows), errors.Is(err, statement.ErrResourceLimit):
		return &Failure{Code: CodeFileTooLarge, Message: "bank: " + err.Error()}
	default:
		return &Failure{Code: CodeFileInvalid, Message: "bank: " + err.Error()}
	}
}
