package queue_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// waitFor is the deadline for something the queue does in the background: a limit for a
// failure, not a speed requirement.
const waitFor = 10 * time.Second

// call is one call of a test Processor.
type call struct {
	id      uuid.UUID
	attempt int
	final   bool
}

func TestWorkersWorkQueuedJobs(t *testing.T) {
	t.Parallel()
	errTransient := errors.New("database unreachable")
	enqueue := map[string]func(*queue.Enqueuer, context.Context, *sql.Tx, uuid.UUID) (int64, error){
		queue.KindReconcile: (*queue.Enqueuer).EnqueueReconcile,
		queue.KindParse:     (*queue.Enqueuer).EnqueueParse,
	}
	tests := []struct {
		name string
		// attemptsUsed is set on the queued work before the workers start, as if earlier
		// attempts had run.
		attemptsUsed int
		fail         func(call) error
		want         []call // without the id
	}{
		{"a new job is worked once, as attempt 1 of several", 0, nil,
			[]call{{attempt: 1}}},
		{"an attempt that fails is retried as attempt 2", 0,
			func(c call) error {
				if c.attempt == 1 {
					return errTransient
				}
				return nil
			},
			[]call{{attempt: 1}, {attempt: 2}}},
		{"the last allowed attempt is told that it is final", queue.MaxAttempts - 1, nil,
			[]call{{attempt: queue.MaxAttempts, final: true}}},
	}
	for _, kind := range []string{queue.KindReconcile, queue.KindParse} {
		for _, tc := range tests {
			t.Run(kind+": "+tc.name, func(t *testing.T) {
				t.Parallel()
				db := pgtest.New(t)
				calls := map[string]chan call{queue.KindReconcile: make(chan call, 100), queue.KindParse: make(chan call, 100)}
				recorder := func(calls chan<- call) queue.Processor {
					return func(_ context.Context, id uuid.UUID, attempt int, final bool) error {
						c := call{id: id, attempt: attempt, final: final}
						calls <- c
						if tc.fail != nil {
							return tc.fail(c)
						}
						return nil
					}
				}
				workers, err := queue.NewWorkers(db.DB, queue.Config{
					Workers:      2,
					PollInterval: 10 * time.Millisecond,
					Logger:       slog.New(slog.DiscardHandler),
					Reconcile:    recorder(calls[queue.KindReconcile]),
					Parse:        recorder(calls[queue.KindParse]),
					Deliver:      func(context.Context, uuid.UUID) (time.Time, error) { return time.Time{}, nil },
					Sweep:        func(context.Context, time.Duration) error { return nil },
				})
				require.NoError(t, err)
				stop := func() {
					ctx, cancel := context.WithTimeout(context.Background(), waitFor)
					defer cancel()
					require.NoError(t, workers.Stop(ctx))
				}
				enqueuer, err := queue.NewEnqueuer(db.DB)
				require.NoError(t, err)

				id := uuid.New()
				tx, err := db.BeginTx(t.Context(), nil)
				require.NoError(t, err)
				queued, err := enqueue[kind](enqueuer, t.Context(), tx, id)
				require.NoError(t, err)
				require.NoError(t, tx.Commit())
				if tc.attemptsUsed > 0 {
					_, err := db.ExecContext(t.Context(), `UPDATE river_job SET attempt = $1 WHERE id = $2`, tc.attemptsUsed, queued)
					require.NoError(t, err)
				}

				require.NoError(t, workers.Start(t.Context()))
				t.Cleanup(stop)
				for _, want := range tc.want {
					want.id = id
					select {
					case c := <-calls[kind]:
						require.Equal(t, want, c)
					case <-time.After(waitFor):
						t.Fatalf("the processor was not called within %s", waitFor)
					}
				}
				require.Eventually(t, func() bool {
					var state string
					require.NoError(t, db.GetContext(t.Context(), &state, `SELECT state FROM river_job WHERE id = $1`, queued))
					return state == "completed"
				}, waitFor, 10*time.Millisecond, "the queued work is completed once the processor returns nil")
				stop()
				for k, c := range calls {
					select {
					case got := <-c:
						t.Fatalf("an extra %s call: %+v", k, got)
					default:
					}
				}
			})
		}
	}
}

