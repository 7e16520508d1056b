package contracttests

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// BenchmarkRequestLatency measures what authentication and rate limiting add to a request: the
// median latency of an unauthenticated GET /healthz against that of GET /api/v1/limits with a
// bearer token (token lookup, rate-limit count, then the operation's 501) on a running
// statementd over loopback. Both report median-µs; their difference is the cost of the path.
// The account is on the Pro plan (1,000 requests a minute); answers past that are 429, which
// take the same authentication and counting path.
func BenchmarkRequestLatency(b *testing.B) {
	s := startServer(b)
	acct := s.newAccount(b, "Bench")
	id, secret := s.newClient(b, acct)
	token := s.token(b, s.ReconURL, id, secret)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}

	run := func(b *testing.B, path string, auth bool) {
		req, err := http.NewRequest(http.MethodGet, s.ReconURL+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_ = resp.Body.Close()
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
	}
	b.Run("healthz", func(b *testing.B) { run(b, "/healthz", false) })
	b.Run("authenticated", func(b *testing.B) { run(b, "/api/v1/limits", true) })
}
