package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/ratelimit/ratelimittest"
)

func TestThrottleCountsAndRefunds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	refused := 0
	th := &Throttle{Store: &ratelimittest.Failures{}, Now: func() time.Time { return now }, Budget: 3, Refused: func() { refused++ }}
	ctx := context.Background()

	ok, err := th.Count(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, Decision{Limit: 3, Remaining: 2, Reset: time.Date(2026, 3, 5, 14, 8, 0, 0, time.UTC), Allowed: true}, ok)
	back, err := th.Refund(ctx, "k", ok)
	require.NoError(t, err)
	require.Equal(t, 3, back.Remaining, "a refunded attempt leaves the whole budget")
	require.True(t, back.Allowed)

	for i := 1; i <= 3; i++ {
		d, err := th.Count(ctx, "k")
		require.NoError(t, err)
		require.True(t, d.Allowed, "attempt %d", i)
		require.Equal(t, 3-i, d.Remaining)
	}
	over, err := th.Count(ctx, "k")
	require.NoError(t, err)
	require.False(t, over.Allowed, "the fourth attempt of the minute is over the budget")
	require.Equal(t, 0, over.Remaining)
	require.Equal(t, 1, refused, "only the refusal is counted")
	other, err := th.Count(ctx, "other")
	require.NoError(t, err)
	require.True(t, other.Allowed, "every key has its own budget")

	// A refund made once the minute is over goes to the minute the attempt was counted in.
	now = now.Add(48 * time.Second)
	back, err = th.Refund(ctx, "k", over)
	require.NoError(t, err)
	require.Equal(t, over.Reset, back.Reset)
	d, err := th.Count(ctx, "k")
	require.NoError(t, err)
	require.True(t, d.Allowed, "a new minute gives a new budget")
	require.Equal(t, 2, d.Remaining, "and the old minute's refund took nothing from it")
}

// TestThrottleIsExactUnderConcurrency: however many attempts run at once, exactly Budget of
// them are allowed (internal/postgres checks the same of the real store).
func TestThrottleIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	th := &Throttle{Store: &ratelimittest.Failures{}, Now: func() time.Time { return now }, Budget: 100}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for range 300 {
		wg.Go(func() {
			d, err := th.Count(context.Background(), "addr")
			if err == nil && d.Allowed {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(100), allowed.Load())
}
