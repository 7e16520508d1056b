package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinnerFrames are drawn in turn, one per spinnerTick, on a terminal.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinnerTick = 100 * time.Millisecond

// progress shows a job being waited for on stderr. On a terminal it is one line, rewritten in
// place, with a spinner and the time elapsed. Otherwise (a log, a CI job) it writes a plain line
// when the state changes and at most one every few seconds while it does not, so logs stay
// short.
type progress struct {
	w        io.Writer
	terminal bool
	every    time.Duration // least time between two plain lines of one state
	now      func() time.Time
	label    string // "job 3f6c2a9e-..."
	start    time.Time

	mu        sync.Mutex
	status    string
	printed   string // status of the last plain line
	printedAt time.Time
	stop      chan struct{}
	done      chan struct{}
}

// startProgress starts showing the wait for the job named label.
func (a *app) startProgress(label string) *progress {
	p := &progress{w: a.stderr, terminal: a.stderrTerminal, every: a.plainProgressAt, now: a.now,
		label: label, start: a.now(), status: "waiting"}
	if p.terminal {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.spin()
	}
	return p
}

// update records a state read from the service; a final state goes to finish instead.
func (p *progress) update(status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = status
	if p.terminal {
		return
	}
	now := p.now()
	if status != p.printed || now.Sub(p.printedAt) >= p.every {
		fmt.Fprintf(p.w, "%s %s (%s)\n", p.label, status, elapsed(now.Sub(p.start)))
		p.printed, p.printedAt = status, now
	}
}

// finish ends the display with the job's final state.
func (p *progress) finish(status string) {
	p.end()
	fmt.Fprintf(p.w, "%s %s in %s\n", p.label, status, elapsed(p.now().Sub(p.start)))
}

// end stops the display, leaving no half-drawn line behind.
func (p *progress) end() {
	if !p.terminal || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.stop = nil
	fmt.Fprint(p.w, "\r\033[K")
}

// spin redraws the terminal line until end.
func (p *progress) spin() {
	defer close(p.done)
	t := time.NewTicker(spinnerTick)
	defer t.Stop()
	for frame := 0; ; frame++ {
		p.mu.Lock()
		fmt.Fprintf(p.w, "\r\033[K%s %s %s %s", spinnerFrames[frame%len(spinnerFrames)], p.label, p.status, elapsed(p.now().Sub(p.start)))
		p.mu.Unlock()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// elapsed rounds a duration to whole seconds for display: "0s", "42s", "1m5s".
func elapsed(d time.Duration) string {
	return d.Round(time.Second).String()
}
