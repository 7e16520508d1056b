package httpkit

import (
	"context"
	"io"
	"net/http"
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

// Liveness answers the operator and dashboard listeners' GET /healthz: the process is up.
func Liveness(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
}

// Readiness returns the operator and dashboard listeners' GET /readyz: 200 while db answers a
// ping, 503 otherwise; a nil db is always ready.
func Readiness(db Pinger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if db != nil && !Ready(r.Context(), db) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"status":"unavailable","database":"unreachable"}`+"\n")
			return
		}
		_, _ = io.WriteString(w, `{"status":"ready","database":"ok"}`+"\n")
	}
}
