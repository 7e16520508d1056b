package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

func TestUnreachable(t *testing.T) {
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
			require.Equal(t, tt.want, Unreachable(tt.err))
		})
	}
}
