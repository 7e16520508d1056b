package metrics

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/ratelimit"
)

func TestMetricsAreServed(t *testing.T) {
	t.Parallel()
	m := New()
	refused := m.ThrottleRefused(ThrottleTokenClient)
	refused()
	refused()
	m.RateLimited(ratelimit.Parse)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	text := string(body)
	for _, want := range []string{
		`statementd_throttle_refusals_total{throttle="token_client"} 2`,
		`statementd_throttle_refusals_total{throttle="token_client_address"} 0`,
		`statementd_throttle_refusals_total{throttle="anonymous"} 0`,
		`statementd_rate_limit_refusals_total{api="parse"} 1`,
		`statementd_rate_limit_refusals_total{api="recon"} 0`,
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		require.Contains(t, text, want)
	}
}
