package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Health is the database as the HTTP layer sees it: whether it answers a ping (readiness), and
// whether an error says it could not be reached. The HTTP layer imports no driver package, so
// the knowledge of PostgreSQL's and pgx's errors stays here.
type Health struct {
	DB interface {
		PingContext(ctx context.Context) error
	}
}

// PingContext pings the database.
func (h Health) PingContext(ctx context.Context) error { return h.DB.PingContext(ctx) }

// Unreachable is the package's Unreachable, for the HTTP layer's error handler.
func (Health) Unreachable(err error) bool { return Unreachable(err) }

// Unreachable reports whether err says the database could not be reached, or dropped the
// connection, rather than that a statement was wrong: the connection was refused, reset or
// closed, the server is shutting down or starting, it has no connection slot left, or the
// request's time ran out waiting for it. Such an error is the service being unavailable (503,
// worth a retry), never a bug (500), even when the database is back by the time it is answered.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
			"53300": // too_many_connections
			return true
		}
		// Class 08: connection exception.
		return len(pgErr.Code) == 5 && pgErr.Code[:2] == "08"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr):
		return true
	case pgconn.Timeout(err), pgconn.SafeToRetry(err):
		// pgconn.Timeout: the context ended while waiting for the database; SafeToRetry: the
		// statement never reached it.
		return true
	}
	for _, target := range []error{driver.ErrBadConn, sql.ErrConnDone, pgconn.ErrConnClosed, io.EOF,
		io.ErrUnexpectedEOF, net.ErrClosed, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE,
		context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
