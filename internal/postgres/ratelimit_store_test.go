package postgres_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/ratelimit"
)

// TestRateLimitStoreCountsExactly: concurrent hits of one window each get their own count, 1 to
// n with none repeated, and the account's plans come back with them.
func TestRateLimitStoreCountsExactly(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	acct, err := postgres.NewAccountStore(db).CreateAccount(ctx, account.Account{Name: "Counted", ReconPlan: account.ReconPro, ParsePlan: account.ParseStarter})
	require.NoError(t, err)
	store := postgres.NewRateLimitStore(db)
	window := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

	const n = 40
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, plans, err := store.Hit(ctx, acct.ID, ratelimit.Recon, window)
			if err != nil {
				t.Error(err)
				return
			}
			if plans.Recon != account.ReconPro || plans.Parse != account.ParseStarter {
				t.Errorf("plans %+v", plans)
			}
			counts[i] = c
		}()
	}
	wg.Wait()
	sort.Ints(counts)
	for i, c := range counts {
		require.Equal(t, i+1, c)
	}

	c, _, err := store.Hit(ctx, acct.ID, ratelimit.Parse, window)
	require.NoError(t, err)
	require.Equal(t, 1, c, "the other API counts apart")
	c, _, err = store.Hit(ctx, acct.ID, ratelimit.Recon, window.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 1, c, "a new window starts at one")

	_, _, err = store.Hit(ctx, uuid.New(), ratelimit.Recon, window)
	require.ErrorIs(t, err, account.ErrNotFound)

	require.NoError(t, store.Forget(ctx, window.Add(time.Minute)))
	var left int
	require.NoError(t, db.Get(&left, `SELECT count(*) FROM rate_limit_windows WHERE account_id = $1`, acct.ID))
	require.Equal(t, 1, left, "windows before the cutoff are gone")

	fails, err := store.Failures(ctx, "client:cli_x", window)
	require.NoError(t, err)
	require.Equal(t, 0, fails, "no failures yet")
	for want := 1; want <= 3; want++ {
		fails, err = store.AddFailure(ctx, "client:cli_x", window)
		require.NoError(t, err)
		require.Equal(t, want, fails)
	}
	fails, err = store.Failures(ctx, "client:cli_x", window)
	require.NoError(t, err)
	require.Equal(t, 3, fails)
}

// TestThrottleOnTheStoreIsExact: with the real store, 150 attempts at once against a budget of
// 100 get exactly 100 through, and a refund gives back one count, never going below zero, and
// orders itself with concurrent counts so that none is lost.
func TestThrottleOnTheStoreIsExact(t *testing.T) {
	t.Parallel()
	store := postgres.NewRateLimitStore(pgtest.New(t))
	ctx := context.Background()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	th := &ratelimit.Throttle{Store: store, Now: func() time.Time { return now }, Budget: 100}

	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range 150 {
		wg.Go(func() {
			d, err := th.Count(ctx, "token-addr:192.0.2.1")
			if !assertNoError(t, err) {
				return
			}
			if d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Equal(t, 100, allowed, "exactly the budget gets through")

	window := now.Truncate(time.Minute)
	n, err := store.RemoveFailure(ctx, "token-addr:192.0.2.2", window)
	require.NoError(t, err)
	require.Zero(t, n, "nothing to take back from a key never counted")
	_, err = store.AddFailure(ctx, "k", window)
	require.NoError(t, err)
	for range 2 {
		n, err = store.RemoveFailure(ctx, "k", window)
		require.NoError(t, err)
		require.Zero(t, n, "a count never goes below zero")
	}

	// 100 counts and 100 refunds at once: every one of them is applied.
	for range 100 {
		_, err = store.AddFailure(ctx, "mixed", window)
		require.NoError(t, err)
	}
	for i := range 200 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = store.AddFailure(ctx, "mixed", window)
			} else {
				_, err = store.RemoveFailure(ctx, "mixed", window)
			}
			assertNoError(t, err)
		})
	}
	wg.Wait()
	n, err = store.Failures(ctx, "mixed", window)
	require.NoError(t, err)
	require.Equal(t, 100, n)
}

// assertNoError is require.NoError for goroutines, which must not call t.FailNow.
func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
