package contracttests

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// series is one scrape of /metrics: each sample by its name and labels ("name{a="x",b="y"}",
// labels sorted), a histogram as its _count and _sum, and the text as scraped.
type series struct {
	values map[string]float64
	text   []byte
}

// scrape reads the operator listener's /metrics.
func scrape(t testing.TB, s *server) series {
	t.Helper()
	resp, err := s.HTTP.Get(s.OpsURL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	require.NoError(t, err)
	out := series{values: map[string]float64{}, text: body}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			key := func(suffix string) string { return name + suffix + labelsOf(m) }
			switch {
			case m.Counter != nil:
				out.values[key("")] = m.Counter.GetValue()
			case m.Gauge != nil:
				out.values[key("")] = m.Gauge.GetValue()
			case m.Histogram != nil:
				out.values[key("_count")] = float64(m.Histogram.GetSampleCount())
				out.values[key("_sum")] = m.Histogram.GetSampleSum()
			case m.Untyped != nil:
				out.values[key("")] = m.Untyped.GetValue()
			}
		}
	}
	return out
}

// related lists the samples of the scrape with key's name, for a failure's message.
func related(s series, key string) string {
	name, _, _ := strings.Cut(key, "{")
	var out []string
	for k, v := range s.values {
		if strings.HasPrefix(k, name+"{") {
			out = append(out, fmt.Sprintf("%s %g", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func labelsOf(m *dto.Metric) string {
	var ls []string
	for _, l := range m.GetLabel() {
		ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(ls)
	return "{" + strings.Join(ls, ",") + "}"
}

// TestMetrics (O1): the operator listener's /metrics counts what the service did, each series
// by exactly what happened between two scrapes: the requests by listener, route template,
// method and status; parsing jobs completed, sent to review and failed (with the failure's
// code), a reconciliation completed, each with its queue wait and run time; the webhook
// deliveries made; a job refused by the quota. No label holds an id or a raw path, and the
// output passes `promtool check metrics` (Debian's prometheus package).
func TestMetrics(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	require.NoError(t, err, "promtool is not installed: Debian's prometheus package ships it (.ci/run installs it)")
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	before := scrape(t, s)

	// Parsing: a completed CSV, an MT940 to review, a CAMT file that fails; each announced by
	// a webhook (job.created and the final event).
	ten := s.newTenant(t, "Metrics")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	hook := webhookCaller(pc).create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/hooks"})
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	var failed parseclient.Job
	for _, f := range []struct {
		name    string
		content []byte
		want    parseclient.JobStatus
	}{
		{"first.csv", simpleCSV(3), parseclient.JobStatusCompleted},
		{"second.sta", unbalancedMT940(), parseclient.JobStatusReview},
		{"third.xml", truncatedCAMT053(t), parseclient.JobStatusFailed},
	} {
		j := pc.wait(t, pc.create(t, f.name, f.content).JobId)
		require.Equal(t, f.want, j.Status, f.name)
		if j.Status == parseclient.JobStatusFailed {
			failed = j
		}
	}
	require.NotNil(t, failed.Error)
	rcv.waitFor(t, 6, 1, 30*time.Second)

	// A reconciliation, and a refusal of the sandbox's quota.
	acct := s.newAccount(t, "Metrics recon")
	clientID, secret := s.newClient(t, acct)
	prod := s.reconCaller(t, s.ReconURL, clientID, secret)
	ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	created := prod.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	require.Equal(t, reconclient.JobStatusCompleted, prod.wait(t, created.JSON202.JobId).Status)
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	now := time.Now().UTC()
	_, err = db.Exec(`INSERT INTO job_quota (account_id, scope, period, used) VALUES ($1, 'recon:sandbox', $2, 100)`,
		acct, time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	over := s.reconCaller(t, s.SandboxURL, clientID, secret).create(t, "", ct, body)
	require.Equal(t, http.StatusTooManyRequests, over.StatusCode(), string(over.Body))

	// Requests without credentials, and to no route at all.
	for _, u := range []string{s.ParseURL + "/api/v1/jobs/" + failed.JobId.String(), s.ParseURL + "/no/such/path/" + failed.JobId.String()} {
		resp, err := s.HTTP.Get(u)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}

	code := string(failed.Error.Code)
	want := map[string]float64{
		`statementd_http_request_duration_seconds_count{api="parse",code="202",method="POST",route="/api/v1/jobs"}`:            3,
		`statementd_http_request_duration_seconds_count{api="parse",code="401",method="GET",route="/api/v1/jobs/:id"}`:         1,
		`statementd_http_request_duration_seconds_count{api="parse",code="404",method="GET",route="unmatched"}`:                1,
		`statementd_http_request_duration_seconds_count{api="recon-production",code="202",method="POST",route="/api/v1/jobs"}`: 1,
		`statementd_http_request_duration_seconds_count{api="recon-sandbox",code="429",method="POST",route="/api/v1/jobs"}`:    1,
		`statementd_http_request_duration_seconds_count{api="parse",code="201",method="POST",route="/api/v1/webhooks"}`:        1,
		`statementd_jobs_finished_total{format="csv",kind="parse",outcome="completed"}`:                                        1,
		`statementd_jobs_finished_total{format="mt940",kind="parse",outcome="review"}`:                                         1,
		`statementd_jobs_finished_total{format="camt053",kind="parse",outcome="failed"}`:                                       1,
		`statementd_job_failures_total{code="` + code + `",kind="parse"}`:                                                      1,
		`statementd_jobs_finished_total{format="csv",kind="reconciliation",outcome="completed"}`:                               1,
		`statementd_job_run_seconds_count{format="csv",kind="parse"}`:                                                          1,
		`statementd_job_run_seconds_count{format="mt940",kind="parse"}`:                                                        1,
		`statementd_job_run_seconds_count{format="csv",kind="reconciliation"}`:                                                 1,
		`statementd_queue_wait_seconds_count{queue="parse"}`:                                                                   3,
		`statementd_queue_wait_seconds_count{queue="reconcile"}`:                                                               1,
		`statementd_webhook_delivery_attempts_seconds_count{outcome="succeeded"}`:                                              6,
		`statementd_webhook_delivery_attempts_seconds_count{outcome="pending"}`:                                                0,
		`statementd_quota_refusals_total{quota="recon:sandbox"}`:                                                               1,
		`statementd_quota_refusals_total{quota="recon:production"}`:                                                            0,
		`statementd_job_attempts_retried_total{kind="parse"}`:                                                                  0,
		`statementd_rate_limit_refusals_total{api="parse"}`:                                                                    0,
		`statementd_ocr_page_readings_total{}`:                                                                                 0,
	}
	// A worker counts a job just after storing it, and a delivery just after the endpoint
	// answered: the client may see them done a moment before.
	var after series
	moved := func(key string) float64 { return after.values[key] - before.values[key] }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after = scrape(t, s)
		short := false
		for key, n := range want {
			short = short || moved(key) < n
		}
		if !short || time.Now().After(deadline) {
			break
		}
	}
	for key, n := range want {
		require.Equal(t, n, moved(key), "%s\n%s", key, related(after, key))
	}
	// A delivery waits in the queue once, and again whenever it is put back (its endpoint
	// busy with another of its deliveries).
	require.GreaterOrEqual(t, moved(`statementd_queue_wait_seconds_count{queue="webhooks"}`), 6.0)
	require.Positive(t, moved(`statementd_http_request_duration_seconds_sum{api="parse",code="202",method="POST",route="/api/v1/jobs"}`))
	for _, q := range []string{"reconcile", "parse", "webhooks"} {
		require.Contains(t, after.values, `statementd_queue_waiting{queue="`+q+`"}`)
		require.Contains(t, after.values, `statementd_queue_oldest_waiting_seconds{queue="`+q+`"}`)
	}
	require.Positive(t, after.values[`go_sql_max_open_connections{db_name="statementd"}`])
	require.Positive(t, after.values[`process_resident_memory_bytes{}`])
	// No label names an account, a job or a path as sent.
	for _, id := range []string{failed.JobId.String(), acct, "/no/such/path"} {
		require.NotContains(t, string(after.text), id)
	}

	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = bytes.NewReader(after.text)
	out, err := check.CombinedOutput()
	require.NoError(t, err, "promtool check metrics: %s", out)
}
