package listen

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestListenerTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("zero timeouts are the defaults", func(t *testing.T) {
		t.Parallel()
		l := &Listener{Name: "test", Addr: "127.0.0.1:0", Handler: http.NotFoundHandler(), Logger: slog.New(slog.DiscardHandler)}
		require.NoError(t, l.Listen())
		defer l.ln.Close()
		require.Equal(t, DefaultReadHeaderTimeout, l.server.ReadHeaderTimeout)
		require.Equal(t, DefaultReadTimeout, l.server.ReadTimeout)
		require.Equal(t, DefaultIdleTimeout, l.server.IdleTimeout)
	})
	t.Run("a client slower than the timeouts has its connection closed", func(t *testing.T) {
		t.Parallel()
		l := &Listener{Name: "test", Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler),
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, err := io.Copy(io.Discard, r.Body)
				if err != nil {
					w.WriteHeader(http.StatusBadRequest)
				}
			}),
			Timeouts: Timeouts{ReadHeader: 200 * time.Millisecond, Read: 400 * time.Millisecond, Idle: 300 * time.Millisecond}}
		require.NoError(t, l.Listen())
		go func() { _ = l.Serve() }()
		defer func() { _ = l.Shutdown(context.Background()) }()

		// closedAfter sends first on a new connection, then waits for the server to close it.
		closedAfter := func(first string) time.Duration {
			conn, err := net.Dial("tcp", l.Bound())
			require.NoError(t, err)
			defer conn.Close()
			start := time.Now()
			_, err = io.WriteString(conn, first)
			require.NoError(t, err)
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			_, err = io.Copy(io.Discard, conn)
			require.NoError(t, err, "the server closed the connection before the test's deadline")
			return time.Since(start)
		}
		const post = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
		for name, first := range map[string]string{
			"nothing sent":         "",
			"half a header":        "POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ",
			"half a body":          post + "abc",
			"idle after a request": "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		} {
			took := closedAfter(first)
			t.Logf("%s: closed after %v", name, took)
			require.Less(t, took, 2*time.Second, name)
			require.GreaterOrEqual(t, took, 150*time.Millisecond, name)
		}
	})
}