func TestEnqueuedWorkIsRolledBackWithItsTransaction(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	enqueuer, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	tx, err := db.BeginTx(t.Context(), nil)
	require.NoError(t, err)
	_, err = enqueuer.EnqueueParse(t.Context(), tx, uuid.New())
	require.NoError(t, err)
	require.NoError(t, enqueuer.EnqueueDeliveries(t.Context(), tx, []uuid.UUID{uuid.New(), uuid.New()}))
	var n int
	require.NoError(t, tx.QueryRowContext(t.Context(), `SELECT count(*) FROM river_job`).Scan(&n))
	require.Equal(t, 3, n, "the work is queued in the transaction")
	require.NoError(t, tx.Rollback())
	require.NoError(t, db.GetContext(t.Context(), &n, `SELECT count(*) FROM river_job`))
	require.Zero(t, n, "and gone with it")
}

func TestNewWorkersNeedsEveryPart(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, uuid.UUID, int, bool) error { return nil }
	deliver := func(context.Context, uuid.UUID) (time.Time, error) { return time.Time{}, nil }
	sweep := func(context.Context, time.Duration) error { return nil }
	for _, tc := range []struct {
		name string
		cfg  queue.Config
	}{
		{"no workers", queue.Config{Reconcile: noop, Parse: noop, Deliver: deliver, Sweep: sweep}},
		{"no reconcile processor", queue.Config{Workers: 1, Parse: noop, Deliver: deliver, Sweep: sweep}},
		{"no parse processor", queue.Config{Workers: 1, Reconcile: noop, Deliver: deliver, Sweep: sweep}},
		{"no webhook deliverer", queue.Config{Workers: 1, Reconcile: noop, Parse: noop, Sweep: sweep}},
		{"no sweeper", queue.Config{Workers: 1, Reconcile: noop, Parse: noop, Deliver: deliver}},
	} {
		_, err := queue.NewWorkers(nil, tc.cfg)
		require.Error(t, err, tc.name)
	}
}

// TestDepths: the work due and not taken is counted by queue, with how long the oldest has been
// due; work scheduled for later does not wait yet, and a queue without work reads 0.
func TestDepths(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	enqueuer, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	tx, err := db.BeginTx(t.Context(), nil)
	require.NoError(t, err)
	for range 2 {
		_, err = enqueuer.EnqueueParse(t.Context(), tx, uuid.New())
		require.NoError(t, err)
	}
	require.NoError(t, enqueuer.EnqueueDeliveries(t.Context(), tx, []uuid.UUID{uuid.New()}))
	require.NoError(t, tx.Commit())
	// One parse job has waited a minute; the delivery is a retry due in an hour.
	_, err = db.Exec(`UPDATE river_job SET scheduled_at = now() - interval '1 minute' WHERE id = (SELECT min(id) FROM river_job WHERE queue = 'parse')`)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE river_job SET scheduled_at = now() + interval '1 hour' WHERE queue = 'webhooks'`)
	require.NoError(t, err)

	depths, err := queue.Depths(t.Context(), db.DB)
	require.NoError(t, err)
	byQueue := map[string]queue.Depth{}
	for _, d := range depths {
		byQueue[d.Queue] = d
	}
	require.Len(t, byQueue, 3)
	require.Equal(t, 2, byQueue["parse"].Waiting)
	require.InDelta(t, time.Minute.Seconds(), byQueue["parse"].Oldest.Seconds(), 5)
	require.Equal(t, queue.Depth{Queue: "reconcile"}, byQueue["reconcile"])
	require.Equal(t, queue.Depth{Queue: "webhooks"}, byQueue["webhooks"], "a retry due later does not wait yet")
}
