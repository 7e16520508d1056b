// Package metrics holds the process's Prometheus metrics, served on the operator listener's
// /metrics (cmd/statementd). Labels take bounded values only: never an account, a client id, an
// address or a file name.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/statementmatch/service/internal/ratelimit"
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
}

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
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.throttleRefusals, m.rateLimited)
	// Every series exists from the start, at 0, so that a rate over it is defined before the
	// first refusal.
	for _, t := range []string{ThrottleTokenClientAddress, ThrottleTokenAddress, ThrottleTokenClient, ThrottleAnonymous, ThrottleWebhookTests,
		ThrottleSignInEmailAddress, ThrottleSignInAddress, ThrottleSignInEmail} {
		m.throttleRefusals.WithLabelValues(t)
	}
	for _, api := range []ratelimit.API{ratelimit.Recon, ratelimit.Parse} {
		m.rateLimited.WithLabelValues(string(api))
	}
	return m
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
