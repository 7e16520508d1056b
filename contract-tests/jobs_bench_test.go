package contracttests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/mt940/mt940test"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
	"github.com/statementmatch/service/internal/statement/qif/qiftest"
)

// Issue 9's job figures, each against a running statementd on loopback. Run them one at a time
// with -benchtime 1x (make bench runs them too); they report with b.ReportMetric.

// BenchmarkParseJobThroughput measures sustained small-job throughput with 2 workers: 500
// parsing jobs of a 20-line CSV are uploaded by 8 clients as fast as the API takes them, and the
// process (STATEMENTD_WORKERS=2) works them. It reports jobs/s (jobs over the time from the
// first job's creation to the last one's completion, by the server's clock) and the end-to-end
// p50/p99 from upload (created_at) to completed (completed_at).
func BenchmarkParseJobThroughput(b *testing.B) {
	const jobs = 500
	s := startServer(b, "STATEMENTD_WORKERS=2")
	acct := s.newAccount(b, "Bench", "--parse-plan", "business")
	c := s.parseCaller(b, acct)
	ct, body := fileUpload(b, "s.csv", simpleCSV(20))
	ctx := context.Background()
	for b.Loop() {
		ids := make(chan uuid.UUID, jobs)
		var wg sync.WaitGroup
		var failed sync.Map
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < jobs; i += 8 {
					r, err := c.pc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), bearer(c.key))
					if err != nil || r.StatusCode() != http.StatusAccepted {
						failed.Store(i, fmt.Sprint(err, r))
						continue
					}
					ids <- r.JSON202.Data.JobId
				}
			})
		}
		wg.Wait()
		close(ids)
		failed.Range(func(k, v any) bool { b.Fatalf("upload %v: %v", k, v); return false })
		created := map[uuid.UUID]bool{}
		for id := range ids {
			created[id] = true
		}
		done := waitAllFinished(b, c, len(created), 2*time.Minute)
		var first, last time.Time
		var took []time.Duration
		for _, j := range done {
			if !created[j.JobId] {
				continue
			}
			if j.Status != parseclient.JobStatusCompleted {
				b.Fatalf("job %s is %s", j.JobId, j.Status)
			}
			if first.IsZero() || j.CreatedAt.Before(first) {
				first = j.CreatedAt
			}
			if j.CompletedAt.After(last) {
				last = *j.CompletedAt
			}
			took = append(took, j.CompletedAt.Sub(j.CreatedAt))
		}
		slices.Sort(took)
		b.ReportMetric(float64(len(took))/last.Sub(first).Seconds(), "jobs/s")
		b.ReportMetric(ms(took[len(took)/2]), "e2e-p50-ms")
		b.ReportMetric(ms(took[len(took)*99/100]), "e2e-p99-ms")
		b.ReportMetric(ms(took[len(took)-1]), "e2e-max-ms")
	}
}

// BenchmarkConcurrentUploads sends 100 uploads of a 5 MiB statement at once to an API-only
// process and requires every one accepted; it reports the time until the last answer and that
// process's peak resident memory growth (sampled every 5 ms). Then a worker-only process with
// 2 workers, on the same database, parses them all: its peak growth is the parsing memory.
func BenchmarkConcurrentUploads(b *testing.B) {
	const uploads = 100
	api := startServer(b, "STATEMENTD_ROLE=api")
	acct := api.newAccount(b, "Bench", "--parse-plan", "business")
	c := api.parseCaller(b, acct)
	data := compactCSV(300_000) // about 7 MiB, cut to 5 MiB at a line end
	data = data[:bytes.LastIndexByte(data[:5<<20], '\n')+1]
	ct, body := fileUpload(b, "big.csv", data)
	ctx := context.Background()
	for b.Loop() {
		runtimeSettle()
		pid := api.cmd.Process.Pid
		base, _ := procMemKiB(b, pid)
		stop, peak := sampleRSS(pid, 5*time.Millisecond)
		start := time.Now()
		var wg sync.WaitGroup
		statuses := make([]int, uploads)
		for i := range uploads {
			wg.Go(func() {
				r, err := c.pc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), bearer(c.key))
				if err == nil {
					statuses[i] = r.StatusCode()
				}
			})
		}
		wg.Wait()
		took := time.Since(start)
		close(stop)
		uploadPeak := <-peak
		saveProfile(b, api, "allocs", "uploads-allocs.pprof")
		for i, st := range statuses {
			if st != http.StatusAccepted {
				b.Fatalf("upload %d answered %d", i, st)
			}
		}

		worker := startServer(b, "STATEMENTD_ROLE=worker", "STATEMENTD_WORKERS=2", "DATABASE_URL="+api.DatabaseURL, "STATEMENTD_DATA_DIR="+api.DataDir)
		wpid := worker.cmd.Process.Pid
		wbase, _ := procMemKiB(b, wpid)
		stop, peak = sampleRSS(wpid, 5*time.Millisecond)
		parseStart := time.Now()
		done := waitAllFinished(b, c, uploads, 10*time.Minute)
		parseTook := time.Since(parseStart)
		close(stop)
		parsePeak := <-peak
		for _, j := range done {
			if j.Status != parseclient.JobStatusCompleted {
				b.Fatalf("job %s is %s", j.JobId, j.Status)
			}
		}
		require.NoError(b, worker.stop(b))
		b.ReportMetric(float64(len(data))/(1<<20), "MiB-per-upload")
		b.ReportMetric(took.Seconds(), "all-accepted-s")
		b.ReportMetric(float64(uploadPeak-base)/1024, "api-peak-rss-growth-MiB")
		b.ReportMetric(parseTook.Seconds(), "parse-all-s")
		b.ReportMetric(float64(parsePeak-wbase)/1024, "worker-peak-rss-growth-MiB")
	}
}

