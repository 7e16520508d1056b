package webhook

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultEndpointConcurrency is how many attempts one process makes to one endpoint at once. A
// slow or hanging endpoint then holds at most this many of the process's delivery workers, each
// for at most the attempt timeout, and the other workers keep delivering to every other
// endpoint on time.
const DefaultEndpointConcurrency = 2

// busyEndpointWait is about how long a delivery waits whose endpoint already has every attempt
// this process allows in flight; it then tries again, and no attempt is counted.
const busyEndpointWait = time.Second

// endpointSlots counts the attempts in flight per endpoint in this process.
type endpointSlots struct {
	mu       sync.Mutex
	inFlight map[uuid.UUID]int
}

// acquire takes one of endpoint's limit slots, and reports false when all are taken.
func (s *endpointSlots) acquire(endpoint uuid.UUID, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == nil {
		s.inFlight = map[uuid.UUID]int{}
	}
	if s.inFlight[endpoint] >= limit {
		return false
	}
	s.inFlight[endpoint]++
	return true
}

// release gives back a slot acquire took.
func (s *endpointSlots) release(endpoint uuid.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight[endpoint]--; s.inFlight[endpoint] <= 0 {
		delete(s.inFlight, endpoint)
	}
}

// busyRetry is when a delivery whose endpoint is busy tries again: busyEndpointWait, plus up to
// as much again at random, so that the waiting deliveries do not all come back at once.
func busyRetry(now time.Time) time.Time {
	return now.Add(busyEndpointWait + rand.N(busyEndpointWait))
}
