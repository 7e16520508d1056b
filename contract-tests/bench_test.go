package contracttests

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/gen/reconclient"
)

// BenchmarkRequestLatency measures what authentication and rate limiting add to a request: the
// median latency of an unauthenticated GET /healthz against that of GET /api/v1/limits with a
// bearer token (token lookup, rate-limit count, then the quota read) on a running
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

// BenchmarkJobEndToEnd measures a small reconciliation job from the client's upload to the
// moment the job is completed: a 1,000-line CSV statement against 100 expected references,
// POST /api/v1/jobs, then GET /api/v1/jobs/{id} every 5 ms until it is completed. It reports
// the median and the 90th percentile (p50-ms, p90-ms) of the client-side time, and the
// median of the server-side time from created_at to completed_at (server-p50-ms).
func BenchmarkJobEndToEnd(b *testing.B) {
	s := startServer(b)
	acct := s.newAccount(b, "Bench")
	id, secret := s.newClient(b, acct)
	c := s.reconCaller(b, s.ReconURL, id, secret)
	lines := make([]bankLine, 1000)
	exp := "reference,amount,currency\n"
	for i := range lines {
		lines[i] = bankLine{date: fmt.Sprintf("2024-03-%02d", i%28+1), text: fmt.Sprintf("SEPA CREDIT CUSTOMER %d INV-%06d", i, i), amount: fmt.Sprintf("%d.%02d", 100+i, i%100)}
		if i%10 == 0 {
			exp += fmt.Sprintf("INV-%06d,%s,EUR\n", i, decimal.RequireFromString(lines[i].amount).String())
		}
	}
	ct, body := jobUpload(b, "statement.csv", bankCSV(lines), "expected.csv", []byte(exp))
	ctx := context.Background()
	var client, server []time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := c.rc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), bearer(c.token))
		if err != nil || r.StatusCode() != http.StatusAccepted {
			b.Fatalf("create: %v %s", err, r.Body)
		}
		for {
			g, err := c.rc.GetJobWithResponse(ctx, r.JSON202.JobId, bearer(c.token))
			if err != nil || g.StatusCode() != http.StatusOK {
				b.Fatalf("get: %v %s", err, g.Body)
			}
			if g.JSON200.Status == reconclient.JobStatusCompleted {
				client = append(client, time.Since(start))
				server = append(server, g.JSON200.CompletedAt.Sub(g.JSON200.CreatedAt))
				break
			}
			if g.JSON200.Status == reconclient.JobStatusFailed {
				b.Fatalf("job failed: %+v", g.JSON200.Error)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	slices.Sort(client)
	slices.Sort(server)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(client[len(client)/2]), "p50-ms")
	b.ReportMetric(ms(client[len(client)*9/10]), "p90-ms")
	b.ReportMetric(ms(server[len(server)/2]), "server-p50-ms")
}
