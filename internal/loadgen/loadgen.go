// Package loadgen is a small HTTP load generator. It sends a list of requests in turn, either as
// an open loop at a constant rate or as a closed loop of a fixed number of connections, and
// reports the throughput, the answers by status and exact latency percentiles.
//
// An open loop (Config.Rate > 0) sends request i at its scheduled time Start + i/Rate whatever
// happened to earlier requests, and measures each latency from that scheduled time rather than
// from the moment it was actually sent. A server (or a generator) that stalls therefore shows
// the wait of every request scheduled during the stall, instead of hiding it by sending fewer
// requests ("coordinated omission"). A closed loop (Config.Concurrency > 0) has each worker send
// its next request as soon as the previous answer is read, which finds the maximum rate the
// server sustains at that concurrency; its latency is measured from the actual send.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Config is one run.
type Config struct {
	Targets []Target
	// Rate > 0 runs an open loop of Rate requests per second; otherwise Concurrency workers
	// run a closed loop.
	Rate        float64
	Concurrency int
	// Duration is the measured part of the run. Warmup comes before it: its requests are sent
	// the same way (and open the connections) but are not recorded.
	Duration time.Duration
	Warmup   time.Duration
	// Timeout bounds each request, its body read included; 10 s when zero.
	Timeout time.Duration
	// ExpectStatus is the status of a successful answer; 200 when zero. Every other answer,
	// and every transport error, counts as an error.
	ExpectStatus int
	// MaxInFlight bounds the open loop's outstanding requests (10,000 when zero). When it is
	// reached the generator waits; the wait still counts in the latencies, which run from the
	// scheduled times.
	MaxInFlight int
	// Client sends the requests; when nil, NewClient makes one sized for the run.
	Client *http.Client
}

// Result is what a run measured. Only requests of the measured part are counted.
type Result struct {
	Mode        string // "open" or "closed"
	Rate        float64
	Concurrency int
	Duration    time.Duration // as configured
	Warmup      time.Duration
	// Elapsed is the measured window: from the first measured request's (scheduled) start to
	// the later of the configured end and the last measured answer.
	Elapsed    time.Duration
	Requests   int
	OK         int
	Errors     int
	Status     map[string]int // answers by status code; transport failures as "error: ..."
	Throughput float64        // measured requests per second of Elapsed
	Bytes      int64          // response bodies read
	Latency    Latency
	// SendLag is, for an open loop, how late the generator sent each request after its
	// scheduled time: if it is large, the generator itself could not keep up.
	SendLag Latency
}

// Valid reports whether the run measured something and every answer was the expected one.
func (r *Result) Valid() bool { return r.Requests > 0 && r.Errors == 0 }

// NewClient returns an HTTP client for load: keep-alive connections, as many idle ones kept as
// conns so that none is closed and reopened between requests, no compression, no proxy.
func NewClient(conns int, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        0, // no limit overall
			MaxIdleConnsPerHost: max(conns, 16),
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not a request to follow
		},
	}
}

// Run performs the run cfg describes. It returns early, with what was measured so far, when
// ctx ends.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Targets) == 0 {
		return nil, errors.New("loadgen: no targets")
	}
	if cfg.Duration <= 0 {
		return nil, errors.New("loadgen: duration must be positive")
	}
	if cfg.Warmup < 0 {
		return nil, errors.New("loadgen: warm-up must not be negative")
	}
	if cfg.Rate <= 0 && cfg.Concurrency <= 0 {
		return nil, errors.New("loadgen: set a rate (open loop) or a concurrency (closed loop)")
	}
	if cfg.ExpectStatus == 0 {
		cfg.ExpectStatus = http.StatusOK
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 10000
	}
	g := &gen{cfg: cfg, client: cfg.Client, expect: strconv.Itoa(cfg.ExpectStatus)}
	for _, t := range cfg.Targets {
		method := t.Method
		if method == "" {
			method = http.MethodGet
		}
		req, err := http.NewRequest(method, t.URL, nil)
		if err != nil {
			return nil, fmt.Errorf("loadgen: %w", err)
		}
		for k, v := range t.Header {
			req.Header[k] = v
		}
		g.reqs = append(g.reqs, req)
	}
	if g.client == nil {
		g.client = NewClient(cfg.Concurrency, cfg.Timeout)
		if cfg.Rate > 0 {
			g.client = NewClient(min(cfg.MaxInFlight, 1024), cfg.Timeout)
		}
		// The run's own connections end with it rather than linger on the server.
		defer g.client.CloseIdleConnections()
	}
	if cfg.Rate > 0 {
		return g.open(ctx)
	}
	return g.closed(ctx)
}

