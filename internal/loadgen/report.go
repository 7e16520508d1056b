package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Ms converts a duration to (fractional) milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Describe is a one-line description of the run's mode.
func (r *Result) Describe() string {
	if r.Mode == "open" {
		return fmt.Sprintf("open loop at %s req/s for %s (after %s warm-up); latency from each request's scheduled send time",
			strconv.FormatFloat(r.Rate, 'f', -1, 64), r.Duration, r.Warmup)
	}
	return fmt.Sprintf("closed loop of %d connections for %s (after %s warm-up); latency from each request's send",
		r.Concurrency, r.Duration, r.Warmup)
}

// StatusSummary lists the answers by status, most frequent first: "200: 14998, 429: 2".
func (r *Result) StatusSummary() string {
	keys := make([]string, 0, len(r.Status))
	for k := range r.Status {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if r.Status[a] != r.Status[b] {
			return r.Status[b] - r.Status[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, r.Status[k])
	}
	return strings.Join(parts, ", ")
}

// WriteText writes the readable report.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", r.Describe())
	fmt.Fprintf(&b, "requests     %d in %s: %d ok, %d errors\n", r.Requests, r.Elapsed.Round(time.Millisecond), r.OK, r.Errors)
	fmt.Fprintf(&b, "answers      %s\n", r.StatusSummary())
	fmt.Fprintf(&b, "throughput   %.1f req/s, %.2f MB/s of bodies\n", r.Throughput, float64(r.Bytes)/1e6/max(r.Elapsed.Seconds(), 1e-9))
	l := r.Latency
	fmt.Fprintf(&b, "latency ms   p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (min %.2f, mean %.2f)\n",
		Ms(l.P50), Ms(l.P90), Ms(l.P99), Ms(l.P999), Ms(l.Max), Ms(l.Min), Ms(l.Mean))
	if r.Mode == "open" {
		s := r.SendLag
		fmt.Fprintf(&b, "send lag ms  p50 %.2f  p99 %.2f  max %.2f  (how late the generator sent after the schedule)\n",
			Ms(s.P50), Ms(s.P99), Ms(s.Max))
	}
	if !r.Valid() {
		fmt.Fprintf(&b, "INVALID RUN: %d of %d requests were not answered as expected (%s)\n", r.Errors, r.Requests, r.StatusSummary())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latencyJSON is a Latency in milliseconds.
type latencyJSON struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

func latencyMs(l Latency) latencyJSON {
	return latencyJSON{Ms(l.Min), Ms(l.Mean), Ms(l.P50), Ms(l.P90), Ms(l.P99), Ms(l.P999), Ms(l.Max)}
}

// MarshalJSON writes the result with times in seconds (run) and milliseconds (latencies).
func (r *Result) MarshalJSON() ([]byte, error) {
	out := struct {
		Mode        string         `json:"mode"`
		Rate        float64        `json:"rate,omitempty"`
		Concurrency int            `json:"concurrency,omitempty"`
		DurationS   float64        `json:"duration_s"`
		WarmupS     float64        `json:"warmup_s"`
		ElapsedS    float64        `json:"elapsed_s"`
		Requests    int            `json:"requests"`
		OK          int            `json:"ok"`
		Errors      int            `json:"errors"`
		Status      map[string]int `json:"status"`
		Throughput  float64        `json:"throughput_rps"`
		Bytes       int64          `json:"bytes"`
		LatencyMs   latencyJSON    `json:"latency_ms"`
		SendLagMs   *latencyJSON   `json:"send_lag_ms,omitempty"`
		Valid       bool           `json:"valid"`
	}{
		Mode: r.Mode, Rate: r.Rate, Concurrency: r.Concurrency,
		DurationS: r.Duration.Seconds(), WarmupS: r.Warmup.Seconds(), ElapsedS: r.Elapsed.Seconds(),
		Requests: r.Requests, OK: r.OK, Errors: r.Errors, Status: r.Status,
		Throughput: r.Throughput, Bytes: r.Bytes, LatencyMs: latencyMs(r.Latency), Valid: r.Valid(),
	}
	if out.Status == nil {
		out.Status = map[string]int{}
	}
	if r.Mode == "open" {
		lag := latencyMs(r.SendLag)
		out.SendLagMs = &lag
	}
	return json.Marshal(out)
}
