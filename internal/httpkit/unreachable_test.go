package httpkit

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

func TestDatabaseUnreachable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "connection refused", Addr: "127.0.0.1:5432"}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a plain bug", errors.New("scan: converting NULL to string"), false},
		{"a constraint violation", &pgconn.PgError{Code: "23505"}, false},
		{"a syntax error", fmt.Errorf("get job: %w", &pgconn.PgError{Code: "42601"}), false},
		{"terminated by an administrator", fmt.Errorf("get job: %w", &pgconn.PgError{Code: "57P01"}), true},
		{"the server crashed", &pgconn.PgError{Code: "57P02"}, true},
		{"the server is starting", &pgconn.PgError{Code: "57P03"}, true},
		{"no connection slot left", &pgconn.PgError{Code: "53300"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"a dial refused", fmt.Errorf("take: %w", refused), true},
		{"connection refused errno", fmt.Errorf("x: %w", syscall.ECONNREFUSED), true},
		{"connection reset", fmt.Errorf("x: %w", syscall.ECONNRESET), true},
		{"a closed connection", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{"database/sql's bad connection", fmt.Errorf("x: %w", driver.ErrBadConn), true},
		{"the socket closed mid-answer", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"the request's time ran out", fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{"the client went away", fmt.Errorf("x: %w", context.Canceled), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, DatabaseUnreachable(tt.err))
		})
	}
}

// An error that says the database dropped the connection is 503 even when the database answers
// the ping by the time the error is handled: at the edge of an outage, never 500.
func TestALostConnectionIs503AfterTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	handler := ErrorHandler(slog.New(slog.NewJSONHandler(&logs, nil)), func(c echo.Context, e *Error) error {
		return c.JSON(e.Status, map[string]string{"code": e.Code})
	}, pinger{})
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest("GET", "/x", nil), rec)
	handler(fmt.Errorf("get job: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}), c)
	require.Equal(t, 503, rec.Code)
	require.Contains(t, rec.Body.String(), CodeServiceUnavailable)
	require.Equal(t, "5", rec.Header().Get(HeaderRetryAfter))
}
