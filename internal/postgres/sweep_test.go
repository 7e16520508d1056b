package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/reconjob"
)

// waitFor is the deadline for something the queue does in the background: a limit for a
// failure, not a speed requirement.
const waitFor = 10 * time.Second

// call is one call of a test Processor.
type call struct {
	id      uuid.UUID
	attempt int
	final   bool
}

// queueBundle is a job store over a fresh database with queue workers, not started yet, whose
// sweep is the stores'.
type queueBundle struct {
	*jobBundle
	enqueuer *queue.Enqueuer
	queue    *queue.Workers
	// calls and parseCalls record the calls of the reconcile and of the parse processor.
	calls, parseCalls chan call
}

// setupQueue makes a queue with two workers per queue whose processors record every call and
// then return what fail says for it (nil when fail is nil). The queue is stopped when the test
// ends, before its database is dropped.
func setupQueue(t *testing.T, fail func(call) error) *queueBundle {
	t.Helper()
	b := setupJobStore(t)
	recorder := func(calls chan<- call) queue.Processor {
		return func(_ context.Context, id uuid.UUID, attempt int, final bool) error {
			c := call{id: id, attempt: attempt, final: final}
			calls <- c
			if fail != nil {
				return fail(c)
			}
			return nil
		}
	}
	calls, parseCalls := make(chan call, 100), make(chan call, 100)
	enqueuer, err := queue.NewEnqueuer(b.db.DB)
	require.NoError(t, err)
	sweeper := &postgres.Sweeper{DB: b.db, Queue: enqueuer, Recon: reconjob.Abandoned, Parse: parsejob.Abandoned,
		DeliveryKind: queue.KindDelivery}
	q, err := queue.NewWorkers(b.db.DB, queue.Config{
		Workers:      2,
		Sweep:        sweeper.Sweep,
		PollInterval: 10 * time.Millisecond,
		Logger:       slog.New(slog.DiscardHandler),
		Reconcile:    recorder(calls),
		Parse:        recorder(parseCalls),
		Deliver:      func(context.Context, uuid.UUID) (time.Time, error) { return time.Time{}, nil },
	})
	require.NoError(t, err)
	b.store = postgres.NewJobStore(b.db, enqueuer)
	qb := &queueBundle{jobBundle: b, enqueuer: enqueuer, queue: q, calls: calls, parseCalls: parseCalls}
	t.Cleanup(func() { qb.stop(t) })
	return qb
}

func (b *queueBundle) start(t *testing.T) {
	t.Helper()
	require.NoError(t, b.queue.Start(t.Context()))
}

// stop stops the queue; stopping twice is harmless.
func (b *queueBundle) stop(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	require.NoError(t, b.queue.Stop(ctx))
}

func TestQueueSweepFailsTheJobsTheQueueGaveUpOn(t *testing.T) {
	t.Parallel()
	b := setupQueue(t, nil)
	ctx := t.Context()
	tests := []struct {
		name string
		// queue sets the job's river_job row: one of the queue* statements.
		queue string
		// finish, when set, finishes the job before the sweep.
		finish     func(id uuid.UUID) error
		wantStatus reconjob.Status
		wantCode   reconjob.ErrorCode
	}{
		{"a job whose queued work was discarded fails", queueDiscarded, nil,
			reconjob.StatusFailed, reconjob.CodeServerError},
		{"a job whose queued work was cancelled fails", queueCancelled, nil,
			reconjob.StatusFailed, reconjob.CodeServerError},
		{"a job whose queued work completed long ago without finishing it fails", queueCompletedLongAgo, nil,
			reconjob.StatusFailed, reconjob.CodeServerError},
		{"a job whose queued work completed a moment ago is left to its newer attempt", queueCompletedJustNow, nil,
			reconjob.StatusProcessing, ""},
		{"a completed job whose queued work was discarded stays completed", queueDiscarded,
			func(id uuid.UUID) error { return b.store.Complete(ctx, id, 0, []byte(`{}`), b.now) },
			reconjob.StatusCompleted, ""},
		{"a job that failed for its files keeps its own failure", queueDiscarded,
			func(id uuid.UUID) error {
				return b.store.Fail(ctx, id, 0, reconjob.Failure{Code: reconjob.CodeFileInvalid, Message: "bank: the file is empty"}, b.now)
			},
			reconjob.StatusFailed, reconjob.CodeFileInvalid},
	}
	ids := make([]uuid.UUID, len(tests))
	for i, tc := range tests {
		j := b.create(t)
		ids[i] = j.ID
		b.setQueueState(t, "recon_jobs", j.ID, tc.queue)
		if tc.finish != nil {
			require.NoError(t, tc.finish(j.ID), tc.name)
		}
	}

	b.sweep(t)

	for i, tc := range tests {
		got, err := b.store.Get(ctx, b.account.ID, account.Production, ids[i])
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantStatus, got.Status, tc.name)
		if tc.wantCode == "" {
			require.Nil(t, got.Error, tc.name)
			continue
		}
		require.NotNil(t, got.Error, tc.name)
		require.Equal(t, tc.wantCode, got.Error.Code, tc.name)
		if tc.wantCode == reconjob.CodeServerError {
			require.Equal(t, "the job could not be processed; create it again", got.Error.Message, tc.name)
			require.NotNil(t, got.CompletedAt, tc.name)
		}
	}
}

// Statements that put a job's queued work in a state the sweep looks at, by its river_job id.
const (
	queueDiscarded        = `UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE id = $1`
	queueCancelled        = `UPDATE river_job SET state = 'cancelled', finalized_at = now() WHERE id = $1`
	queueCompletedLongAgo = `UPDATE river_job SET state = 'completed', finalized_at = now() - interval '1 hour' WHERE id = $1`
	queueCompletedJustNow = `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`
)