// BenchmarkLargestCSVMemory measures statementd's peak resident memory while it parses the
// largest CSV it accepts: 25 MiB (the upload limit) of compact rows, about 970,000 of them.
// It reports the peak growth over the level before the upload (sampled every 5 ms) and the time
// from upload to completed.
func BenchmarkLargestCSVMemory(b *testing.B) {
	// 1,000,000 compact rows are 27 MB; the largest file accepted is 25 MiB, which holds about
	// 970,000 of them.
	data := compactCSV(1_000_000)
	data = data[:bytes.LastIndexByte(data[:maxUploadBytes], '\n')+1]
	benchLargestFile(b, "largest.csv", data, bytes.Count(data, []byte("\n"))-1)
}

// BenchmarkLargestXLSXMemory is BenchmarkLargestCSVMemory for the largest workbook statementd
// accepts: one sheet of a header row (Date, Description, Amount) and 999,999 rows of the
// compact CSV's transactions, dates as date-formatted serial numbers and amounts as numbers
// formatted 0.00. The row limit (1,000,000) counts every non-empty sheet row, the header too,
// and it is the bound here (with one more data row the parser refuses the workbook: too many
// rows): that workbook is 16.3 MiB, under the 25 MiB upload limit, and expands to 146 MiB,
// under the 256 MiB decompression limit.
func BenchmarkLargestXLSXMemory(b *testing.B) {
	const rows = statement.DefaultMaxRows - 1 // the header is a sheet row
	data := compactXLSX(b, rows)
	benchLargestFile(b, "largest.xlsx", data, rows)
}

// BenchmarkLargestPDFMemory is BenchmarkLargestCSVMemory for the largest PDF statement
// statementd accepts: package pdf reads at most 2,000 pages, so a generated statement of 2,000
// pages of 30 transactions (60,000; every fourth with a wrapped second line, Flate-compressed
// content in Helvetica) from package pdftest, 3.4 MiB, far under the 25 MiB upload limit.
// With a 2,001st page the parser refuses the file (a resource limit).
func BenchmarkLargestPDFMemory(b *testing.B) {
	data, txs := pdftest.Statement(b, pdftest.Spec{Pages: 2000, RowsPerPage: 30})
	benchLargestFile(b, "largest.pdf", data, len(txs))
}

// BenchmarkLargestMT940Memory is BenchmarkLargestCSVMemory for the largest MT940 file: 24 MiB
// of German and Dutch statements (mt940test.Generate), about 120,000 statement lines.
func BenchmarkLargestMT940Memory(b *testing.B) {
	data, n := mt940test.Generate(24 << 20)
	benchLargestFile(b, "largest.sta", data, n)
}

// BenchmarkLargestQIFMemory is BenchmarkLargestCSVMemory for the largest QIF file: a bank
// register of 24 MiB (qiftest.Generate), about 270,000 records.
func BenchmarkLargestQIFMemory(b *testing.B) {
	data, n := qiftest.Generate(24 << 20)
	benchLargestFile(b, "largest.qif", data, n)
}

// maxUploadBytes is statementd's default upload limit (STATEMENTD_MAX_UPLOAD_BYTES).
const maxUploadBytes = 25 << 20

// benchLargestFile uploads data as one statement file named name to a fresh statementd, waits
// until the job is completed with wantRows transactions, and reports the file's size, the
// server's peak resident memory growth over its level before the upload (sampled every 5 ms)
// and the time from upload to completed. With BENCH_PROFILE_DIR set it saves the server's heap
// profile after the job (alloc_space shows what the job allocated) as, e.g.,
// largest-pdf-heap.pprof.
func benchLargestFile(b *testing.B, name string, data []byte, wantRows int) {
	b.Helper()
	if len(data) > maxUploadBytes {
		b.Fatalf("%s is %d bytes, more than the upload limit", name, len(data))
	}
	s := startServer(b)
	acct := s.newAccount(b, "Bench", "--parse-plan", "business")
	c := s.parseCaller(b, acct)
	ct, body := fileUpload(b, name, data)
	ctx := context.Background()
	pid := s.cmd.Process.Pid
	for b.Loop() {
		runtimeSettle()
		base, _ := procMemKiB(b, pid)
		stop, peak := sampleRSS(pid, 5*time.Millisecond)
		start := time.Now()
		r, err := c.pc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), bearer(c.key))
		if err != nil || r.StatusCode() != http.StatusAccepted {
			b.Fatalf("upload: %v %v", err, r)
		}
		j := c.waitFor(b, r.JSON202.Data.JobId, 5*time.Minute)
		took := time.Since(start)
		close(stop)
		saveProfile(b, s, "heap", strings.ReplaceAll(name, ".", "-")+"-heap.pprof")
		if j.Status != parseclient.JobStatusCompleted || j.TransactionsCount != wantRows {
			b.Fatalf("job %s: %s with %d transactions, want completed with %d (error %+v, review %+v)",
				j.JobId, j.Status, j.TransactionsCount, wantRows, j.Error, j.ReviewReasons)
		}
		b.ReportMetric(float64(len(data))/(1<<20), "file-MiB")
		b.ReportMetric(float64(<-peak-base)/1024, "peak-rss-growth-MiB")
		b.ReportMetric(took.Seconds(), "upload-to-completed-s")
	}
}

