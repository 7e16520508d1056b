package logdedup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the records written so far as maps.
func (l *lockedBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

func TestRepeatsAreCountedNotWritten(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	var buf lockedBuffer
	logger := slog.New(New(slog.NewJSONHandler(&buf, nil), interval)).With("service", "statementd")
	queue := logger.With("component", "queue")

	for range 3 {
		logger.Info("request", "status", 200) // below Warn: always written
	}
	for range 500 {
		queue.Error("producer: error fetching jobs", "error", "connection refused")
	}
	queue.Error("producer: error fetching jobs", "error", "timeout")           // another attribute value
	logger.Error("producer: error fetching jobs", "error", "timeout")          // another handler's attributes
	queue.Warn("producer: error fetching jobs", "error", "connection refused") // another level

	got := buf.lines(t)
	require.Len(t, got, 7, "three requests and one line per distinct warning or error")
	for _, m := range got {
		require.NotContains(t, m, "repeated")
	}

	require.Eventually(t, func() bool { return len(buf.lines(t)) == 8 }, 5*interval, 10*time.Millisecond, "one summary once the interval is over")
	summary := buf.lines(t)[7]
	require.Equal(t, "producer: error fetching jobs", summary["msg"])
	require.Equal(t, "ERROR", summary["level"])
	require.Equal(t, "queue", summary["component"])
	require.Equal(t, "statementd", summary["service"])
	require.Equal(t, "connection refused", summary["error"])
	require.EqualValues(t, 499, summary["repeated"])
	require.Equal(t, interval.String(), summary["within"])

	time.Sleep(2 * interval)
	require.Len(t, buf.lines(t), 8, "records written once have nothing to summarize")

	queue.Error("producer: error fetching jobs", "error", "connection refused")
	require.Len(t, buf.lines(t), 9, "after the interval the error is written in full again")
	require.NotContains(t, buf.lines(t)[8], "repeated")
}

func TestGroupsAreTold(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	h := New(slog.NewJSONHandler(&buf, nil), time.Minute)
	slog.New(h).WithGroup("a").Error("failed", "x", 1)
	slog.New(h).WithGroup("b").Error("failed", "x", 1)
	slog.New(h).WithGroup("b").Error("failed", "x", 1)
	require.Len(t, buf.lines(t), 2)
}

// TestRequestsFailingAlikeAreRepeats: during an outage every request fails with the same error;
// their ids differ, and are no reason to write each one. The first is written with its id; the
// summary holds none.
func TestRequestsFailingAlikeAreRepeats(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	logger := slog.New(New(slog.NewJSONHandler(&buf, nil), 100*time.Millisecond))
	for i := range 50 {
		logger.Error("request failed", "request_id", fmt.Sprint("req-", i), "status", 503, "error", "connection refused")
	}
	logger.Error("request failed", "request_id", "req-x", "status", 500, "error", "boom")
	got := buf.lines(t)
	require.Len(t, got, 2)
	require.Equal(t, "req-0", got[0]["request_id"])
	require.Eventually(t, func() bool { return len(buf.lines(t)) == 3 }, time.Second, 10*time.Millisecond)
	summary := buf.lines(t)[2]
	require.EqualValues(t, 49, summary["repeated"])
	require.NotContains(t, summary, "request_id")
	require.EqualValues(t, 503, summary["status"])
}

func TestFlushWritesPendingSummaries(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	h := New(slog.NewJSONHandler(&buf, nil), time.Hour)
	logger := slog.New(h)
	for range 3 {
		logger.Warn("slow", "what", "disk")
	}
	logger.Warn("once")
	h.Flush()
	got := buf.lines(t)
	require.Len(t, got, 3, "the two records and one summary")
	require.EqualValues(t, 2, got[2]["repeated"])
	h.Flush()
	require.Len(t, buf.lines(t), 3, "a summary is written once")
}
