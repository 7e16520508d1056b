package attempt_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/attempt"
)

type code string

type failure = attempt.Failure[code]

var (
	errGone = errors.New("no such job")
	errDown = errors.New("database unreachable")
)

// book records what the runner asked of the store.
type book struct {
	claimErr, storeErr, failErr error
	failed                      []string
	failCtxAlive                bool
	stored                      bool
	// told is what the runner told its Observer, a line each.
	told []string
}

func (b *book) Finished(kind, format, outcome, code string, _ time.Duration) {
	b.told = append(b.told, strings.Join(strings.Fields(kind+" "+format+" "+outcome+" "+code), " "))
}
func (b *book) Retried(kind string)       { b.told = append(b.told, kind+" retried") }
func (b *book) QuotaRefused(scope string) { b.told = append(b.told, scope+" quota") }

func (b *book) Claim(context.Context, uuid.UUID, int) (string, error) { return "the job", b.claimErr }

func (b *book) Fail(ctx context.Context, _ uuid.UUID, _ int, f failure, _ time.Time) error {
	b.failed = append(b.failed, string(f.Code))
	b.failCtxAlive = ctx.Err() == nil
	return b.failErr
}

func (b *book) runner() *attempt.Runner[string, code] {
	return &attempt.Runner[string, code]{Kind: "test", Store: b, Logger: slog.New(slog.DiscardHandler), Now: time.Now,
		NotFound: errGone, TimedOut: failure{Code: "timeout"}, Abandoned: failure{Code: "abandoned"}, Observer: b}
}

func TestRunner(t *testing.T) {
	t.Parallel()
	done := func(b *book) func(context.Context, string) (attempt.Outcome[code], error) {
		return func(_ context.Context, job string) (attempt.Outcome[code], error) {
			if job != "the job" {
				return attempt.Outcome[code]{}, errors.New("the work was not given the claimed job")
			}
			return attempt.Outcome[code]{Format: "csv", Store: func(context.Context) error { b.stored = true; return b.storeErr }}, nil
		}
	}
	doubtful := func(b *book) func(context.Context, string) (attempt.Outcome[code], error) {
		return func(context.Context, string) (attempt.Outcome[code], error) {
			return attempt.Outcome[code]{Format: "pdf", Review: func() bool { return true }, Store: func(context.Context) error { b.stored = true; return nil }}, nil
		}
	}
	badFile := func(*book) func(context.Context, string) (attempt.Outcome[code], error) {
		return func(context.Context, string) (attempt.Outcome[code], error) {
			return attempt.Outcome[code]{Failure: &failure{Code: "file_corrupt"}, Format: "pdf"}, nil
		}
	}
	unreadable := func(*book) func(context.Context, string) (attempt.Outcome[code], error) {
		return func(context.Context, string) (attempt.Outcome[code], error) { return attempt.Outcome[code]{}, errDown }
	}
	tests := []struct {
		name   string
		book   book
		final  bool
		ctx    func() (context.Context, context.CancelFunc)
		work   func(*book) func(context.Context, string) (attempt.Outcome[code], error)
		err    error
		failed []string
		stored bool
		told   []string
	}{
		{name: "a finished job, or one a newer attempt holds, is left alone", book: book{claimErr: attempt.ErrStale}, work: done},
		{name: "an unknown job is left alone", book: book{claimErr: errGone}, work: done, final: true},
		{name: "a claim that fails is retried", book: book{claimErr: errDown}, work: done, err: errDown, told: []string{"test retried"}},
		{name: "the final claim that fails fails the job as abandoned", book: book{claimErr: errDown}, final: true, work: done,
			err: errDown, failed: []string{"abandoned"}, told: []string{"test retried", "test failed abandoned"}},
		{name: "results are stored", work: done, stored: true, told: []string{"test csv completed"}},
		{name: "results to review are stored", work: doubtful, stored: true, told: []string{"test pdf review"}},
		{name: "results of an attempt that lost the job are dropped", book: book{storeErr: attempt.ErrStale}, work: done, stored: true},
		{name: "results that cannot be stored are retried", book: book{storeErr: errDown}, work: done, stored: true, err: errDown,
			told: []string{"test retried"}},
		{name: "a failure of the files fails the job for good", work: badFile, failed: []string{"file_corrupt"},
			told: []string{"test pdf failed file_corrupt"}},
		{name: "a failure of the files is written after a cancel", work: badFile, failed: []string{"file_corrupt"},
			told: []string{"test pdf failed file_corrupt"},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, func() {}
			}},
		{name: "work that ran past its deadline fails the job as timed out", work: done, failed: []string{"timeout"},
			told: []string{"test csv failed timeout"},
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithDeadline(context.Background(), time.Unix(0, 0))
			}},
		{name: "work cancelled by a shutdown is handed back to the queue", work: done, err: context.Canceled, final: true,
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, func() {}
			}},
		{name: "input that cannot be read is retried", work: unreadable, err: errDown, told: []string{"test retried"}},
		{name: "input that the final attempt cannot read fails the job as abandoned", work: unreadable, final: true,
			err: errDown, failed: []string{"abandoned"}, told: []string{"test retried", "test failed abandoned"}},
		{name: "a failure that another attempt wrote first is not an error", book: book{failErr: attempt.ErrStale}, work: badFile,
			failed: []string{"file_corrupt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			b := tc.book
			err := b.runner().Run(ctx, attempt.Attempt{JobID: uuid.New(), Number: 1, Final: tc.final}, tc.work(&b))
			if tc.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.err)
			}
			require.Equal(t, tc.failed, b.failed)
			require.Equal(t, tc.stored, b.stored)
			require.Equal(t, tc.told, b.told, "what the observer was told")
			if len(b.failed) > 0 {
				require.True(t, b.failCtxAlive, "a failure is written with a context that is not cancelled")
			}
		})
	}
}
