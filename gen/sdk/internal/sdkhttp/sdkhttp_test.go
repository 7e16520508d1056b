package sdkhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statementmatch/service/gen/sdk/internal/check"
)

// scripted is a server that answers the n-th request (from 1) with answers[n-1], the last one
// again after that, and records what it received.
type scripted struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []string
	keys     []string
	arrivals []time.Time
}

type answer struct {
	status     int
	retryAfter string
}

func newScripted(t *testing.T, answers ...answer) *scripted {
	t.Helper()
	s := &scripted{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
		s.arrivals = append(s.arrivals, time.Now())
		a := answers[min(len(s.bodies), len(answers))-1]
		s.mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
	}))
	t.Cleanup(s.Close)
	return s
}

// fast is the default rule scaled from seconds to 10 ms units: waits of 20 ms and 40 ms.
var fast = Policy{Attempts: 3, Backoff: func(n int) time.Duration { return time.Duration(1<<n) * 10 * time.Millisecond }}

// nonRewindable hides a reader's type, so http.NewRequest sets no GetBody.
type nonRewindable struct{ io.Reader }

func TestRetrying(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		answers    []answer
		policy     Policy
		wantStatus int
		wantSent   int
		// minGaps are the least waits between consecutive attempts.
		minGaps []time.Duration
	}{
		{name: "503 twice then 200: three attempts, waiting 2 and 4 units", answers: []answer{{status: 503}, {status: 503}, {status: 200}},
			policy: fast, wantStatus: 200, wantSent: 3, minGaps: []time.Duration{20 * time.Millisecond, 40 * time.Millisecond}},
		{name: "500 three times: the third answer is returned", answers: []answer{{status: 500}},
			policy: fast, wantStatus: 500, wantSent: 3},
		{name: "429 with Retry-After waits at least that long", answers: []answer{{status: 429, retryAfter: "1"}, {status: 201}},
			policy: fast, wantStatus: 201, wantSent: 2, minGaps: []time.Duration{time.Second}},
		{name: "a Retry-After longer than MaxWait is returned at once", answers: []answer{{status: 429, retryAfter: "86400"}, {status: 200}},
			policy: fast, wantStatus: 429, wantSent: 1},
		{name: "400 is not retried", answers: []answer{{status: 400}, {status: 200}}, policy: fast, wantStatus: 400, wantSent: 1},
		{name: "502 is not retried", answers: []answer{{status: 502}, {status: 200}}, policy: fast, wantStatus: 502, wantSent: 1},
		{name: "one attempt turns retries off", answers: []answer{{status: 503}, {status: 200}},
			policy: Policy{Attempts: 1}, wantStatus: 503, wantSent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScripted(t, tt.answers...)
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/jobs", nonRewindable{strings.NewReader("the upload")})
			check.NoError(t, err)
			resp, err := Retrying(http.DefaultClient, tt.policy).Do(req)
			check.NoError(t, err)
			_ = resp.Body.Close()
			check.Equal(t, tt.wantStatus, resp.StatusCode)
			srv.mu.Lock()
			defer srv.mu.Unlock()
			check.Len(t, srv.bodies, tt.wantSent)
			for i := range srv.bodies {
				check.Equal(t, "the upload", srv.bodies[i], "attempt %d sends the same body", i+1)
				check.Equal(t, srv.keys[0], srv.keys[i], "and the same Idempotency-Key")
			}
			if tt.policy.Attempts > 1 {
				check.NotEmpty(t, srv.keys[0], "an upload gets an Idempotency-Key when retries are on")
			}
			for i, gap := range tt.minGaps {
				check.True(t, srv.arrivals[i+1].Sub(srv.arrivals[i]) >= gap, "wait before attempt %d", i+2)
			}
		})
	}
}

func TestRetryingKeepsTheCallersIdempotencyKeyAndLeavesOtherPostsAlone(t *testing.T) {
	t.Parallel()
	srv := newScripted(t, answer{status: 503}, answer{status: 200})
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/jobs", strings.NewReader("x"))
	check.NoError(t, err)
	req.Header.Set("Idempotency-Key", "mine")
	resp, err := Retrying(http.DefaultClient, fast).Do(req)
	check.NoError(t, err)
	_ = resp.Body.Close()
	req, err = http.NewRequest(http.MethodPost, srv.URL+"/api/v1/webhooks/test", strings.NewReader("{}"))
	check.NoError(t, err)
	resp, err = Retrying(http.DefaultClient, fast).Do(req)
	check.NoError(t, err)
	_ = resp.Body.Close()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	check.Equal(t, []string{"mine", "mine", ""}, srv.keys)
}

func TestRetryingStopsWaitingWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	srv := newScripted(t, answer{status: 503})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/jobs/x", nil)
	check.NoError(t, err)
	start := time.Now()
	_, err = Retrying(http.DefaultClient, Default).Do(req)
	check.ErrorIs(t, err, context.DeadlineExceeded)
	check.True(t, time.Since(start) < time.Second, "the 2 s wait ended with the context")
}

// failing is a Doer whose first n calls fail without an answer.
type failing struct {
	n     int
	calls int
}

func (f *failing) Do(req *http.Request) (*http.Response, error) {
	f.calls++
	if f.calls <= f.n {
		return nil, errors.New("connection refused")
	}
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
}

func TestRetryingRetriesAFailedConnection(t *testing.T) {
	t.Parallel()
	f := &failing{n: 2}
	req, err := http.NewRequest(http.MethodGet, "http://example.invalid/api/v1/status", nil)
	check.NoError(t, err)
	resp, err := Retrying(f, fast).Do(req)
	check.NoError(t, err)
	check.Equal(t, 200, resp.StatusCode)
	check.Equal(t, 3, f.calls)
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"Tue, 01 Apr 2025 08:01:00 GMT", time.Minute, true},
		{"Tue, 01 Apr 2025 07:00:00 GMT", 0, true},
		{"soon", 0, false},
		{"-3", 0, false},
	} {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		got, ok := RetryAfter(h, now)
		check.Equal(t, tt.ok, ok, tt.value)
		check.Equal(t, tt.want, got, tt.value)
	}
}

func TestNextPollDoublesUpToTenSeconds(t *testing.T) {
	t.Parallel()
	d, got := 20*time.Millisecond, []time.Duration{}
	for range 12 {
		got = append(got, d)
		d = NextPoll(d)
	}
	check.Equal(t, 10*time.Second, got[len(got)-1])
	for i := 1; i < len(got); i++ {
		check.Equal(t, min(2*got[i-1], 10*time.Second), got[i])
	}
	check.Equal(t, time.Minute, NextPoll(time.Minute), "a longer interval is kept")
}

func TestPagesFollowsTheCursorsAndStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	pages := map[string][]int{"": {1, 2}, "b": {3, 4}, "c": {5}}
	next := map[string]*string{"": ptr("b"), "b": ptr("c"), "c": nil}
	var got []int
	for v, err := range Pages(nil, func(cursor *string) ([]int, *string, error) {
		key := ""
		if cursor != nil {
			key = *cursor
		}
		return pages[key], next[key], nil
	}) {
		check.NoError(t, err)
		got = append(got, v)
	}
	check.Equal(t, []int{1, 2, 3, 4, 5}, got)

	calls := 0
	var errs []error
	for _, err := range Pages(nil, func(*string) ([]int, *string, error) {
		calls++
		return nil, nil, errors.New("refused")
	}) {
		errs = append(errs, err)
	}
	check.Equal(t, 1, calls)
	check.Len(t, errs, 1)

	got = nil
	for v := range Pages(ptr("b"), func(cursor *string) ([]int, *string, error) { return pages[*cursor], next[*cursor], nil }) {
		got = append(got, v)
		if v == 3 {
			break
		}
	}
	check.Equal(t, []int{3}, got, "a break stops the iteration")
}

func TestPollStopsWhenDoneOrFailed(t *testing.T) {
	t.Parallel()
	calls := 0
	v, err := Poll(context.Background(), time.Millisecond, func() (int, bool, error) { calls++; return calls, calls == 3, nil })
	check.NoError(t, err)
	check.Equal(t, 3, v)
	_, err = Poll(context.Background(), time.Millisecond, func() (int, bool, error) { return 0, false, errors.New("gone") })
	check.EqualError(t, err, "gone")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Poll(ctx, time.Hour, func() (int, bool, error) { return 0, false, nil })
	check.ErrorIs(t, err, context.Canceled)
}

func ptr(s string) *string { return &s }
