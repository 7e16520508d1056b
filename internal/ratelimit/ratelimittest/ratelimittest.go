// Package ratelimittest has an in-memory ratelimit.FailureStore for the tests of the packages
// that count attempts; internal/postgres tests the real store.
package ratelimittest

import (
	"context"
	"sync"
	"time"
)

// Failures counts attempts per key and window in memory, safe for concurrent use.
type Failures struct {
	mu sync.Mutex
	n  map[string]int
}

// AddFailure counts one more attempt and returns the window's count.
func (m *Failures) AddFailure(_ context.Context, key string, start time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[string]int{}
	}
	m.n[key+start.String()]++
	return m.n[key+start.String()], nil
}

// RemoveFailure takes one count back, never below zero, and returns the window's count.
func (m *Failures) RemoveFailure(_ context.Context, key string, start time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n[key+start.String()] > 0 {
		m.n[key+start.String()]--
	}
	return m.n[key+start.String()], nil
}

// Keys returns the keys counted so far, each followed by its window.
func (m *Failures) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.n {
		out = append(out, k)
	}
	return out
}
