package ratelimit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
)

func TestLimitFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		api   API
		plans Plans
		want  int
	}{
		{Recon, Plans{Recon: account.ReconStandard}, 100},
		{Recon, Plans{Recon: account.ReconPro}, 1000},
		{Parse, Plans{Parse: account.ParseFree}, 10},
		{Parse, Plans{Parse: account.ParseStarter}, 60},
		{Parse, Plans{Parse: account.ParsePro}, 200},
		{Parse, Plans{Parse: account.ParseBusiness}, 1000},
	} {
		require.Equal(t, tc.want, LimitFor(tc.api, tc.plans), "%s %+v", tc.api, tc.plans)
	}
}

// memStore counts in memory, for the Limiter's own rules; internal/postgres tests the real one.
type memStore struct {
	mu     sync.Mutex
	counts map[string]int
	forgot []time.Time
	plans  Plans
}

func (m *memStore) Hit(_ context.Context, id uuid.UUID, api API, start time.Time) (int, Plans, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := id.String() + string(api) + start.String()
	m.counts[k]++
	return m.counts[k], m.plans, nil
}

func (m *memStore) Forget(_ context.Context, cutoff time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgot = append(m.forgot, cutoff)
	return nil
}

func TestLimiterTake(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 45, 0, time.UTC)
	store := &memStore{counts: map[string]int{}, plans: Plans{Parse: account.ParseFree}}
	refused := map[API]int{}
	l := &Limiter{Store: store, Now: func() time.Time { return now }, Refused: func(api API) { refused[api]++ }}
	id := uuid.New()
	for i := 1; i <= 11; i++ {
		d, err := l.Take(context.Background(), id, Parse)
		require.NoError(t, err)
		require.Equal(t, 10, d.Limit)
		require.Equal(t, max(10-i, 0), d.Remaining)
		require.Equal(t, i <= 10, d.Allowed, "request %d", i)
		require.Equal(t, time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC), d.Reset, "the window ends with the calendar minute")
		require.Equal(t, 15, d.RetryAfter(now))
	}
	d, err := l.Take(context.Background(), id, Recon)
	require.NoError(t, err)
	require.True(t, d.Allowed, "each API has its own budget")
	require.Equal(t, map[API]int{Parse: 1}, refused, "the refusal is counted, by API")

	now = now.Add(20 * time.Second) // the next minute: a new window
	d, err = l.Take(context.Background(), id, Parse)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, 9, d.Remaining)
	require.Len(t, store.forgot, 2, "old windows are forgotten once per window")
	require.Equal(t, 1, d.RetryAfter(d.Reset.Add(-10*time.Millisecond)), "Retry-After is at least one second")
}

// TestLimiterSettlesDeferredCounts: a deferred count is taken once, by a store's read (Record) or
// by Settle, in the window the request arrived in, and decided like Take's.
func TestLimiterSettlesDeferredCounts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 59, 900_000_000, time.UTC)
	store := &memStore{counts: map[string]int{}, plans: Plans{Parse: account.ParseFree}}
	l := &Limiter{Store: store, Now: func() time.Time { return now }}
	id := uuid.New()

	d := l.Defer(id, Parse)
	ctx := WithDeferred(context.Background(), d)
	require.Same(t, d, Pending(ctx, id))
	require.Nil(t, Pending(ctx, uuid.New()), "a count is only another account's read's to take")
	require.Nil(t, Pending(context.Background(), id))
	now = now.Add(time.Second) // settled in the next minute: still the arrival's window
	dec, err := l.Settle(ctx, d)
	require.NoError(t, err)
	require.Equal(t, 9, dec.Remaining, "Settle counted it, once")
	require.Equal(t, time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC), dec.Reset)
	require.Nil(t, Pending(ctx, id), "a counted request is not pending")

	for i, tc := range []struct {
		count   int
		err     error
		allowed bool
	}{
		{10, nil, true},
		{11, nil, false},
		{0, account.ErrNotFound, false},
	} {
		d := l.Defer(id, Parse)
		d.Record(tc.count, Plans{Parse: account.ParseFree}, tc.err)
		require.Nil(t, Pending(WithDeferred(context.Background(), d), id))
		dec, err := l.Settle(context.Background(), d)
		if tc.err != nil {
			require.ErrorIs(t, err, tc.err, "case %d", i)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.allowed, dec.Allowed, "case %d", i)
		require.Equal(t, max(10-tc.count, 0), dec.Remaining, "case %d", i)
	}
	require.Equal(t, 1, store.counts[id.String()+string(Parse)+time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).String()],
		"recorded counts were not counted again")
}
