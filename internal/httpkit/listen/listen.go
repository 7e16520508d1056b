// Package listen runs the process's HTTP listeners (the APIs' and the operator's): it binds each
// address before the process says it is up, and bounds how long a slow client may hold a
// connection (Timeouts), and serves HTTPS when given a Certificate (reloaded on SIGHUP by
// cmd/statementd). What runs behind a listener is its Handler: for the APIs, the echo
// pipeline of internal/httpkit.
package listen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// The default timeouts of a Listener: headers within 10 s, a whole request (an upload
// included) within 5 minutes, and idle keep-alive connections are closed after 2 minutes.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 5 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

// Timeouts bound how long a client may hold a connection; a zero field means its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers, Read reading the whole request, headers
	// and body: a client that sends slower has its connection closed.
	ReadHeader time.Duration
	Read       time.Duration
	// Idle bounds the wait for the next request on a keep-alive connection.
	Idle time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = DefaultReadHeaderTimeout
	}
	if t.Read <= 0 {
		t.Read = DefaultReadTimeout
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdleTimeout
	}
	return t
}

// Listener is one HTTP listener of the process.
type Listener struct {
	Name     string
	Addr     string
	Handler  http.Handler
	Logger   *slog.Logger
	Timeouts Timeouts
	// TLS, when set, makes the listener serve HTTPS with this certificate; nil: plain HTTP.
	TLS *Certificate

	server *http.Server
	ln     net.Listener
}

// Listen binds the listener's address, so that a port already in use is reported before the
// process claims to be up. Addr may use port 0; Bound tells the port chosen.
func (l *Listener) Listen() error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("listen %s on %s: %w", l.Name, l.Addr, err)
	}
	l.ln = ln
	t := l.Timeouts.withDefaults()
	l.server = &http.Server{
		Handler: l.Handler,
		// Slow clients must not hold connections (see Timeouts).
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(l.Logger.Handler(), slog.LevelWarn),
	}
	if l.TLS != nil {
		l.server.TLSConfig = l.TLS.config()
		// Not nil, so that Go does not add HTTP/2 on its own (see Certificate.config).
		l.server.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	return nil
}

// Bound returns the address the listener is bound to.
func (l *Listener) Bound() string { return l.ln.Addr().String() }

// Serve serves until Shutdown; it returns nil after a shutdown.
func (l *Listener) Serve() error {
	scheme, serve := "http", l.server.Serve
	if l.TLS != nil {
		scheme, serve = "https", func(ln net.Listener) error { return l.server.ServeTLS(ln, "", "") }
	}
	l.Logger.Info("listening", slog.String("listener", l.Name), slog.String("addr", l.Bound()), slog.String("scheme", scheme))
	if err := serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", l.Name, err)
	}
	return nil
}

// Shutdown stops accepting connections and waits for in-flight requests until ctx ends.
func (l *Listener) Shutdown(ctx context.Context) error {
	return l.server.Shutdown(ctx)
}
