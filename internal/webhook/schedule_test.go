package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Schedule
		wantErr string
	}{
		{name: "the documented schedule reads back as the default", in: "5s,5m,30m,2h,5h,10h,14h,20h,24h", want: DefaultSchedule},
		{name: "spaces around items are ignored", in: " 1s , 2s ", want: Schedule{time.Second, 2 * time.Second}},
		{name: "an empty schedule is refused", in: "  ", wantErr: "empty"},
		{name: "a word is refused by name", in: "5s,soon", wantErr: `"soon"`},
		{name: "a zero offset is refused", in: "0s", wantErr: "positive"},
		{name: "offsets must grow", in: "5m,5m", wantErr: "not later than 5m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSchedule(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			again, err := ParseSchedule(got.String())
			require.NoError(t, err)
			require.Equal(t, got, again, "String reads back")
		})
	}
}

func TestScheduleNext(t *testing.T) {
	t.Parallel()
	first := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		attempts   int
		jitter     float64
		failedAt   time.Time
		retryAfter time.Duration
		want       time.Time
		ok         bool
	}{
		{name: "the first retry is 5 s after the first attempt", attempts: 1, failedAt: first, want: first.Add(5 * time.Second), ok: true},
		{name: "full jitter postpones by a tenth of the offset", attempts: 2, jitter: 1, failedAt: first.Add(5 * time.Second),
			want: first.Add(5*time.Minute + 30*time.Second), ok: true},
		{name: "jitter out of range is clamped", attempts: 2, jitter: 7, failedAt: first, want: first.Add(5*time.Minute + 30*time.Second), ok: true},
		{name: "a later Retry-After wins", attempts: 1, failedAt: first, retryAfter: time.Minute, want: first.Add(time.Minute), ok: true},
		{name: "an earlier Retry-After does not hurry the schedule", attempts: 3, failedAt: first.Add(5 * time.Minute),
			retryAfter: time.Second, want: first.Add(30 * time.Minute), ok: true},
		{name: "the last retry is 24 h after the first attempt", attempts: 9, failedAt: first.Add(20 * time.Hour), want: first.Add(24 * time.Hour), ok: true},
		{name: "after the tenth attempt the delivery is given up", attempts: 10, failedAt: first.Add(24 * time.Hour)},
		{name: "no attempt made yet is no retry", attempts: 0, failedAt: first},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := DefaultSchedule.Next(first, tc.attempts, tc.jitter, tc.failedAt, tc.retryAfter)
			require.Equal(t, tc.ok, ok)
			require.True(t, tc.want.Equal(got), "due %s, want %s", got, tc.want)
		})
	}
}
