package httpkit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// An error that says the database dropped the connection is 503 even when the database answers
// the ping by the time the error is handled: at the edge of an outage, never 500.
func TestALostConnectionIs503AfterTheDatabaseIsBack(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	handler := ErrorHandler(slog.New(slog.NewJSONHandler(&logs, nil)), func(c echo.Context, e *Error) error {
		return c.JSON(e.Status, map[string]string{"code": e.Code})
	}, tellingPinger{})
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest("GET", "/x", nil), rec)
	handler(fmt.Errorf("get job: %w", errConnectionLost), c)
	require.Equal(t, 503, rec.Code)
	require.Contains(t, rec.Body.String(), CodeServiceUnavailable)
	require.Equal(t, "5", rec.Header().Get(HeaderRetryAfter))
}

// errConnectionLost stands for a driver's error that says the connection was lost.
var errConnectionLost = errors.New("terminating connection due to administrator command")

// tellingPinger answers pings, and tells errConnectionLost for an outage, as postgres.Health
// tells PostgreSQL's.
type tellingPinger struct{ pinger }

func (tellingPinger) Unreachable(err error) bool { return errors.Is(err, errConnectionLost) }
