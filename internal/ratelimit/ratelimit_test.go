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
