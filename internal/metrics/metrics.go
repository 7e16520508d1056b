// Package metrics holds the process's Prometheus metrics, served on the operator listener's
// /metrics (cmd/statementd). Labels take bounded values only: never an account, a client id, an
// address or a file name.
package metrics

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/statement/ocr"
	"github.com/statementmatch/service/internal/webhook"
)

// The failed-authentication throttles, the values of the throttle label.
const (
	// ThrottleTokenClientAddress counts token requests refused for one client id from one
	// address (10 failures a minute).
	ThrottleTokenClientAddress = "token_client_address"
	// ThrottleTokenAddress counts token requests refused for their address (100 a minute).
	ThrottleTokenAddress = "token_address"
	// ThrottleTokenClient counts token requests refused by the per-client backstop (1,000
	// failures a minute from everywhere): only a flood from many addresses reaches it.
	ThrottleTokenClient = "token_client"
	// ThrottleAnonymous counts requests refused for their address after too many bad
	// credentials on an API (60 a minute).
	ThrottleAnonymous = "anonymous"
	// ThrottleWebhookTests counts an account's webhook test requests refused (10 a minute).
	ThrottleWebhookTests = "webhook_tests"
	// ThrottleSignInEmailAddress, ThrottleSignInAddress and ThrottleSignInEmail count dashboard
	// sign-ins refused for one email from one address (5 failures a minute), for their address
	// (30) and by the per-email backstop (300).
	ThrottleSignInEmailAddress = "signin_email_address"
	ThrottleSignInAddress      = "signin_address"
	ThrottleSignInEmail        = "signin_email"
)

// Metrics is one process's registry and the metrics in it.
type Metrics struct {
	registry         *prometheus.Registry
	throttleRefusals *prometheus.CounterVec
	rateLimited      *prometheus.CounterVec
	quotaRefusals    *prometheus.CounterVec
	requests         *prometheus.HistogramVec
	jobsFinished     *prometheus.CounterVec
	jobFailures      *prometheus.CounterVec
	jobRun           *prometheus.HistogramVec
	jobRetries       *prometheus.CounterVec
	queueWait        *prometheus.HistogramVec
	deliveries       *prometheus.HistogramVec
}

// Buckets of the histograms, in seconds.
var (
	// requestBuckets span a health check (a millisecond) to an upload of the largest file.
	requestBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	// jobBuckets span a small CSV (milliseconds) to a scan read with OCR (minutes).
	jobBuckets = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	// waitBuckets span a worker's poll (50 ms) to a backlog of many minutes.
	waitBuckets = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}
	// deliveryBuckets span a quick endpoint to the 10 s an attempt may take.
	deliveryBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
)

// The values of the api label of the request metrics: each listener.
const (
	APIReconProduction = "recon-production"
	APIReconSandbox    = "recon-sandbox"
	APIParse           = "parse"
	APIDashboard       = "dashboard"
)

// RouteUnmatched is the route label of a request no route took (a 404 for an unknown path):
// a raw path is never a label.
const RouteUnmatched = "unmatched"

// New returns the metrics of a process, with Go's runtime and the process's own (memory, CPU,
// open files) included.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		throttleRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_throttle_refusals_total",
			Help: "Requests refused with 429 by a throttle of failed authentications or webhook tests, by throttle.",
		}, []string{"throttle"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_rate_limit_refusals_total",
			Help: "Authenticated requests refused with 429 by their plan's requests-per-minute limit, by API.",
		}, []string{"api"}),
		quotaRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_quota_refusals_total",
			Help: "Jobs refused because the account's monthly job quota is used up, by quota (recon:production, recon:sandbox, parse).",
		}, []string{"quota"}),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "statementd_http_request_duration_seconds",
			Help:    "HTTP requests answered, by listener (api), route template, method and status code, and how long each took.",
			Buckets: requestBuckets,
		}, []string{"api", "route", "method", "code"}),
		jobsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_jobs_finished_total",
			Help: "Jobs finished by this process's workers, by kind (reconciliation, parse), the format of the (bank) file, and outcome (completed, review, failed).",
		}, []string{"kind", "format", "outcome"}),
		jobFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_job_failures_total",
			Help: "Jobs that failed, by kind and the failure's error code (why the file could not be read, or the service's).",
		}, []string{"kind", "code"}),
		jobRun: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "statementd_job_run_seconds",
			Help:    "How long the attempt that finished a job worked on it, by kind and format.",
			Buckets: jobBuckets,
		}, []string{"kind", "format"}),
		jobRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statementd_job_attempts_retried_total",
			Help: "Job attempts that ended in an error of the service (the database unreachable, say), handed back to the queue, by kind.",
		}, []string{"kind"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "statementd_queue_wait_seconds",
			Help:    "How long work waited in its queue (reconcile, parse, webhooks) from when it was due to when a worker of this process took it.",
			Buckets: waitBuckets,
		}, []string{"queue"}),
		deliveries: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "statementd_webhook_delivery_attempts_seconds",
			Help:    "Webhook delivery attempts made to endpoints, by what each did to its delivery (succeeded, pending: to be retried, failed: given up), and how long the endpoint took.",
			Buckets: deliveryBuckets,
		}, []string{"outcome"}),
	}
	ocrPages := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "statementd_ocr_page_readings_total",
		Help: "Scanned pages read by Tesseract; a page read again in another way counts again.",
	}, func() float64 { return float64(ocr.PagesRead()) })
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.throttleRefusals, m.rateLimited, m.quotaRefusals, m.requests, m.jobsFinished, m.jobFailures, m.jobRun, m.jobRetries,
		m.queueWait, m.deliveries, ocrPages)
	// Every series exists from the start, at 0, so that a rate over it is defined before the
	// first refusal.
	for _, t := range []string{ThrottleTokenClientAddress, ThrottleTokenAddress, ThrottleTokenClient, ThrottleAnonymous, ThrottleWebhookTests,
		ThrottleSignInEmailAddress, ThrottleSignInAddress, ThrottleSignInEmail} {
		m.throttleRefusals.WithLabelValues(t)
	}
	for _, api := range []ratelimit.API{ratelimit.Recon, ratelimit.Parse} {
		m.rateLimited.WithLabelValues(string(api))
	}
	for _, q := range []string{"recon:production", "recon:sandbox", "parse"} {
		m.quotaRefusals.WithLabelValues(q)
	}
	for _, kind := range []string{"reconciliation", "parse"} {
		m.jobRetries.WithLabelValues(kind)
	}
	for _, outcome := range []webhook.DeliveryStatus{webhook.DeliverySucceeded, webhook.DeliveryPending, webhook.DeliveryFailed} {
		m.deliveries.WithLabelValues(string(outcome))
	}
	return m
}

