package webhook

import (
	"net/http"
	"net/netip"
	"time"
)

// Transports returns the HTTP transports of the Sender (https and plain http), for tests.
func (s *Sender) Transports() []*http.Transport {
	return []*http.Transport{s.secure.Transport.(*http.Transport), s.plain.Transport.(*http.Transport)}
}

// Clients returns the HTTP clients of the Sender, for tests.
func (s *Sender) Clients() []*http.Client { return []*http.Client{s.secure, s.plain} }

// NonPublicKind exposes nonPublicKind to tests.
func NonPublicKind(a netip.Addr) string { return nonPublicKind(a) }

// ParseRetryAfter exposes parseRetryAfter to tests.
func ParseRetryAfter(v string, ref time.Time) time.Duration { return parseRetryAfter(v, ref) }
