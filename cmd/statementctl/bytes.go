package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// byteMeter shows the bytes of one upload or download on a terminal's stderr: one line,
// rewritten in place at most every meterTick, "uploading march.pdf  1.2 MB of 3.4 MB  35 %",
// and left on screen when the transfer ends. Off a terminal there is no meter (nil), so logs
// and pipes get no control characters.
type byteMeter struct {
	w     io.Writer
	label string
	total int64 // -1 when unknown
	now   func() time.Time

	mu      sync.Mutex
	done    int64
	drawnAt time.Time
	drawn   bool
}

const meterTick = 100 * time.Millisecond

// newByteMeter returns the meter of a transfer of total bytes (-1: unknown) named label, or nil
// when stderr is not a terminal. Its methods do nothing on nil.
func (a *app) newByteMeter(label string, total int64) *byteMeter {
	if !a.stderrTerminal {
		return nil
	}
	return &byteMeter{w: a.stderr, label: label, total: total, now: a.now}
}

// restart counts from zero again: a retried upload sends its body anew.
func (m *byteMeter) restart() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.done = 0
	m.mu.Unlock()
}

// add counts n more bytes and redraws when the last drawing is old enough.
func (m *byteMeter) add(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done += int64(n)
	if now := m.now(); !m.drawn || now.Sub(m.drawnAt) >= meterTick {
		m.draw()
		m.drawnAt, m.drawn = now, true
	}
}

// finish draws the final count and ends the line.
func (m *byteMeter) finish() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.draw()
	fmt.Fprintln(m.w)
}

func (m *byteMeter) draw() {
	if m.total > 0 {
		fmt.Fprintf(m.w, "\r\033[K%s  %s of %s  %d %%", m.label, humanBytes(m.done), humanBytes(m.total), min(100, m.done*100/m.total))
		return
	}
	fmt.Fprintf(m.w, "\r\033[K%s  %s", m.label, humanBytes(m.done))
}

// reader counts what r gives.
func (m *byteMeter) reader(r io.Reader) io.Reader {
	if m == nil {
		return r
	}
	return &meteredReader{r: r, m: m}
}

type meteredReader struct {
	r io.Reader
	m *byteMeter
}

func (r *meteredReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.m.add(n)
	return n, err
}

// humanBytes writes a byte count in B, kB, MB or GB (powers of 1000), one decimal past kB.
func humanBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}

// uploadMeterKey carries the meter of an upload in the request's context to the transport,
// which counts the body as it is written to the connection (what the SDK prepares beforehand
// is not progress).
type uploadMeterKey struct{}

// withUploadMeter makes the requests of ctx whose body is m.total bytes long count into m.
func withUploadMeter(ctx context.Context, m *byteMeter) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, uploadMeterKey{}, m)
}

// metering counts the body of the upload its context names.
type metering struct{ next http.RoundTripper }

func (t metering) RoundTrip(req *http.Request) (*http.Response, error) {
	if m, ok := req.Context().Value(uploadMeterKey{}).(*byteMeter); ok && req.Body != nil && req.ContentLength == m.total {
		m.restart()
		req = req.Clone(req.Context())
		req.Body = meteredBody{Reader: m.reader(req.Body), Closer: req.Body}
	}
	return t.next.RoundTrip(req)
}

type meteredBody struct {
	io.Reader
	io.Closer
}
