package reconjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/expected"
	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// Process works one attempt of a job by the rules of attempt.Runner: it claims the job, reads
// both files, matches, and stores the results or the failure, in a way that is safe to repeat.
// A problem with the files fails the job for good and returns nil; an error of the service is
// returned so the queue retries the attempt, and the final attempt fails the job with
// SERVER_ERROR first, so it never stays processing.
func (s *Service) Process(ctx context.Context, id uuid.UUID, n int, final bool) error {
	r := &attempt.Runner[Job, ErrorCode]{Kind: "reconciliation", Store: s.Store, Logger: s.logger(), Now: s.now, NotFound: ErrNotFound,
		TimedOut: timedOut, Abandoned: Abandoned, Observer: s.Observer}
	return r.Run(ctx, attempt.Attempt{JobID: id, Number: n, Final: final}, func(ctx context.Context, _ Job) (attempt.Outcome[ErrorCode], error) {
		bank, err := s.Store.ReadFile(ctx, id, "bank")
		if err != nil {
			return attempt.Outcome[ErrorCode]{}, fmt.Errorf("read bank file: %w", err)
		}
		exp, err := s.Store.ReadFile(ctx, id, "expected")
		if err != nil {
			return attempt.Outcome[ErrorCode]{}, fmt.Errorf("read expected file: %w", err)
		}
		format, _ := engine.Detect(bank)
		res, failure := s.reconcile(ctx, bank, exp)
		if ctx.Err() != nil {
			// The attempt ended while OCR read the bank statement: the runner says why.
			return attempt.Outcome[ErrorCode]{Format: string(format)}, nil
		}
		if failure != nil {
			return attempt.Outcome[ErrorCode]{Failure: failure, Format: string(format)}, nil
		}
		bank, exp = nil, nil // let the files go before the results are encoded
		body, err := json.Marshal(res)
		if err != nil {
			return attempt.Outcome[ErrorCode]{}, fmt.Errorf("encode results: %w", err)
		}
		return attempt.Outcome[ErrorCode]{Format: string(format), Store: func(ctx context.Context) error {
			if err := s.Store.Complete(ctx, id, n, body, s.now()); err != nil {
				return err
			}
			s.logger().InfoContext(ctx, "reconciliation job completed", slog.String("job_id", id.String()), slog.Int("attempt", n),
				slog.Int("matched", res.Summary.MatchedCount), slog.Int("partial", res.Summary.PartialCount),
				slog.Int("unmatched", res.Summary.UnmatchedCount))
			return nil
		}}, nil
	})
}

// The failures the attempt runner writes for the service, not for the files.
var (
	// Abandoned is the failure of a job whose attempts all ended in errors of the service, or whose
	// work the queue gave up on: the files themselves may be fine.
	Abandoned = Failure{Code: CodeServerError, Message: "the job could not be processed; create it again"}
	// timedOut is the failure of an attempt that ran past its deadline.
	timedOut = Failure{Code: CodeFileTooLarge, Message: "processing the files took longer than allowed"}
)

// reconcile reads both files and matches them. It is deterministic: the same files give the
// same results or the same failure.
func (s *Service) reconcile(ctx context.Context, bankData, expectedData []byte) (res Results, failure *Failure) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 4<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logger().Error("panic while reconciling", slog.Any("panic", r), slog.String("stack", string(buf)))
			failure = &Failure{Code: CodeServerError, Message: "the job could not be processed"}
		}
	}()
	st, err := engine.Parse(bankData, s.Limits.WithContext(ctx))
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
