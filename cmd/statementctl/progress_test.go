package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPlainProgressWritesFewLines(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 3, 5, 14, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	a := &app{stderr: &out, now: func() time.Time { return clock }, plainProgressAt: 5 * time.Second}
	p := a.startProgress("job 3f6c")
	steps := []struct {
		after  time.Duration
		status string
	}{
		{0, "queued"},
		{time.Second, "queued"},     // the same state a second later: no line
		{4 * time.Second, "queued"}, // 5 s after the last line: a line
		{time.Second, "processing"}, // a new state: a line at once
		{time.Second, "processing"},
		{time.Second, "processing"},
	}
	for _, s := range steps {
		clock = clock.Add(s.after)
		p.update(s.status)
	}
	clock = clock.Add(1500 * time.Millisecond)
	p.finish("completed")
	require.Equal(t, "job 3f6c queued (0s)\njob 3f6c queued (5s)\njob 3f6c processing (6s)\njob 3f6c completed in 10s\n", out.String())
}

func TestTerminalProgressRewritesOneLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	start := time.Date(2026, 3, 5, 14, 0, 0, 0, time.UTC)
	a := &app{stderr: &out, stderrTerminal: true, now: func() time.Time { return start }}
	p := a.startProgress("job 3f6c")
	p.update("processing")
	time.Sleep(3 * spinnerTick)
	p.finish("completed")

	got := out.String()
	require.True(t, strings.HasPrefix(got, "\r\x1b[K⠋ job 3f6c "), "the spinner draws at once: %q", got)
	require.Contains(t, got, "job 3f6c processing 0s", "the state and the time elapsed")
	require.True(t, strings.HasSuffix(got, "\r\x1b[Kjob 3f6c completed in 0s\n"), "the line is cleared, then the outcome stays: %q", got)
	require.Equal(t, 1, strings.Count(got, "\n"), "one line in the end")
}

func TestEndLeavesNoLineBehind(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	a := &app{stderr: &out, stderrTerminal: true, now: time.Now}
	p := a.startProgress("job 3f6c")
	p.end()
	p.end() // twice is harmless
	require.True(t, strings.HasSuffix(out.String(), "\r\x1b[K"))
	require.NotContains(t, out.String(), "\n")
}