// compactXLSX is compactCSV's statement of n transactions as an .xlsx workbook: a header row
// Date, Description, Amount, then n rows of a date (a serial number formatted yyyy-mm-dd), a
// text P<i> and an amount (a number formatted 0.00, a third of them negative). It is written
// with excelize's StreamWriter, which keeps little in memory and writes text as inline strings.
func compactXLSX(b *testing.B, n int) []byte {
	b.Helper()
	f := excelize.NewFile()
	defer func() { require.NoError(b, f.Close()) }()
	sheet := f.GetSheetName(0)
	dateFmt, amountFmt := "yyyy-mm-dd", "0.00"
	dateStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt})
	require.NoError(b, err)
	amountStyle, err := f.NewStyle(&excelize.Style{CustomNumFmt: &amountFmt})
	require.NoError(b, err)
	sw, err := f.NewStreamWriter(sheet)
	require.NoError(b, err)
	require.NoError(b, sw.SetRow("A1", []any{"Date", "Description", "Amount"}))
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	row := make([]any, 3)
	for i := range n {
		cents := int64(1+i%5000)*100 + int64(i%100)
		if i%3 == 0 {
			cents = -cents
		}
		row[0] = excelize.Cell{StyleID: dateStyle, Value: day.AddDate(0, 0, i*365/n)}
		row[1] = "P" + strconv.Itoa(i)
		row[2] = excelize.Cell{StyleID: amountStyle, Value: float64(cents) / 100}
		cell, err := excelize.CoordinatesToCellName(1, i+2)
		require.NoError(b, err)
		require.NoError(b, sw.SetRow(cell, row))
	}
	require.NoError(b, sw.Flush())
	var buf bytes.Buffer
	require.NoError(b, f.Write(&buf))
	return buf.Bytes()
}

// waitAllFinished polls the account's job list until n jobs are finished, and returns them.
func waitAllFinished(b *testing.B, c parseCaller, n int, timeout time.Duration) []parseclient.Job {
	b.Helper()
	deadline := time.Now().Add(timeout)
	limit := 100
	for {
		var all []parseclient.Job
		unfinished := 0
		params := &parseclient.ListJobsParams{Limit: &limit}
		for {
			r, err := c.pc.ListJobsWithResponse(context.Background(), params, bearer(c.key))
			if err != nil || r.StatusCode() != http.StatusOK {
				b.Fatalf("list jobs: %v %v", err, r)
			}
			for _, j := range r.JSON200.Data.Jobs {
				if j.Status.Finished() {
					all = append(all, j)
				} else {
					unfinished++
				}
			}
			if r.JSON200.Data.NextCursor == nil {
				break
			}
			params.Cursor = r.JSON200.Data.NextCursor
		}
		if unfinished == 0 && len(all) >= n {
			return all
		}
		if time.Now().After(deadline) {
			b.Fatalf("after %s: %d jobs finished, %d not", timeout, len(all), unfinished)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// saveProfile saves a Go profile of the server (from its operator listener) into
// $BENCH_PROFILE_DIR/name, when that variable is set.
func saveProfile(b *testing.B, s *server, profile, name string) {
	b.Helper()
	dir := os.Getenv("BENCH_PROFILE_DIR")
	if dir == "" {
		return
	}
	resp, err := http.Get(s.OpsURL + "/debug/pprof/" + profile)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	f, err := os.Create(filepath.Join(dir, name))
	require.NoError(b, err)
	_, err = io.Copy(f, resp.Body)
	require.NoError(b, err)
	require.NoError(b, f.Close())
}

// profileCPU saves, when BENCH_PROFILE_DIR is set, a CPU profile of the server over the d that
// follows skip into $BENCH_PROFILE_DIR/name. It returns at once; the channel gets the outcome.
func profileCPU(s *server, skip, d time.Duration, name string) <-chan error {
	done := make(chan error, 1)
	dir := os.Getenv("BENCH_PROFILE_DIR")
	if dir == "" {
		done <- nil
		return done
	}
	go func() {
		time.Sleep(skip)
		resp, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", s.OpsURL, max(int(d.Seconds()), 1)))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			done <- fmt.Errorf("GET /debug/pprof/profile: %s", resp.Status)
			return
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		done <- errors.Join(err, f.Close())
	}()
	return done
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
