package loadgen

import (
	"math"
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0 <= p <= 100) of sorted, which must be in ascending
// order, by the nearest-rank method: the smallest recorded value that at least p percent of the
// values are less than or equal to. It is always one of the recorded values, never an
// interpolation, so p100 is the maximum and p0 the minimum. An empty slice gives 0.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	// rank = ceil(p/100 * n), less a relative hair so that a floating-point excess does not
	// move it up one: p99 of 100 values is the 99th value, though 99*100/100.0 may round up.
	x := p * float64(n) / 100
	rank := int(math.Ceil(x - x*1e-12))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// Latency summarises a set of recorded durations.
type Latency struct {
	Min, Mean, P50, P90, P99, P999, Max time.Duration
}

// Summarize sorts durations in place and returns their summary.
func Summarize(durations []time.Duration) Latency {
	if len(durations) == 0 {
		return Latency{}
	}
	slices.Sort(durations)
	var sum time.Duration
	for _, d := range durations {
		sum += d
	}
	return Latency{
		Min:  durations[0],
		Mean: sum / time.Duration(len(durations)),
		P50:  Percentile(durations, 50),
		P90:  Percentile(durations, 90),
		P99:  Percentile(durations, 99),
		P999: Percentile(durations, 99.9),
		Max:  durations[len(durations)-1],
	}
}

// Schedule is the send times of an open-loop run: request i (from 0) is due at
// Start + i/Rate seconds, whatever happened to the requests before it.
type Schedule struct {
	Start time.Time
	Rate  float64 // requests per second, > 0
}

// At returns when request i is due. It is computed from i directly rather than by adding an
// interval, so rounding does not accumulate over a long run.
func (s Schedule) At(i int) time.Time {
	return s.Start.Add(s.Offset(i))
}

// Offset returns how long after Start request i is due.
func (s Schedule) Offset(i int) time.Duration {
	return time.Duration(math.Round(float64(i) * float64(time.Second) / s.Rate))
}

// Count returns how many requests are due in the first d of the schedule: those with
// Offset(i) < d.
func (s Schedule) Count(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	n := int(math.Ceil(d.Seconds() * s.Rate))
	// Correct for floating-point error at the edge: the definition is Offset(i) < d.
	for n > 0 && s.Offset(n-1) >= d {
		n--
	}
	for s.Offset(n) < d {
		n++
	}
	return n
}
