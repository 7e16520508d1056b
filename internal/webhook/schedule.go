package webhook

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultSchedule is when failed deliveries are retried, as offsets from the first attempt: the
// documented schedule of about a day (STATEMENTD_WEBHOOK_RETRY_SCHEDULE may replace it).
var DefaultSchedule = Schedule{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}

// MaxJitter is the largest share of an offset by which a retry is postponed, so that the
// retries of many deliveries that failed together (an endpoint outage) do not arrive together.
const MaxJitter = 0.10

// Schedule lists when retries of a failed delivery are due, as offsets from the first attempt,
// strictly increasing. A delivery is attempted once plus once per offset, then given up.
type Schedule []time.Duration

// ParseSchedule reads a schedule such as "5s,5m,30m,2h": Go durations, comma-separated, each
// positive and later than the one before.
func ParseSchedule(s string) (Schedule, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("the retry schedule is empty; give offsets such as 5s,5m,30m")
	}
	var out Schedule
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		d, err := time.ParseDuration(item)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("retry offset %q is not a positive duration such as 5m", item)
		}
		if len(out) > 0 && d <= out[len(out)-1] {
			return nil, fmt.Errorf("retry offset %s is not later than %s before it", item, out[len(out)-1])
		}
		out = append(out, d)
	}
	return out, nil
}

// String returns the schedule as ParseSchedule reads it.
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// Next returns when the next attempt of a delivery is due after its attempts-th attempt failed
// (attempts counts the attempts made, the first included), and false when the schedule is used
// up and the delivery is given up. The due time is the first attempt's time plus the offset,
// postponed by jitter (from 0 to 1, scaled to MaxJitter of the offset), and never earlier than
// the failed answer's Retry-After asked (retryAfter after failedAt).
func (s Schedule) Next(first time.Time, attempts int, jitter float64, failedAt time.Time, retryAfter time.Duration) (time.Time, bool) {
	if attempts < 1 || attempts > len(s) {
		return time.Time{}, false
	}
	offset := s[attempts-1]
	jitter = min(max(jitter, 0), 1)
	due := first.Add(offset + time.Duration(float64(offset)*MaxJitter*jitter))
	if retryAfter > 0 && failedAt.Add(retryAfter).After(due) {
		due = failedAt.Add(retryAfter)
	}
	return due, true
}
