package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/statement/mt940/mt940test"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// peersDirEnv names the folder `make bench-peers` installed the peers into (npm's mt940-js in
// its node_modules); BenchmarkPeers runs only when it is set.
const peersDirEnv = "STATEMENTD_PEERS_DIR"

// peerRuns is how many times each side reads a file; the median counts.
const peerRuns = 3

// mt940jsScript times mt940-js's read on the file argv[2], in process, peerRuns times, and prints
// the median milliseconds and the transactions it read as JSON.
const mt940jsScript = `const { read } = require("mt940-js");
const buf = require("fs").readFileSync(process.argv[2]);
(async () => {
  const times = []; let n = 0;
  for (let i = 0; i < %d; i++) {
    const t = process.hrtime.bigint();
    const sts = await read(buf);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    n = sts.reduce((a, s) => a + s.transactions.length, 0);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ ms: times[Math.floor(times.length / 2)], transactions: n }));
})();
`

// median returns the median of peerRuns runs of f, which returns what it read.
func median(b *testing.B, f func() int) (time.Duration, int) {
	b.Helper()
	var times []time.Duration
	n := 0
	for range peerRuns {
		start := time.Now()
		n = f()
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2], n
}

// ours is engine.Parse on data: the whole read, from bytes to a checked statement, with OCR on
// as a worker runs it.
func ours(b *testing.B, data []byte) func() int {
	return func() int {
		st, err := engine.Parse(data, statement.Options{OCR: &statement.OCR{}})
		if err != nil {
			b.Fatal(err)
		}
		return len(st.Transactions)
	}
}

// command runs a peer's command and returns nothing read (a tool that only extracts text).
func command(b *testing.B, name string, args ...string) func() int {
	return func() int {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return 0
	}
}

// report logs one row of the peers table and reports it as metrics.
func report(b *testing.B, what string, oursTook, peerTook time.Duration, peer string) {
	b.Helper()
	ratio := peerTook.Seconds() / oursTook.Seconds()
	fmt.Printf("| %s | %s | %s: %s | %.2fx |\n", what, oursTook.Round(time.Millisecond), peer, peerTook.Round(time.Millisecond), ratio)
	b.ReportMetric(oursTook.Seconds()*1000, "ours-ms")
	b.ReportMetric(peerTook.Seconds()*1000, "peer-ms")
	b.ReportMetric(ratio, "peer/ours")
}

// BenchmarkPeers reads the same generated files with our engine and with other readers, the
// median of 3 runs each, and prints a row per file: our time, theirs, and how many times faster
// we are (above 1: faster). Run by `make bench-peers`, which installs the peers first.
//
//   - MT940, about 4 MB of German and Dutch statements: npm's mt940-js, in its own process
//     but timed in process as ours is (node's start-up not counted);
//   - PDF, 200 table pages of 30 transactions: poppler's `pdftotext -layout`, which only
//     extracts the text (the whole process timed);
//   - a scanned page (300 dpi): `tesseract PAGE -`, which only recognises the text, while ours
//     also straightens, reads the table and checks the statement.
func BenchmarkPeers(b *testing.B) {
	dir := os.Getenv(peersDirEnv)
	if dir == "" {
		b.Skip(peersDirEnv + " is not set: run make bench-peers")
	}
	work := b.TempDir()
	fmt.Println("| file | ours (engine.Parse) | peer | peer's time / ours |")
	fmt.Println("|---|---|---|---|")

	b.Run("MT940", func(b *testing.B) {
		data, n := mt940test.Generate(4_000_000)
		path := filepath.Join(work, "statements.sta")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		script := filepath.Join(dir, "mt940js-time.js")
		if err := os.WriteFile(script, fmt.Appendf(nil, mt940jsScript, peerRuns), 0o600); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			took, got := median(b, ours(b, data))
			if got != n {
				b.Fatalf("we read %d transactions, want %d", got, n)
			}
			cmd := exec.Command("node", script, path)
			cmd.Dir = dir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("mt940-js: %v\n%s", err, stderr.String())
			}
			var peer struct {
				MS           float64 `json:"ms"`
				Transactions int     `json:"transactions"`
			}
			if err := json.Unmarshal(out, &peer); err != nil {
				b.Fatalf("mt940-js printed %q: %v", out, err)
			}
			report(b, fmt.Sprintf("MT940, %.1f MB, %d transactions", float64(len(data))/1e6, n), took,
				time.Duration(peer.MS*float64(time.Millisecond)), fmt.Sprintf("mt940-js (%d transactions)", peer.Transactions))
		}
	})

	b.Run("PDF", func(b *testing.B) {
		data, txs := pdftest.Statement(b, pdftest.Spec{Pages: 200, RowsPerPage: 30})
		path := filepath.Join(work, "statement.pdf")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			took, got := median(b, ours(b, data))
			if got != len(txs) {
				b.Fatalf("we read %d transactions, want %d", got, len(txs))
			}
			peerTook, _ := median(b, command(b, "pdftotext", "-layout", path, filepath.Join(work, "statement.txt")))
			report(b, fmt.Sprintf("PDF, 200 pages, %d transactions", len(txs)), took, peerTook, "pdftotext -layout")
		}
	})

	b.Run("Scan", func(b *testing.B) {
		page := filepath.Join("..", "corpus", "testdata", "scans", "credit-card-uk-chromium-scan-300.png")
		data, err := os.ReadFile(page)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			took, _ := median(b, ours(b, data))
			peerTook, _ := median(b, command(b, "tesseract", page, filepath.Join(work, "page")))
			report(b, "a scanned page, 300 dpi", took, peerTook, "tesseract")
		}
	})
}
