package contracttests

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkRetentionPurge measures the retention purge of a job of 1,000,000 expired
// transactions against the API's reads beside it: 10 accounts each read their job's status at
// 15 requests a second (150 a second in all, one of the jobs the one being purged) while a
// starting worker's purge deletes the transactions, 5,000 a transaction. It reports how long the
// purge took and the latency of the reads during it (the target: p99 under 100 ms, no read
// waiting on a lock the purge holds). Run it alone: make bench-retention.
func BenchmarkRetentionPurge(b *testing.B) {
	if f := flag.Lookup("test.bench"); f == nil || !strings.Contains(f.Value.String(), "RetentionPurge") {
		b.Skip("BenchmarkRetentionPurge runs only when named, on a quiet machine: make bench-retention")
	}
	const rows = 1_000_000
	api := startServer(b, "STATEMENTD_ROLE=api")
	env := []string{"STATEMENTD_ROLE=worker", "DATABASE_URL=" + api.DatabaseURL, "STATEMENTD_DATA_DIR=" + api.DataDir}
	w := startServer(b, env...)
	tenants := loadTenants(b, api, 10)
	require.NoError(b, w.stop(b))
	db, err := sql.Open("pgx", api.DatabaseURL)
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })

	// The first tenant's job is a year old and has a million transactions.
	doomed := tenants[0].job
	start := time.Now()
	_, err = db.Exec(`
INSERT INTO parse_transactions (job_id, seq, id, booking_date, amount, currency, description, type, raw)
SELECT $1, g, gen_random_uuid(), DATE '2024-03-01' + (g % 28), (g % 100000 - 50000) / 100.0, 'EUR',
       'SEPA TRANSFER ' || g || ' ACME GMBH INVOICE', CASE WHEN g % 2 = 0 THEN 'credit' ELSE 'debit' END, 'row ' || g
  FROM generate_series(10, $2 + 9) g`, doomed, rows)
	require.NoError(b, err)
	_, err = db.Exec(`UPDATE parse_jobs SET transactions_count = $2 + 10, created_at = created_at - interval '400 days' WHERE id = $1`, doomed, rows)
	require.NoError(b, err)
	_, err = db.Exec(`VACUUM ANALYZE parse_transactions`)
	require.NoError(b, err)
	fmt.Printf("BenchmarkRetentionPurge: %d transactions written in %s\n", rows, time.Since(start).Round(100*time.Millisecond))

	// The reads, open loop: each request's latency counts from when it was due.
	ctx, stop := context.WithCancel(b.Context())
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  int
		wg        sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for _, ten := range tenants {
		wg.Go(func() {
			tick := time.NewTicker(time.Second / 15)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case due := <-tick.C:
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api.ParseURL+"/api/v1/jobs/"+ten.job.String(), nil)
					req.Header.Set("Authorization", "Bearer "+ten.key)
					resp, err := client.Do(req)
					took := time.Since(due)
					if ctx.Err() != nil {
						return
					}
					mu.Lock()
					if err != nil || resp.StatusCode != http.StatusOK {
						failures++
					}
					latencies = append(latencies, took)
					mu.Unlock()
					if err == nil {
						_ = resp.Body.Close()
					}
				}
			}
		})
	}
	time.Sleep(2 * time.Second) // the reads before the purge, for comparison below
	mu.Lock()
	before := slices.Clone(latencies)
	latencies = latencies[:0]
	mu.Unlock()

	b.ResetTimer()
	purgeStart := time.Now()
	startServer(b, env...) // its purge runs at start
	for {
		var left bool
		require.NoError(b, db.QueryRow(`SELECT EXISTS (SELECT 1 FROM parse_transactions WHERE job_id = $1)`, doomed).Scan(&left))
		if !left {
			break
		}
		require.Less(b, time.Since(purgeStart), 10*time.Minute, "the purge did not finish in 10 minutes")
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(purgeStart)
	b.StopTimer()
	stop()
	wg.Wait()

	quantile := func(ls []time.Duration, q float64) float64 {
		if len(ls) == 0 {
			return 0
		}
		s := slices.Clone(ls)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
	}
	fmt.Printf("BenchmarkRetentionPurge: %d transactions purged in %s (%.0f rows/s, with the worker's start); reads during it: %d, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d not 200; before it: p50 %.2f ms, p99 %.2f ms\n",
		rows, took.Round(100*time.Millisecond), float64(rows)/took.Seconds(), len(latencies),
		quantile(latencies, 0.5), quantile(latencies, 0.99), quantile(latencies, 1), failures, quantile(before, 0.5), quantile(before, 0.99))
	b.ReportMetric(took.Seconds(), "purge-s")
	b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
	b.ReportMetric(quantile(latencies, 0.5), "p50-ms")
	b.ReportMetric(quantile(latencies, 0.99), "p99-ms")
	b.ReportMetric(quantile(latencies, 1), "max-ms")
	b.ReportMetric(float64(failures), "errors")
	b.ReportMetric(0, "ns/op")
}
