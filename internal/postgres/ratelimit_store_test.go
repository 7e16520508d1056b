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
