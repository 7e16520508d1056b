package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Floors of TestCorpus: what the parser achieves on the corpus today. Raise them as the parser
// improves; never lower them to make a change pass.
const (
	// minExact is the least number of files read exactly.
	minExact = 107
	// minOpened is the least number of files, of those poppler opens without a password, whose
	// PDF structure the parser reads.
	minOpened = 109
)

// TestCorpus parses every corpus file and compares it with its key. It fails on any silent
// wrong answer (a file that ends completed with a count, date, amount or balance different
// from its key), and when fewer files than the floors are read exactly or opened.
//
// With CORPUS_REPORT=1 (make corpus-report) the per-file table and the summary go to stdout;
// otherwise they are logged, shown with -v.
func TestCorpus(t *testing.T) {
	files, err := Files("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files in testdata: run make corpus")
	}
	out := reporter(t)
	out("%-52s %-15s %-8s %9s %27s %27s %-8s %-8s %s", "file", "status", "poppler", "count", "credits got/key", "debits got/key", "opening", "closing", "note")
	var exact, opened, popplerOpens, protected, completedWrong, incomplete int
	// Exact files out of the counted ones, by producer and by layout.
	byProducer, byLayout := map[string][2]int{}, map[string][2]int{}
	for _, f := range files {
		k, err := ReadKey(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".pdf")
		if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
			t.Errorf("%s: no %%PDF- header in the first 1024 bytes, as every corpus file must have", name)
		}
		r := Check(name, data, k)
		pop := "opens"
		switch {
		case k.Password != "":
			pop = "password"
		case !k.PopplerOpens:
			pop = "refuses"
		}
		out("%-52s %-15s %-8s %4d/%-4d %13s/%-13s %13s/%-13s %-8s %-8s %s", name, r.Status, pop, r.Got, r.Want,
			r.GotCredits.StringFixed(2), r.WantCredits.StringFixed(2), r.GotDebits.StringFixed(2), r.WantDebits.StringFixed(2),
			r.OpeningCheck, r.ClosingCheck, r.Note)
		if k.Password != "" {
			protected++
			checkProtected(t, name, data, k)
		}
		switch {
		case k.PopplerOpens:
			popplerOpens++
			if r.Opened {
				opened++
			}
		}
		p, l := byProducer[k.Producer], byLayout[k.Layout]
		p[1]++
		l[1]++
		if r.Status == Exact {
			p[0]++
			l[0]++
		}
		byProducer[k.Producer], byLayout[k.Layout] = p, l
		switch r.Status {
		case Exact:
			exact++
		case Incomplete:
			incomplete++
		case CompletedWrong:
			completedWrong++
			t.Errorf("%s ended completed with a wrong answer: %d transactions (key %d), credits %s (key %s), debits %s (key %s), opening %s, closing %s",
				name, r.Got, r.Want, r.GotCredits, r.WantCredits, r.GotDebits, r.WantDebits, r.OpeningCheck, r.ClosingCheck)
		}
	}
	out("exact by producer: %s", shares(byProducer))
	out("exact by layout: %s", shares(byLayout))
	counted := len(files)
	out("exact %d/%d (%.1f%%); opened %d of the %d poppler opens; completed-wrong %d; incomplete (a balance not read) %d; protected by a password %d (read with it)",
		exact, counted, 100*float64(exact)/float64(max(counted, 1)), opened, popplerOpens, completedWrong, incomplete, protected)
	if exact < minExact {
		t.Errorf("%d files read exactly, fewer than the floor minExact = %d", exact, minExact)
	}
	if opened < minOpened {
		t.Errorf("%d files opened, fewer than the floor minOpened = %d", opened, minOpened)
	}
}

// shares writes "name n/m" for each key of counts, sorted by name.
func shares(counts map[string][2]int) string {
	var parts []string
	for name, c := range counts {
		parts = append(parts, fmt.Sprintf("%s %d/%d", name, c[0], c[1]))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// reporter prints a corpus test's lines: on standard output with CORPUS_REPORT set (make
// corpus-report), else to the test log.
func reporter(t *testing.T) func(format string, args ...any) {
	report := os.Getenv("CORPUS_REPORT") != ""
	return func(format string, args ...any) {
		if report {
			fmt.Printf(format+"\n", args...)
		} else {
			t.Logf(format, args...)
		}
	}
}
