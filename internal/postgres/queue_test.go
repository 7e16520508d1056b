package postgres_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/job"
	"github.com/statementmatch/service/internal/postgres"
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

// queueBundle is a job store over a fresh database whose queue has workers, not started yet.
type queueBundle struct {
	*jobBundle
	queue *postgres.Queue
	calls chan call
}

// setupQueue makes a queue with two workers whose processor records every call and then
// returns what fail says for it (nil when fail is nil). The queue is stopped when the test
// ends, before its database is dropped.
func setupQueue(t *testing.T, fail func(call) error) *queueBundle {
	t.Helper()
	b := setupJobStore(t)
	calls := make(chan call, 100)
	q, err := postgres.NewQueue(b.db, postgres.QueueConfig{
		Workers:      2,
		PollInterval: 10 * time.Millisecond,
		Logger:       slog.New(slog.DiscardHandler),
		Reconcile: func(_ context.Context, id uuid.UUID, attempt int, final bool) error {
			c := call{id: id, attempt: attempt, final: final}
			calls <- c
			if fail != nil {
				return fail(c)
			}
			return nil
		},
	})
	require.NoError(t, err)
	b.store = postgres.NewJobStore(b.db, q)
	qb := &queueBundle{jobBundle: b, queue: q, calls: calls}
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

// next waits for the processor's next call.
func (b *queueBundle) next(t *testing.T) call {
	t.Helper()
	select {
	case c := <-b.calls:
		return c
	case <-time.After(waitFor):
		t.Fatalf("the processor was not called within %s", waitFor)
		return call{}
	}
}

// queueState is the state of the job's row in river_job.
func (b *queueBundle) queueState(t *testing.T, id uuid.UUID) string {
	t.Helper()
	var state string
	require.NoError(t, b.db.GetContext(t.Context(), &state, `SELECT r.state FROM river_job r JOIN recon_jobs j ON j.queue_job_id = r.id WHERE j.id = $1`, id))
	return state
}

func TestQueueWorksACreatedJob(t *testing.T) {
	t.Parallel()
	errTransient := errors.New("database unreachable")
	tests := []struct {
		name string
		// attemptsUsed is set on the queued work before the queue starts, as if earlier attempts
		// had run.
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
		{"the last allowed attempt is told that it is final", postgres.MaxAttempts - 1, nil,
			[]call{{attempt: postgres.MaxAttempts, final: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupQueue(t, tc.fail)
			j := b.create(t)
			if tc.attemptsUsed > 0 {
				_, err := b.db.ExecContext(t.Context(), `UPDATE river_job SET attempt = $1 WHERE kind = 'reconcile'`, tc.attemptsUsed)
				require.NoError(t, err)
			}
			b.start(t)
			for _, want := range tc.want {
				want.id = j.ID
				require.Equal(t, want, b.next(t))
			}
			require.Eventually(t, func() bool { return b.queueState(t, j.ID) == "completed" }, waitFor, 10*time.Millisecond,
				"the queued work is completed once the processor returns nil")
			b.stop(t)
			select {
			case c := <-b.calls:
				t.Fatalf("an extra call: %+v", c)
			default:
			}
		})
	}
}

func TestQueueSweepFailsTheJobsTheQueueGaveUpOn(t *testing.T) {
	t.Parallel()
	b := setupQueue(t, nil)
	ctx := t.Context()
	tests := []struct {
		name string
		// queue sets the job's river_job row, by its id ($1).
		queue string
		// finish, when set, finishes the job before the sweep.
		finish     func(id uuid.UUID) error
		wantStatus job.Status
		wantCode   job.ErrorCode
	}{
		{"a job whose queued work was discarded fails",
			`UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE id = $1`, nil,
			job.StatusFailed, job.CodeServerError},
		{"a job whose queued work was cancelled fails",
			`UPDATE river_job SET state = 'cancelled', finalized_at = now() WHERE id = $1`, nil,
			job.StatusFailed, job.CodeServerError},
		{"a job whose queued work completed long ago without finishing it fails",
			`UPDATE river_job SET state = 'completed', finalized_at = now() - interval '1 hour' WHERE id = $1`, nil,
			job.StatusFailed, job.CodeServerError},
		{"a job whose queued work completed a moment ago is left to its newer attempt",
			`UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, nil,
			job.StatusProcessing, ""},
		{"a completed job whose queued work was discarded stays completed",
			`UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE id = $1`,
			func(id uuid.UUID) error { return b.store.Complete(ctx, id, 0, []byte(`{}`), b.now) },
			job.StatusCompleted, ""},
		{"a job that failed for its files keeps its own failure",
			`UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE id = $1`,
			func(id uuid.UUID) error {
				return b.store.Fail(ctx, id, 0, job.Failure{Code: job.CodeFileInvalid, Message: "bank: the file is empty"}, b.now)
			},
			job.StatusFailed, job.CodeFileInvalid},
	}
	ids := make([]uuid.UUID, len(tests))
	for i, tc := range tests {
		j := b.create(t)
		ids[i] = j.ID
		res, err := b.db.ExecContext(ctx, tc.queue, queueJobID(t, b, j.ID))
		require.NoError(t, err, tc.name)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.EqualValues(t, 1, n, tc.name)
		if tc.finish != nil {
			require.NoError(t, tc.finish(j.ID), tc.name)
		}
	}

	// The leader sweeps when the queue starts, then every few seconds.
	b.start(t)
	require.Eventually(t, func() bool {
		return b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'sweep_abandoned_jobs' AND state = 'completed'`) > 0
	}, waitFor, 10*time.Millisecond, "the sweep ran")
	b.stop(t)

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
		if tc.wantCode == job.CodeServerError {
			require.Equal(t, "the job could not be processed; create it again", got.Error.Message, tc.name)
			require.NotNil(t, got.CompletedAt, tc.name)
		}
	}
}

// queueJobID is the id of the job's river_job row.
func queueJobID(t *testing.T, b *queueBundle, id uuid.UUID) int64 {
	t.Helper()
	var queued int64
	require.NoError(t, b.db.GetContext(t.Context(), &queued, `SELECT queue_job_id FROM recon_jobs WHERE id = $1`, id))
	return queued
}
