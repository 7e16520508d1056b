package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestPercentileNearestRank(t *testing.T) {
	// 1..100 ms: the p-th percentile of 100 values is the p-th value.
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(float64(i + 1))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{
		{0, ms(1)}, {1, ms(1)}, {1.5, ms(2)}, {50, ms(50)}, {90, ms(90)}, {99, ms(99)},
		{99.9, ms(100)}, {100, ms(100)}, {-3, ms(1)}, {250, ms(100)},
	} {
		if got := Percentile(hundred, c.p); got != c.want {
			t.Errorf("p%v of 1..100 ms = %v, want %v", c.p, got, c.want)
		}
	}

	// Small sets: nearest rank never interpolates; it picks the ceil(p/100*n)-th value.
	five := []time.Duration{ms(10), ms(20), ms(30), ms(40), ms(50)}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{
		{20, ms(10)}, {20.1, ms(20)}, {40, ms(20)}, {50, ms(30)}, {60, ms(30)}, {80, ms(40)}, {99, ms(50)},
	} {
		if got := Percentile(five, c.p); got != c.want {
			t.Errorf("p%v of %v = %v, want %v", c.p, five, got, c.want)
		}
	}
	if got := Percentile([]time.Duration{ms(7)}, 99); got != ms(7) {
		t.Errorf("p99 of one value = %v", got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}

	// p99.9 of 1,000 and p99 of 10,000 land on exact ranks despite floating point.
	thousand := make([]time.Duration, 10000)
	for i := range thousand {
		thousand[i] = time.Duration(i + 1)
	}
	if got := Percentile(thousand[:1000], 99.9); got != 999 {
		t.Errorf("p99.9 of 1..1000 = %d, want 999", got)
	}
	if got := Percentile(thousand, 99); got != 9900 {
		t.Errorf("p99 of 1..10000 = %d, want 9900", got)
	}
}

// TestPercentileAgainstDefinition checks random sets against the definition: the smallest
// value v with at least p% of the values <= v.
func TestPercentileAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + r.IntN(300)
		vals := make([]time.Duration, n)
		for i := range vals {
			vals[i] = time.Duration(r.IntN(50))
		}
		slices.Sort(vals)
		for _, p := range []float64{1, 10, 25, 50, 75, 90, 99, 99.9, 100} {
			var want time.Duration
			for _, v := range vals {
				atOrBelow := 0
				for _, w := range vals {
					if w <= v {
						atOrBelow++
					}
				}
				if float64(atOrBelow)*100 >= p*float64(n) {
					want = v
					break
				}
			}
			if got := Percentile(vals, p); got != want {
				t.Fatalf("p%v of %v = %v, want %v", p, vals, got, want)
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	d := []time.Duration{ms(5), ms(1), ms(3), ms(2), ms(4)}
	s := Summarize(d)
	want := Latency{Min: ms(1), Mean: ms(3), P50: ms(3), P90: ms(5), P99: ms(5), P999: ms(5), Max: ms(5)}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if !slices.IsSorted(d) {
		t.Error("Summarize sorts its argument")
	}
	if (Summarize(nil) != Latency{}) {
		t.Error("Summarize(nil) is zero")
	}
}

func TestSchedule(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := Schedule{Start: start, Rate: 1000}
	for i, want := range map[int]time.Duration{0: 0, 1: time.Millisecond, 999: 999 * time.Millisecond, 1000: time.Second, 15000: 15 * time.Second} {
		if got := s.At(i).Sub(start); got != want {
			t.Errorf("rate 1000: request %d due at +%v, want +%v", i, got, want)
		}
	}
	if got := s.Count(15 * time.Second); got != 15000 {
		t.Errorf("rate 1000 for 15 s: %d requests, want 15000", got)
	}
	if got := s.Count(2 * time.Second); got != 2000 {
		t.Errorf("rate 1000 for 2 s: %d requests, want 2000", got)
	}
	if got := s.Count(0); got != 0 {
		t.Errorf("no time: %d requests", got)
	}

	// A rate whose interval is not a whole number of nanoseconds does not drift: the 3,000th
	// request of 3 per second is due after exactly 1,000 s.
	third := Schedule{Start: start, Rate: 3}
	if got := third.At(3000).Sub(start); got != 1000*time.Second {
		t.Errorf("rate 3: request 3000 due at +%v, want +1000s", got)
	}
	if got := third.Offset(1); got != 333333333 {
		t.Errorf("rate 3: request 1 due at +%dns, want +333333333ns", got)
	}
	if got := third.Count(time.Second); got != 3 { // at 0, 1/3 and 2/3 s
		t.Errorf("rate 3 for 1 s: %d requests, want 3", got)
	}
	if got := third.Count(time.Second + 1); got != 4 {
		t.Errorf("rate 3 for 1 s + 1 ns: %d requests, want 4", got)
	}

	// Count agrees with the definition (Offset(i) < d) for awkward rates and durations.
	for _, rate := range []float64{0.5, 7, 333.3, 1000, 1234.5678, 50000} {
		s := Schedule{Start: start, Rate: rate}
		for _, d := range []time.Duration{1, time.Millisecond, 999 * time.Millisecond, time.Second, 2500 * time.Millisecond, 15 * time.Second} {
			n := s.Count(d)
			if n > 0 && s.Offset(n-1) >= d || s.Offset(n) < d {
				t.Errorf("rate %v, %v: Count = %d, but Offset(%d) = %v and Offset(%d) = %v", rate, d, n, n-1, s.Offset(n-1), n, s.Offset(n))
			}
		}
	}

	// Due times are evenly spaced: no gap differs from 1/rate by more than a nanosecond.
	odd := Schedule{Start: start, Rate: 777}
	for i := 1; i < 10000; i++ {
		gap := odd.At(i).Sub(odd.At(i - 1))
		if want := time.Second / 777; gap < want-1 || gap > want+1 {
			t.Fatalf("gap before request %d is %v, want %v", i, gap, want)
		}
	}
}

func TestParseTargets(t *testing.T) {
	in := `# the status of two jobs
GET http://127.0.0.1:1/api/v1/jobs/a
Authorization: Bearer one
x-trace:  yes

HEAD http://127.0.0.1:1/api/v1/jobs/b
Authorization: Bearer two
http://127.0.0.1:1/healthz
`
	got, err := ParseTargets(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d targets, want 3: %+v", len(got), got)
	}
	if got[0].Method != "GET" || got[0].URL != "http://127.0.0.1:1/api/v1/jobs/a" ||
		got[0].Header.Get("Authorization") != "Bearer one" || got[0].Header.Get("X-Trace") != "yes" {
		t.Errorf("first target: %+v", got[0])
	}
	if got[1].Method != "HEAD" || got[1].Header.Get("Authorization") != "Bearer two" {
		t.Errorf("second target: %+v", got[1])
	}
	if got[2].Method != "GET" || got[2].URL != "http://127.0.0.1:1/healthz" || len(got[2].Header) != 0 {
		t.Errorf("third target: %+v", got[2])
	}

	for _, bad := range []string{
		"",
		"# only a comment\n",
		"Authorization: Bearer x\n", // a header before any request
		"GET http://127.0.0.1:1/\nnot a header line\n", // neither
		"GET ftp://example.com/\n",                     // not HTTP: not a request line, nor a header
		"GET http:///nohost\n",
	} {
		if _, err := ParseTargets(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseTargets(%q) accepted", bad)
		}
	}
}

// testServer answers 200 after delay, and 503 for /fail; it counts requests and remembers the
// Authorization headers it saw.
func testServer(t *testing.T, delay time.Duration) (*httptest.Server, *atomic.Int64, *sync.Map) {
	t.Helper()
	var n atomic.Int64
	var auth sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		auth.Store(r.Header.Get("Authorization"), true)
		time.Sleep(delay)
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &auth
}

func TestOpenLoop(t *testing.T) {
	srv, n, auth := testServer(t, 0)
	targets := []Target{
		{URL: srv.URL + "/a", Header: http.Header{"Authorization": {"Bearer a"}}},
		{URL: srv.URL + "/b", Header: http.Header{"Authorization": {"Bearer b"}}},
	}
	r, err := Run(context.Background(), Config{Targets: targets, Rate: 200, Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 200/s: 20 warm-up requests, then 100 measured ones, all sent whatever the answers.
	if r.Requests != 100 || n.Load() != 120 {
		t.Errorf("%d measured of %d sent, want 100 of 120", r.Requests, n.Load())
	}
	if !r.Valid() || r.OK != 100 || r.Status["200"] != 100 {
		t.Errorf("answers: %+v", r.Status)
	}
	for _, key := range []string{"Bearer a", "Bearer b"} {
		if _, ok := auth.Load(key); !ok {
			t.Errorf("no request with Authorization %q", key)
		}
	}
	if r.Throughput < 150 || r.Throughput > 201 {
		t.Errorf("throughput %.1f req/s, want about 200", r.Throughput)
	}
	if r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50 || r.Latency.Max < r.Latency.P99 {
		t.Errorf("latency %+v", r.Latency)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"open loop at 200 req/s", "100 ok, 0 errors", "200: 100", "p99", "send lag"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestOpenLoopCountsTheWait checks that latency runs from the scheduled time: a server that
// takes 50 ms per request, with the generator allowed one request in flight at a time, makes
// the later requests wait for the earlier ones, and that wait is in their latency.
func TestOpenLoopCountsTheWait(t *testing.T) {
	srv, _, _ := testServer(t, 50*time.Millisecond)
	r, err := Run(context.Background(), Config{
		Targets: []Target{{URL: srv.URL}}, Rate: 100, Duration: 200 * time.Millisecond, MaxInFlight: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 20 {
		t.Fatalf("%d requests, want 20", r.Requests)
	}
	// Request i is due at 10i ms and answered at about 50(i+1) ms: the last one has waited
	// about 1 s though the server took only 50 ms for it.
	if r.Latency.Max < 800*time.Millisecond {
		t.Errorf("max latency %v: the queueing behind slow answers is not counted", r.Latency.Max)
	}
	if r.SendLag.Max < 700*time.Millisecond {
		t.Errorf("max send lag %v, want the generator's wait to show", r.SendLag.Max)
	}
}

func TestClosedLoop(t *testing.T) {
	srv, n, _ := testServer(t, 2*time.Millisecond)
	r, err := Run(context.Background(), Config{Targets: []Target{{URL: srv.URL}}, Concurrency: 4, Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 4 connections, 2 ms each: at most about 2,000 req/s.
	if r.Requests < 50 || r.Throughput > 2100 || int64(r.Requests) > n.Load() {
		t.Errorf("%d measured requests of %d sent, %.0f req/s", r.Requests, n.Load(), r.Throughput)
	}
	if !r.Valid() || r.Latency.Min < 2*time.Millisecond {
		t.Errorf("valid %v, latency %+v", r.Valid(), r.Latency)
	}
	if r.Mode != "closed" || r.Concurrency != 4 {
		t.Errorf("mode %q, concurrency %d", r.Mode, r.Concurrency)
	}
}

func TestErrorsAreCountedByStatus(t *testing.T) {
	srv, _, _ := testServer(t, 0)
	targets := []Target{{URL: srv.URL + "/ok"}, {URL: srv.URL + "/fail"}, {URL: "http://127.0.0.1:1/refused"}}
	r, err := Run(context.Background(), Config{Targets: targets, Concurrency: 1, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Valid() || r.Errors == 0 || r.Status["503"] == 0 || r.Status["error: connection refused"] == 0 || r.Status["200"] == 0 {
		t.Fatalf("answers %+v, errors %d", r.Status, r.Errors)
	}
	if r.OK+r.Errors != r.Requests || r.OK != r.Status["200"] {
		t.Errorf("ok %d + errors %d != requests %d", r.OK, r.Errors, r.Requests)
	}
	var text bytes.Buffer
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), "INVALID RUN") {
		t.Errorf("the report does not say the run is invalid:\n%s", text.String())
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back["valid"] != false || back["mode"] != "closed" || back["latency_ms"] == nil || back["send_lag_ms"] != nil {
		t.Errorf("JSON report: %s", raw)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	ok := []Target{{URL: "http://127.0.0.1:1/"}}
	for name, cfg := range map[string]Config{
		"no targets":        {Rate: 1, Duration: time.Second},
		"no duration":       {Targets: ok, Rate: 1},
		"no rate nor conns": {Targets: ok, Duration: time.Second},
		"negative warm-up":  {Targets: ok, Rate: 1, Duration: time.Second, Warmup: -1},
		"bad URL":           {Targets: []Target{{URL: "http://[::1"}}, Rate: 1, Duration: time.Second},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
