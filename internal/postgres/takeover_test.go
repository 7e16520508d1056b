package postgres_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
)

// freezer stands in for a worker process that stops running (SIGSTOP, a frozen VM) in the middle
// of a COPY: its connections stop sending when the second message of COPY data is about to
// go, after the server has stored the first one's rows, and stay stopped until thaw.
type freezer struct {
	mu     sync.Mutex
	sent   int           // messages of COPY data sent
	frozen chan struct{} // closed once a connection froze
	thawed chan struct{} // closed by thaw
}

func newFreezer() *freezer {
	return &freezer{frozen: make(chan struct{}), thawed: make(chan struct{})}
}

func (f *freezer) thaw() {
	select {
	case <-f.thawed:
	default:
		close(f.thawed)
	}
}

// open is a database handle whose connections go through f.
func (f *freezer) open(t *testing.T, url string) *sqlx.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &freezingConn{Conn: c, f: f}, nil
	}
	db := sqlx.NewDb(stdlib.OpenDB(*cfg), postgres.DriverName)
	t.Cleanup(func() {
		f.thaw()
		_ = db.Close()
	})
	return db
}

type freezingConn struct {
	net.Conn
	f *freezer
}

func (c *freezingConn) Write(p []byte) (int, error) {
	if len(p) > 0 && p[0] == 'd' { // CopyData
		c.f.mu.Lock()
		c.f.sent++
		freeze := c.f.sent == 2
		c.f.mu.Unlock()
		if freeze {
			close(c.f.frozen)
			<-c.f.thawed
		}
	}
	return c.Conn.Write(p)
}

// completeFrozen starts attempt n at job id completing with many transactions through a store
// whose connection freezes in the COPY, waits until it froze, and returns the outcome of
// Complete, which arrives once the freezer is thawed.
func completeFrozen(t *testing.T, b *parseBundle, url string, id uuid.UUID, n int, f *freezer) <-chan error {
	t.Helper()
	frozen := postgres.NewParseJobStore(f.open(t, url), b.store.Queue)
	done := b.now.Add(time.Minute)
	// The attempt's deadline is far off: the server's limits (statement_timeout and the idle
	// timeout) do not end a COPY that waits for its client anyway.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	out := make(chan error, 1)
	go func() {
		defer cancel()
		out <- frozen.Complete(ctx, id, n, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}, held(manyTransactions(20_000)))
	}()
	select {
	case <-f.frozen:
	case err := <-out:
		t.Fatalf("attempt %d completed before its connection froze: %v", n, err)
	case <-time.After(time.Minute):
		t.Fatal("attempt's connection did not freeze")
	}
	return out
}

// A worker frozen in the middle of storing a job's transactions holds the job's row and its
// uncommitted rows. The attempt that rescued the job must still be able to take it over: it
// ends the frozen attempt's transaction, whose rows are rolled back, and the worker, once it
// runs again, finds its connection gone. Other jobs' attempts and newer attempts are left alone.
func TestParseJobStoreANewerAttemptEndsAFrozenOlderOne(t *testing.T) {
	t.Parallel()
	db, url := pgtest.NewURL(t)
	q, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	b := newParseBundle(t, db, q)
	ctx := t.Context()
	rows := func(id uuid.UUID) int {
		return b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, id)
	}

	t.Run("a newer attempt ends it", func(t *testing.T) {
		j, other := b.create(t), b.create(t)
		for _, id := range []uuid.UUID{j.ID, other.ID} {
			_, err := b.store.Claim(ctx, id, 1)
			require.NoError(t, err)
		}
		frozen, otherFreezer := newFreezer(), newFreezer()
		stale := completeFrozen(t, b, url, j.ID, 1, frozen)
		unrelated := completeFrozen(t, b, url, other.ID, 1, otherFreezer)

		claimCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		began := time.Now()
		got, err := b.store.Claim(claimCtx, j.ID, 2)
		require.NoError(t, err, "the rescuing attempt claims the job")
		require.Equal(t, parsejob.StatusProcessing, got.Status)
		t.Logf("claimed past the frozen attempt in %s", time.Since(began).Round(time.Millisecond))

		frozen.thaw()
		require.Error(t, <-stale, "the frozen attempt, running again, cannot complete the job")
		require.Zero(t, rows(j.ID), "what the frozen attempt wrote was rolled back")

		done := b.now.Add(2 * time.Minute)
		require.NoError(t, b.store.Complete(ctx, j.ID, 2, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}, held(manyTransactions(3))))
		require.Equal(t, 3, rows(j.ID))

		otherFreezer.thaw()
		require.NoError(t, <-unrelated, "another job's attempt was left alone")
		require.Equal(t, 20_000, rows(other.ID))
	})

	t.Run("an older attempt gives way to a newer one", func(t *testing.T) {
		j := b.create(t)
		_, err := b.store.Claim(ctx, j.ID, 3)
		require.NoError(t, err)
		f := newFreezer()
		newer := completeFrozen(t, b, url, j.ID, 3, f)

		claimCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err = b.store.Claim(claimCtx, j.ID, 2)
		require.ErrorIs(t, err, attempt.ErrStale, "attempt 2 is stale at once, without waiting for attempt 3")

		f.thaw()
		require.NoError(t, <-newer, "attempt 3, frozen meanwhile, completes the job")
		require.Equal(t, 20_000, rows(j.ID))
	})
}

// The queue can give up on a job whose last attempt froze in the middle of storing its
// transactions. The sweep that fails such jobs ends that attempt rather than waiting for it (and
// holding up every other abandoned job) until its worker runs again.
func TestQueueSweepEndsAFrozenAttemptAtAnAbandonedJob(t *testing.T) {
	t.Parallel()
	qb := setupQueue(t, nil)
	b := newParseBundle(t, qb.db, qb.enqueuer)
	ctx := t.Context()
	j := b.create(t)
	_, err := b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	f := newFreezer()
	stale := completeFrozen(t, b, qb.url, j.ID, 1, f)
	qb.setQueueState(t, "parse_jobs", j.ID, queueDiscarded)

	qb.sweep(t)

	got, err := b.store.Get(ctx, b.account.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.StatusFailed, got.Status)
	require.NotNil(t, got.Error)
	require.Equal(t, parsejob.CodeInternalError, got.Error.Code)
	f.thaw()
	require.Error(t, <-stale, "the frozen attempt, running again, cannot complete the job")
	require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, j.ID))
}
