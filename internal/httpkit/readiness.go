package httpkit

import (
	"context"
	"time"
)

// Pinger is what readiness needs of the database.
type Pinger interface {
	PingContext(ctx context.Context) error
}

// readinessTimeout bounds a readiness probe, so a hung database makes the probe fail rather than
// hang the prober.
const readinessTimeout = 2 * time.Second

// Ready reports whether db answers a ping within the readiness timeout. The readiness endpoints
// (/readyz of each API and of the operator listener) ask it, and so does ErrorHandler before it
// calls an unexpected error a bug.
func Ready(ctx context.Context, db Pinger) bool {
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	return db.PingContext(ctx) == nil
}
