package metrics

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/webhook"
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

func TestJobsRequestsAndDeliveriesAreCounted(t *testing.T) {
	t.Parallel()
	m := New()
	m.Request(APIParse, "/api/v1/jobs/:id", "GET", 200, 3*time.Millisecond)
	m.Request(APIParse, "", "GET", 404, time.Millisecond)
	m.Finished("parse", "pdf", attempt.OutcomeReview, "", 2*time.Second)
	m.Finished("parse", "", attempt.OutcomeFailed, "file_corrupt", time.Second)
	m.Finished("reconciliation", "", attempt.OutcomeFailed, "server_error", 0)
	m.Retried("parse")
	m.QuotaRefused("recon:sandbox")
	m.Waited("parse", 40*time.Millisecond)
	m.DeliveryAttempted(webhook.DeliveryPending, 120*time.Millisecond)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	for _, want := range []string{
		`statementd_http_request_duration_seconds_count{api="parse",code="200",method="GET",route="/api/v1/jobs/:id"} 1`,
		`statementd_http_request_duration_seconds_bucket{api="parse",code="200",method="GET",route="/api/v1/jobs/:id",le="0.0025"} 0`,
		`statementd_http_request_duration_seconds_bucket{api="parse",code="200",method="GET",route="/api/v1/jobs/:id",le="0.005"} 1`,
		`statementd_http_request_duration_seconds_count{api="parse",code="404",method="GET",route="unmatched"} 1`,
		`statementd_jobs_finished_total{format="pdf",kind="parse",outcome="review"} 1`,
		`statementd_jobs_finished_total{format="unknown",kind="parse",outcome="failed"} 1`,
		`statementd_job_failures_total{code="file_corrupt",kind="parse"} 1`,
		`statementd_job_failures_total{code="server_error",kind="reconciliation"} 1`,
		`statementd_job_run_seconds_count{format="pdf",kind="parse"} 1`,
		`statementd_job_run_seconds_count{format="unknown",kind="parse"} 1`,
		`statementd_job_attempts_retried_total{kind="parse"} 1`,
		`statementd_job_attempts_retried_total{kind="reconciliation"} 0`,
		`statementd_quota_refusals_total{quota="recon:sandbox"} 1`,
		`statementd_quota_refusals_total{quota="parse"} 0`,
		`statementd_queue_wait_seconds_count{queue="parse"} 1`,
		`statementd_webhook_delivery_attempts_seconds_count{outcome="pending"} 1`,
		`statementd_webhook_delivery_attempts_seconds_count{outcome="succeeded"} 0`,
		`statementd_ocr_page_readings_total `,
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, `kind="reconciliation",format="unknown"`, "a job failed before it worked has no run time")
	require.NotContains(t, text, `statementd_job_run_seconds_count{format="unknown",kind="reconciliation"}`)
}

// BenchmarkRequest is what counting one request adds to it (make bench): the histogram's
// labels looked up and the latency observed, from both cores at once as under load.
func BenchmarkRequest(b *testing.B) {
	m := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Request(APIReconProduction, "/api/v1/jobs/:job_id", "GET", 200, 1200*time.Microsecond)
		}
	})
}
