package contracttests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
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

// BenchmarkExportMemory measures what exporting a large job costs the server in memory. A
// statement of 1,000,000 transactions (a compact generated CSV) is uploaded and parsed; then
// statementd is restarted on the same database, so that what parsing left in the heap is gone,
// and the job is downloaded as CSV and as JSON through plain HTTP (rows counted, bytes
// discarded). For each format it reports the growth of the server's resident memory over its
// level just before the download: the peak of VmRSS sampled every 5 ms (peak-rss-growth-MiB),
// and the growth of VmHWM, which the kernel keeps exactly, reset before each download where
// /proc/<pid>/clear_refs allows it (hwm-growth-MiB); then the download's time and throughput.
// The export is meant to stream: the target is a peak growth under 50 MiB. With more than one
// iteration (-benchtime 2x), the memory figures are the highest seen and the times are those of
// the last iteration: the first export of a job just stored can be slower than later ones.
//
// Run it once: go test ./contract-tests/ -run '^$' -bench BenchmarkExportMemory -benchtime 1x
func BenchmarkExportMemory(b *testing.B) {
	const rows = 1_000_000
	ctx := context.Background()
	one := startServer(b, "STATEMENTD_MAX_UPLOAD_BYTES=67108864", "STATEMENTD_JOB_TIMEOUT=15m", "STATEMENTD_JOB_RESCUE_AFTER=20m")
	acct := one.newAccount(b, "Bench")
	key := str(b, one.admin(b, "key", "create", "--json", "--account", acct), "api_key")
	// The upload is large and checked before its answer: a longer time-out than the harness's.
	pc, err := parseclient.NewClientWithResponses(one.ParseURL, parseclient.WithHTTPClient(
		&http.Client{Transport: validatingTransport{t: b, api: parse(b)}, Timeout: 10 * time.Minute}))
	require.NoError(b, err)

	upload := func(name string, file []byte) uuid.UUID {
		ct, body := fileUpload(b, name, file)
		r, err := pc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), bearer(key))
		require.NoError(b, err)
		require.Equal(b, http.StatusAccepted, r.StatusCode(), "%s", r.Body)
		return r.JSON202.Data.JobId
	}
	wait := func(id uuid.UUID, within time.Duration) parseclient.Job {
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			r, err := pc.GetJobWithResponse(ctx, id, bearer(key))
			require.NoError(b, err)
			require.Equal(b, http.StatusOK, r.StatusCode(), "%s", r.Body)
			if st := r.JSON200.Data.Status; st != parseclient.JobStatusQueued && st != parseclient.JobStatusProcessing {
				return r.JSON200.Data
			}
			time.Sleep(250 * time.Millisecond)
		}
		b.Fatalf("job %s not finished within %s", id, within)
		return parseclient.Job{}
	}
	file := compactCSV(rows)
	start := time.Now()
	big := upload("million.csv", file)
	b.Logf("uploaded %.1f MB in %s", float64(len(file))/1e6, time.Since(start).Round(time.Millisecond))
	job := wait(big, 15*time.Minute)
	require.Equal(b, parseclient.JobStatusCompleted, job.Status, "error %+v, review %+v", job.Error, job.ReviewReasons)
	require.Equal(b, rows, job.TransactionsCount)
	b.Logf("parsed and stored %d transactions in %s", rows, job.CompletedAt.Sub(job.CreatedAt).Round(time.Millisecond))
	small := upload("small.csv", simpleCSV(3))
	require.Equal(b, parseclient.JobStatusCompleted, wait(small, time.Minute).Status)
	require.NoError(b, one.stop(b))

	two := startServer(b, "DATABASE_URL="+one.DatabaseURL, "STATEMENTD_DATA_DIR="+one.DataDir)
	pid := two.cmd.Process.Pid
	client := &http.Client{Timeout: 10 * time.Minute}
	download := func(id uuid.UUID, format string, count func([]byte)) (n int64, took time.Duration) {
		req, err := http.NewRequest(http.MethodGet, two.ParseURL+"/api/v1/jobs/"+id.String()+"/export?format="+format, nil)
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+key)
		start := time.Now()
		resp, err := client.Do(req)
		require.NoError(b, err)
		defer resp.Body.Close()
		require.Equal(b, http.StatusOK, resp.StatusCode)
		buf := make([]byte, 256<<10)
		for {
			k, err := resp.Body.Read(buf)
			count(buf[:k])
			n += int64(k)
			if err == io.EOF {
				return n, time.Since(start)
			}
			require.NoError(b, err)
		}
	}
	// Warm up: the first export of a process sets up what every export needs.
	for _, f := range []string{"csv", "json"} {
		download(small, f, func([]byte) {})
	}
	resettable := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
	if !resettable {
		b.Log("/proc/<pid>/clear_refs is not writable: hwm-growth-MiB is the growth over the process's earlier peak")
	}

	type figures struct{ peakGrowth, hwmGrowth, seconds, mbPerSecond, mb float64 }
	results := map[string]figures{}
	for b.Loop() {
		for _, f := range []struct {
			format, marker string // marker occurs once per transaction
		}{{"csv", "\r\n"}, {"json", `"id":`}} {
			runtimeSettle()
			if resettable {
				require.NoError(b, os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0))
			}
			baseRSS, baseHWM := procMemKiB(b, pid)
			stop, peak := sampleRSS(pid, 5*time.Millisecond)
			counter := &markerCounter{marker: []byte(f.marker)}
			n, took := download(big, f.format, counter.feed)
			close(stop)
			peakRSS := <-peak
			_, hwm := procMemKiB(b, pid)
			wantMarkers := rows
			if f.format == "csv" {
				wantMarkers = rows + 1 // the header row
			}
			require.Equal(b, wantMarkers, counter.n, "%s export rows", f.format)
			fig := figures{
				peakGrowth:  float64(max(peakRSS, baseRSS)-baseRSS) / 1024,
				hwmGrowth:   float64(max(hwm, baseHWM)-max(baseHWM, baseRSS)) / 1024,
				seconds:     took.Seconds(),
				mbPerSecond: float64(n) / 1e6 / took.Seconds(),
				mb:          float64(n) / 1e6,
			}
			prev := results[f.format]
			fig.peakGrowth, fig.hwmGrowth = max(fig.peakGrowth, prev.peakGrowth), max(fig.hwmGrowth, prev.hwmGrowth)
			results[f.format] = fig
			b.Logf("%s export: %.1f MB in %s (%.1f MB/s); RSS %.1f MiB before, peak %.1f MiB (+%.1f), VmHWM +%.1f MiB",
				f.format, fig.mb, took.Round(time.Millisecond), fig.mbPerSecond, float64(baseRSS)/1024, float64(peakRSS)/1024,
				fig.peakGrowth, fig.hwmGrowth)
		}
	}
	for format, fig := range results {
		b.ReportMetric(fig.peakGrowth, format+"-peak-rss-growth-MiB")
		b.ReportMetric(fig.hwmGrowth, format+"-hwm-growth-MiB")
		b.ReportMetric(fig.seconds, format+"-s")
		b.ReportMetric(fig.mbPerSecond, format+"-MB/s")
		b.ReportMetric(fig.mb, format+"-MB")
	}
}