// setQueueState runs stmt, one of the queue* statements, on the river_job row of the job id
// of table (recon_jobs or parse_jobs).
func (b *queueBundle) setQueueState(t *testing.T, table string, id uuid.UUID, stmt string) {
	t.Helper()
	var queued int64
	require.NoError(t, b.db.GetContext(t.Context(), &queued, `SELECT queue_job_id FROM `+table+` WHERE id = $1`, id))
	res, err := b.db.ExecContext(t.Context(), stmt, queued)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "the job's queued work is found")
}

// sweep starts the queue, waits for the sweep of abandoned jobs (the leader sweeps when the
// queue starts, then every few seconds), and stops the queue.
func (b *queueBundle) sweep(t *testing.T) {
	t.Helper()
	b.start(t)
	require.Eventually(t, func() bool {
		return b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'sweep_abandoned_jobs' AND state = 'completed'`) > 0
	}, waitFor, 10*time.Millisecond, "the sweep ran")
	b.stop(t)
}

// TestQueueRescuesStuckWorkAtTheHorizon (J6): work left running by a worker that vanished is
// rescued once its attempt began more than RescueAfter ago, and not before: run again while it
// has attempts left, discarded (and its job failed by the sweep) when it has none. A rescue
// larger than the rescuer's batch (10,000 rows) is done whole.
func TestQueueRescuesStuckWorkAtTheHorizon(t *testing.T) {
	t.Parallel()
	b := setupQueue(t, nil)
	ctx := t.Context()
	const horizon = `now() - make_interval(secs => $2)`
	stuck := func(attempt int, past string) string {
		return fmt.Sprintf(`UPDATE river_job SET state = 'running', attempt = %d, attempted_at = %s - interval '%s',
       attempted_by = '{vanished}' WHERE id = $1`, attempt, horizon, past)
	}
	tests := []struct {
		name  string
		stuck string
		// wantState is the work's state once the queue is done with it; wantAttempt is the
		// attempt the processor is called with, 0 for none.
		wantState   string
		wantAttempt int
		wantStatus  reconjob.Status
	}{
		{"an hour past the horizon: run again", stuck(1, "1 hour"), "completed", 2, reconjob.StatusProcessing},
		{"a minute past the horizon: run again", stuck(1, "1 minute"), "completed", 2, reconjob.StatusProcessing},
		{"a minute short of the horizon: left running", stuck(1, "-1 minute"), "running", 0, reconjob.StatusProcessing},
		{"past the horizon at its last attempt: discarded, the job failed", stuck(queue.MaxAttempts, "1 hour"), "discarded", 0, reconjob.StatusFailed},
	}
	ids := make([]uuid.UUID, len(tests))
	for i, tc := range tests {
		j := b.create(t)
		ids[i] = j.ID
		var queued int64
		require.NoError(t, b.db.GetContext(ctx, &queued, `SELECT queue_job_id FROM recon_jobs WHERE id = $1`, j.ID))
		_, err := b.db.ExecContext(ctx, tc.stuck, queued, queue.DefaultRescueAfter.Seconds())
		require.NoError(t, err, tc.name)
	}
	// One more row than the rescuer's batch, at their last attempt.
	const batch = 10_000
	_, err := b.db.ExecContext(ctx, `
INSERT INTO river_job (args, attempt, attempted_at, attempted_by, kind, max_attempts, queue, state, priority, scheduled_at)
SELECT jsonb_build_object('job_id', gen_random_uuid()), $1, now() - interval '1 day', '{vanished}', 'reconcile', $1,
       'reconcile', 'running', 1, now() - interval '1 day'
  FROM generate_series(1, $2)`, queue.MaxAttempts, batch+1)
	require.NoError(t, err)

	b.start(t)
	want := map[uuid.UUID]int{}
	for i, tc := range tests {
		if tc.wantAttempt != 0 {
			want[ids[i]] = tc.wantAttempt
		}
	}
	// The rescuer runs when the queue starts; the rescued work is due again a second or so later
	// and made available by River's scheduler, which runs every 5 s.
	got := map[uuid.UUID]int{}
	for timeout := time.After(6 * waitFor); len(got) < len(want); {
		select {
		case c := <-b.calls:
			got[c.id] = c.attempt
		case <-timeout:
			t.Fatalf("the rescued work ran %v, want %v", got, want)
		}
	}
	require.Equal(t, want, got, "the rescued work with attempts left runs again, as its next attempt")
	state := func(id uuid.UUID) string {
		var s string
		require.NoError(t, b.db.GetContext(ctx, &s, `SELECT r.state FROM river_job r JOIN recon_jobs j ON j.queue_job_id = r.id WHERE j.id = $1`, id))
		return s
	}
	require.Eventually(t, func() bool {
		for i, tc := range tests {
			if state(ids[i]) != tc.wantState {
				return false
			}
			if j, err := b.store.Get(ctx, b.account.ID, account.Production, ids[i]); err != nil || j.Status != tc.wantStatus {
				return false
			}
		}
		return b.count(t, `SELECT count(*) FROM river_job WHERE attempted_by = '{vanished}' AND state = 'discarded'`) == batch+2
	}, 6*waitFor, 50*time.Millisecond, "every row ends as its case says, and every row of the batch and one is discarded")
	b.stop(t)
	for i, tc := range tests {
		require.Equal(t, tc.wantState, state(ids[i]), tc.name)
	}
	select {
	case c := <-b.calls:
		t.Fatalf("an extra call: %+v", c)
	default:
	}
}