// WatchDatabase adds the database's connection pool statistics (go_sql_* with
// db_name="statementd") and the work waiting in each queue, read from the database at each
// scrape (statementd_queue_waiting, statementd_queue_oldest_waiting_seconds), to the metrics. depths reads the queues
// (queue.Depths); a scrape that cannot read them within a second leaves them out and logs why.
func (m *Metrics) WatchDatabase(db *sql.DB, depths func(context.Context) ([]QueueDepth, error), logger *slog.Logger) {
	m.registry.MustRegister(collectors.NewDBStatsCollector(db, "statementd"), &queueCollector{depths: depths, logger: logger})
}

// QueueDepth is how much work waits in one queue: due and not yet taken, and for how long the
// oldest has been due.
type QueueDepth struct {
	Queue   string
	Waiting int
	Oldest  time.Duration
}

var (
	queueWaitingDesc = prometheus.NewDesc("statementd_queue_waiting",
		"Work due in each queue (reconcile, parse, webhooks) and not yet taken by a worker, across every process.", []string{"queue"}, nil)
	queueOldestDesc = prometheus.NewDesc("statementd_queue_oldest_waiting_seconds",
		"How long the longest-waiting work of each queue has been due (0 when none waits), across every process.", []string{"queue"}, nil)
)

// queueCollector reads the queues' depths at each scrape.
type queueCollector struct {
	depths func(context.Context) ([]QueueDepth, error)
	logger *slog.Logger
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueWaitingDesc
	ch <- queueOldestDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	depths, err := c.depths(ctx)
	if err != nil {
		if c.logger != nil {
			c.logger.Warn("metrics: queue depths not read", slog.String("error", err.Error()))
		}
		return
	}
	for _, d := range depths {
		ch <- prometheus.MustNewConstMetric(queueWaitingDesc, prometheus.GaugeValue, float64(d.Waiting), d.Queue)
		ch <- prometheus.MustNewConstMetric(queueOldestDesc, prometheus.GaugeValue, d.Oldest.Seconds(), d.Queue)
	}
}

// Request counts one answered request of a listener (an API* name), by its route template
// (RouteUnmatched when no route took it), method and status, with how long it took.
func (m *Metrics) Request(api, route, method string, status int, took time.Duration) {
	if route == "" {
		route = RouteUnmatched
	}
	m.requests.WithLabelValues(api, route, method, strconv.Itoa(status)).Observe(took.Seconds())
}

// Finished implements attempt.Observer.
func (m *Metrics) Finished(kind, format, outcome, code string, run time.Duration) {
	if format == "" {
		format = "unknown"
	}
	m.jobsFinished.WithLabelValues(kind, format, outcome).Inc()
	if outcome == attempt.OutcomeFailed {
		m.jobFailures.WithLabelValues(kind, code).Inc()
	}
	if run > 0 {
		m.jobRun.WithLabelValues(kind, format).Observe(run.Seconds())
	}
}

// Retried implements attempt.Observer.
func (m *Metrics) Retried(kind string) { m.jobRetries.WithLabelValues(kind).Inc() }

// QuotaRefused implements attempt.Observer.
func (m *Metrics) QuotaRefused(scope string) { m.quotaRefusals.WithLabelValues(scope).Inc() }

// Waited observes how long work waited in a queue (queue.Config.Waited).
func (m *Metrics) Waited(queue string, wait time.Duration) {
	m.queueWait.WithLabelValues(queue).Observe(wait.Seconds())
}

// DeliveryAttempted observes a webhook delivery attempt (webhook.Service.Attempted).
func (m *Metrics) DeliveryAttempted(status webhook.DeliveryStatus, took time.Duration) {
	m.deliveries.WithLabelValues(string(status)).Observe(took.Seconds())
}

// ThrottleRefused returns the function that counts one refusal of throttle (a Throttle* name).
func (m *Metrics) ThrottleRefused(throttle string) func() {
	return m.throttleRefusals.WithLabelValues(throttle).Inc
}

// RateLimited counts one request of api refused by its plan's rate limit.
func (m *Metrics) RateLimited(api ratelimit.API) {
	m.rateLimited.WithLabelValues(string(api)).Inc()
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}