// runtimeSettle gives the server a moment between downloads, so that the memory of one is not
// measured as the growth of the next: Go returns freed memory to the system in the background.
func runtimeSettle() { time.Sleep(2 * time.Second) }

// compactCSV is a statement of n transactions in few bytes: date, short text, signed amount.
func compactCSV(n int) []byte {
	buf := make([]byte, 0, n*28)
	buf = append(buf, "Date,Description,Amount\n"...)
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		buf = day.AddDate(0, 0, i*365/n).AppendFormat(buf, time.DateOnly)
		buf = append(buf, ",P"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, ',')
		if i%3 == 0 {
			buf = append(buf, '-')
		}
		buf = strconv.AppendInt(buf, int64(1+i%5000), 10)
		buf = append(buf, '.')
		cents := i % 100
		buf = append(buf, byte('0'+cents/10), byte('0'+cents%10), '\n')
	}
	return buf
}

// procMemKiB reads a process's resident set size and its high-water mark from /proc.
func procMemKiB(t testing.TB, pid int) (rss, hwm int64) {
	t.Helper()
	rss, hwm, err := readProcMem(pid)
	require.NoError(t, err)
	return rss, hwm
}

func readProcMem(pid int) (rss, hwm int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(string(data)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", name, err)
		}
		if name == "VmRSS" {
			rss = kib
		} else {
			hwm = kib
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, hwm, nil
}

// sampleRSS reads the process's VmRSS every interval until stop is closed, then sends the
// highest value seen (KiB).
func sampleRSS(pid int, interval time.Duration) (stop chan struct{}, peak chan int64) {
	stop, peak = make(chan struct{}), make(chan int64, 1)
	go func() {
		var highest int64
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if rss, _, err := readProcMem(pid); err == nil && rss > highest {
				highest = rss
			}
			select {
			case <-stop:
				peak <- highest
				return
			case <-tick.C:
			}
		}
	}()
	return stop, peak
}

// markerCounter counts the occurrences of marker in a stream fed in chunks.
type markerCounter struct {
	marker []byte
	tail   []byte // the end of the previous chunk, which may hold the start of a marker
	n      int
}

func (m *markerCounter) feed(chunk []byte) {
	data := append(slices.Clone(m.tail), chunk...)
	m.n += bytes.Count(data, m.marker)
	// The tail is shorter than the marker, so it holds no whole one to count twice.
	keep := min(len(m.marker)-1, len(data))
	m.tail = slices.Clone(data[len(data)-keep:])
}