type gen struct {
	cfg    Config
	client *http.Client
	reqs   []*http.Request
	expect string
}

// open runs the open loop.
func (g *gen) open(ctx context.Context) (*Result, error) {
	var rec recorder
	sched := Schedule{Start: time.Now().Add(10 * time.Millisecond), Rate: g.cfg.Rate}
	first, total := sched.Count(g.cfg.Warmup), sched.Count(g.cfg.Warmup+g.cfg.Duration)
	sem := make(chan struct{}, g.cfg.MaxInFlight)
	var wg sync.WaitGroup
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var err error
loop:
	for i := range total {
		at := sched.At(i)
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				err = ctx.Err()
				break loop
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
		lag := time.Since(at)
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			status, n, ok := g.do(ctx, g.reqs[i%len(g.reqs)])
			end := time.Now()
			if i >= first {
				rec.add(i, end.Sub(at), lag, status, ok, n, end)
			}
		}()
	}
	wg.Wait()
	r := rec.result(sched.At(first), sched.At(first).Add(g.cfg.Duration), true)
	r.Mode, r.Rate = "open", g.cfg.Rate
	r.Duration, r.Warmup = g.cfg.Duration, g.cfg.Warmup
	return r, err
}

// closed runs the closed loop.
func (g *gen) closed(ctx context.Context) (*Result, error) {
	var rec recorder
	start := time.Now()
	measureStart := start.Add(g.cfg.Warmup)
	end := measureStart.Add(g.cfg.Duration)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for w := range g.cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				i := next.Add(1) - 1
				status, n, ok := g.do(ctx, g.reqs[i%uint64(len(g.reqs))])
				t1 := time.Now()
				if !t0.Before(measureStart) {
					rec.add(w, t1.Sub(t0), -1, status, ok, n, t1)
				}
			}
		}()
	}
	wg.Wait()
	r := rec.result(measureStart, end, false)
	r.Mode, r.Concurrency = "closed", g.cfg.Concurrency
	r.Duration, r.Warmup = g.cfg.Duration, g.cfg.Warmup
	return r, ctx.Err()
}

// do sends one request and reads its whole answer.
func (g *gen) do(ctx context.Context, base *http.Request) (status string, n int64, ok bool) {
	resp, err := g.client.Do(base.Clone(ctx))
	if err != nil {
		return "error: " + classify(err), 0, false
	}
	n, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return "error: reading the body: " + classify(err), n, false
	}
	status = strconv.Itoa(resp.StatusCode)
	return status, n, status == g.expect
}

// classify names a transport error without the details (ports, URLs) that would make every
// occurrence a category of its own.
func classify(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no local address (ephemeral ports exhausted?)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed early (EOF)"
	}
	var urlErr interface{ Unwrap() error }
	if errors.As(err, &urlErr) && urlErr.Unwrap() != nil {
		err = urlErr.Unwrap()
	}
	msg := err.Error()
	if len(msg) > 80 {
		msg = msg[:80] + "..."
	}
	return msg
}

// recorder collects measurements from many goroutines, in shards to keep them from queueing on
// one lock.
type recorder struct {
	shards [64]shard
}

type shard struct {
	mu       sync.Mutex
	lat, lag []time.Duration
	status   map[string]int
	ok       int
	bytes    int64
	lastEnd  time.Time
}

func (r *recorder) add(i int, latency, lag time.Duration, status string, ok bool, n int64, end time.Time) {
	s := &r.shards[i%len(r.shards)]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat = append(s.lat, latency)
	if lag >= 0 {
		s.lag = append(s.lag, lag)
	}
	if s.status == nil {
		s.status = map[string]int{}
	}
	s.status[status]++
	if ok {
		s.ok++
	}
	s.bytes += n
	if end.After(s.lastEnd) {
		s.lastEnd = end
	}
}

func (r *recorder) result(measureStart, end time.Time, withLag bool) *Result {
	res := &Result{Status: map[string]int{}}
	var lat, lag []time.Duration
	last := end
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		lat = append(lat, s.lat...)
		lag = append(lag, s.lag...)
		for k, v := range s.status {
			res.Status[k] += v
		}
		res.OK += s.ok
		res.Bytes += s.bytes
		if s.lastEnd.After(last) {
			last = s.lastEnd
		}
		s.mu.Unlock()
	}
	res.Requests = len(lat)
	res.Errors = res.Requests - res.OK
	res.Elapsed = last.Sub(measureStart)
	if res.Elapsed > 0 {
		res.Throughput = float64(res.Requests) / res.Elapsed.Seconds()
	}
	res.Latency = Summarize(lat)
	if withLag {
		res.SendLag = Summarize(lag)
	}
	return res
}
