// Package logdedup keeps a failing dependency from flooding the log: a warning or error that
// repeats one written less than an interval ago (same level, message and attributes; the time
// aside) is counted instead of written, and once the interval is over one line says how many
// times it repeated. Attributes that differ on every occurrence (a request's id) do not count
// as a difference. During a database outage the job queue's poller fails every few
// milliseconds with the same error; the log gets that error once a minute with its count,
// rather than thousands of identical lines. Records below Warn, such as the access log's one
// line per request, always pass.
package logdedup

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// perOccurrence are the attributes that differ on every occurrence of one failure: the id of the
// request that met it, and the attempt number and wait of a retry loop (the job queue's, the
// embedded cluster's restarts). They are left out of the comparison, so the failures of many
// requests, or many retries, count as repeats. The first occurrence is written with its own.
var perOccurrence = map[string]bool{"request_id": true, "attempt": true, "sleep_duration": true, "retry_in": true}

// DefaultInterval is how long a written warning or error silences its repeats.
const DefaultInterval = time.Minute

// maxTracked bounds the records remembered at once; past it, new kinds pass uncounted.
const maxTracked = 10_000

// Handler wraps another slog.Handler (see the package documentation).
type Handler struct {
	next   slog.Handler
	prefix string // the attributes and groups of WithAttrs and WithGroup, as part of the key
	state  *state
}

type state struct {
	interval time.Duration
	mu       sync.Mutex
	seen     map[string]*window
}

// window is one written record and the repeats counted since.
type window struct {
	until   time.Time
	repeats int
	// record and handler write the summary: the first record again, with its count.
	record  slog.Record
	handler slog.Handler
	timer   *time.Timer
}

// New returns a Handler in front of next that silences repeats for interval.
func New(next slog.Handler, interval time.Duration) *Handler {
	return &Handler{next: next, state: &state{interval: interval, seen: map[string]*window{}}}
}

// Enabled reports whether next handles level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// WithAttrs returns a Handler whose records carry as; repeats are counted per distinct set.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range as {
		writeAttr(&b, a)
	}
	return &Handler{next: h.next.WithAttrs(as), prefix: b.String(), state: h.state}
}

// WithGroup returns a Handler whose records' attributes go into group name.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), prefix: h.prefix + "[" + name + "]", state: h.state}
}

// Handle writes r, unless it is a warning or error that repeats one written within the interval:
// then it is only counted.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	key := h.key(r)
	s := h.state
	s.mu.Lock()
	if w, ok := s.seen[key]; ok && r.Time.Before(w.until) {
		w.repeats++
		if w.timer == nil {
			w.timer = time.AfterFunc(w.until.Sub(r.Time), func() { s.summarize(key, w) })
		}
		s.mu.Unlock()
		return nil
	}
	if len(s.seen) < maxTracked {
		s.seen[key] = &window{until: r.Time.Add(s.interval), record: r.Clone(), handler: h.next}
	} else {
		s.prune(r.Time)
	}
	s.mu.Unlock()
	return h.next.Handle(ctx, r)
}

// summarize writes, once w's interval is over, how many times its record repeated, and forgets
// it, so that the next occurrence is written in full.
func (s *state) summarize(key string, w *window) {
	s.mu.Lock()
	if s.seen[key] == w {
		delete(s.seen, key)
	}
	repeats := w.repeats
	s.mu.Unlock()
	r := slog.NewRecord(time.Now(), w.record.Level, w.record.Message, 0)
	w.record.Attrs(func(a slog.Attr) bool {
		if !perOccurrence[a.Key] {
			r.AddAttrs(a)
		}
		return true
	})
	r.AddAttrs(slog.Int("repeated", repeats), slog.String("within", s.interval.String()))
	_ = w.handler.Handle(context.Background(), r)
}

// Flush writes the summaries of every record repeated so far, without waiting for their
// intervals to end: a process calls it as it exits, so that no count is lost.
func (h *Handler) Flush() {
	s := h.state
	s.mu.Lock()
	pending := map[string]*window{}
	for key, w := range s.seen {
		if w.timer != nil && w.timer.Stop() {
			pending[key] = w
		}
	}
	s.mu.Unlock()
	for key, w := range pending {
		s.summarize(key, w)
	}
}

// prune forgets the windows that are over and have nothing to summarize.
func (s *state) prune(now time.Time) {
	for key, w := range s.seen {
		if !now.Before(w.until) && w.timer == nil {
			delete(s.seen, key)
		}
	}
}

// key identifies a record for counting: its level, message and attributes, the handler's
// included, and not its time or its perOccurrence attributes.
func (h *Handler) key(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Level.String())
	b.WriteByte(0)
	b.WriteString(r.Message)
	b.WriteByte(0)
	b.WriteString(h.prefix)
	r.Attrs(func(a slog.Attr) bool {
		if !perOccurrence[a.Key] {
			writeAttr(&b, a)
		}
		return true
	})
	return b.String()
}

func writeAttr(b *strings.Builder, a slog.Attr) {
	b.WriteString(a.Key)
	b.WriteByte('=')
	b.WriteString(a.Value.Resolve().String())
	b.WriteByte(0)
}
