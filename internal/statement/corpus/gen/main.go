// Command gen builds the development corpus of internal/statement/corpus: it writes each
// layout's statement as data, renders it through real PDF producers (Chromium, LibreOffice,
// groff with Ghostscript's ps2pdf, pdflatex, xelatex), derives re-distilled, qpdf-transformed
// and damaged copies, and writes every PDF with its answer key. Run it with `make corpus`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/statementmatch/service/internal/statement/corpus"
)

// item is one corpus file: a layout rendered by a producer, then perhaps transformed.
type item struct{ producer, variant string }

// layoutPlan is a layout's statement, the producers that render it, and the derived copies.
type layoutPlan struct {
	build func(r *rand.Rand) *stmt
	items []item
}

// password is the user password of the user-encrypted copies: banks use a date of birth or
// part of the account number.
const password = "01011985"

func plans() []layoutPlan {
	base := func(ps ...string) []item {
		var it []item
		for _, p := range ps {
			it = append(it, item{p, ""})
		}
		return it
	}
	with := func(items []item, vs ...string) []item {
		for _, v := range vs {
			p, v, _ := strings.Cut(v, ":")
			items = append(items, item{p, v})
		}
		return items
	}
	return []layoutPlan{
		{func(r *rand.Rand) *stmt { return usChecking(r, "us-checking", day(2022, 7, 1), day(2022, 7, 31), 28) },
			with(base("chromium", "libreoffice", "groff", "pdflatex"), "chromium:gs", "chromium:linearized", "libreoffice:owner-encrypted",
				"groff:objstm", "chromium:damaged-xref-shift", "chromium:linearized-incremental", "libreoffice:damaged-junk",
				"groff:user-encrypted-rc4-40")},
		{func(r *rand.Rand) *stmt {
			return usChecking(r, "us-checking-yearend", day(2022, 12, 16), day(2023, 1, 13), 24)
		}, with(base("chromium", "groff", "xelatex"), "xelatex:linearized", "chromium:damaged-xref-truncated")},
		{func(r *rand.Rand) *stmt { return ukCurrent(r, "uk-current", day(2022, 2, 12), day(2022, 3, 11), 30) },
			with(base("chromium", "libreoffice", "groff", "pdflatex", "xelatex"), "chromium:owner-encrypted", "libreoffice:gs",
				"groff:linearized", "pdflatex:objstm", "chromium:damaged-junk", "libreoffice:user-encrypted-rc4-128")},
		{func(r *rand.Rand) *stmt {
			return ukCurrent(r, "uk-current-long", day(2022, 9, 3), day(2022, 12, 2), 140)
		},
			with(base("chromium", "libreoffice", "groff", "pdflatex"), "chromium:objstm", "libreoffice:damaged-xref-shift")},
		{func(r *rand.Rand) *stmt {
			// A year of a busy account, about 50 pages: the benchmark of a real layout.
			return ukCurrent(r, "uk-current-year", day(2022, 9, 3), day(2023, 8, 31), 1700)
		}, with(base("libreoffice"))},
		{func(r *rand.Rand) *stmt {
			return inSavings(r, "in-savings", day(2023, 4, 1), day(2023, 6, 30), 45, false)
		}, with(base("chromium", "libreoffice", "pdflatex"), "chromium:user-encrypted", "libreoffice:user-encrypted",
			"chromium:owner-encrypted", "pdflatex:gs", "libreoffice:damaged-xref-truncated")},
		{func(r *rand.Rand) *stmt {
			return inSavings(r, "in-savings-ddmmyy", day(2023, 7, 1), day(2023, 7, 31), 26, true)
		}, with(base("chromium", "libreoffice", "xelatex", "groff"), "chromium:user-encrypted", "groff:owner-encrypted", "xelatex:gs")},
		{func(r *rand.Rand) *stmt { return nlSEPA(r, "nl-sepa", day(2023, 3, 1), day(2023, 3, 31), 24) },
			with(base("chromium", "libreoffice", "groff", "xelatex"), "chromium:gs", "libreoffice:linearized",
				"groff:linearized-incremental", "xelatex:owner-encrypted", "chromium:damaged-xref-garbled", "xelatex:user-encrypted-aes-128")},
		{func(r *rand.Rand) *stmt { return brExtrato(r, "br-extrato", day(2023, 5, 1), day(2023, 5, 31), 30) },
			with(base("chromium", "libreoffice", "groff", "xelatex"), "libreoffice:objstm", "chromium:owner-encrypted",
				"xelatex:damaged-junk", "chromium:gs")},
		{func(r *rand.Rand) *stmt {
			return ccStatement(r, "credit-card", day(2023, 2, 3), day(2023, 3, 2), 26, false)
		}, with(base("chromium", "libreoffice", "groff", "pdflatex"), "chromium:linearized", "libreoffice:gs",
			"pdflatex:owner-encrypted", "groff:damaged-xref-shift")},
		{func(r *rand.Rand) *stmt { return mobileMoney(r, "mobile-money", day(2023, 1, 1), day(2023, 1, 31), 36) },
			with(base("chromium", "libreoffice", "groff", "pdflatex"), "chromium:user-encrypted", "libreoffice:owner-encrypted",
				"chromium:gs", "groff:objstm", "pdflatex:linearized")},
		{func(r *rand.Rand) *stmt { return rtlStatement(r, "rtl-fa-jalali", true, 22) },
			with(base("chromium", "libreoffice"), "chromium:gs", "chromium:owner-encrypted", "chromium:linearized",
				"libreoffice:objstm")},
		{func(r *rand.Rand) *stmt { return rtlStatement(r, "rtl-ar", false, 22) },
			with(base("chromium", "libreoffice"), "chromium:objstm", "libreoffice:gs")},
		{func(r *rand.Rand) *stmt { return deGiro(r, "de-giro", day(2023, 3, 1), day(2023, 3, 31), 26) },
			with(base("chromium", "libreoffice", "groff", "xelatex"), "chromium:gs", "libreoffice:owner-encrypted",
				"groff:damaged-xref-truncated", "xelatex:linearized", "libreoffice:user-encrypted")},
		{func(r *rand.Rand) *stmt {
			return ccStatement(r, "credit-card-uk", day(2023, 2, 12), day(2023, 3, 11), 22, true)
		}, with(base("chromium", "libreoffice", "pdflatex"), "chromium:objstm", "libreoffice:damaged-xref-garbled", "pdflatex:gs")},
	}
}

func main() {
	out := flag.String("out", "internal/statement/corpus/testdata", "directory the corpus is written to")
	only := flag.String("only", "", "build only the layouts whose name contains this")
	keep := flag.Bool("keep", false, "keep the producers' inputs and work files")
	fresh := flag.Bool("fresh", false, "write every PDF anew, even where only the producers' dates and IDs would change")
	scans := flag.Bool("scans", false, "build only the scans (in <out>/scans) from the PDFs already in out")
	flag.Parse()
	log.SetFlags(0)
	// The producers run in the work directory: give them absolute paths.
	if abs, err := filepath.Abs(*out); err == nil {
		*out = abs
	}
	work, err := os.MkdirTemp("", "corpus-gen-")
	if err != nil {
		log.Fatal(err)
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		log.Printf("work files in %s", work)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	if *scans {
		buildScans(*out, work)
		return
	}
	// The statements first: each from its own fixed seed (by its place in the list: add new
	// layouts at the end, so that no other statement changes).
	type job struct {
		s    *stmt
		plan layoutPlan
	}
	var jobs []job
	for i, p := range plans() {
		s := p.build(rand.New(rand.NewPCG(2026, uint64(1000+i))))
		if *only != "" && !strings.Contains(s.layout, *only) {
			continue
		}
		jobs = append(jobs, job{s, p})
	}
	// The previous corpus moves aside; a new file whose key and extracted text are those of
	// its previous version keeps the previous bytes, because the producers embed dates and IDs
	// and the repository need not store a new copy of an unchanged statement.
	prev := filepath.Join(work, "previous")
	must(os.MkdirAll(prev, 0o755))
	if *only == "" {
		old, _ := filepath.Glob(filepath.Join(*out, "*"))
		for _, f := range old {
			if strings.HasSuffix(f, ".pdf") || strings.HasSuffix(f, ".key.json") {
				must(os.Rename(f, filepath.Join(prev, filepath.Base(f))))
			}
		}
	}
	p := &producers{work: work}
	// LibreOffice converts all its inputs in one start.
	var lo []string
	for _, j := range jobs {
		for _, it := range j.plan.items {
			if it.producer == "libreoffice" && it.variant == "" {
				lo = append(lo, j.s.layout)
			}
		}
	}
	for _, j := range jobs {
		p.writeInputs(j.s)
	}
	if err := p.libreoffice(lo); err != nil {
		log.Fatal(err)
	}
	var total, files int64
	var dropped []string
	for _, j := range jobs {
		for _, it := range j.plan.items {
			src, err := p.base(j.s, it.producer)
			if err != nil {
				log.Fatalf("%s %s: %v", j.s.layout, it.producer, err)
			}
			if it.variant == "" {
				bad, err := offPage(src)
				if err != nil {
					log.Fatalf("%s %s: pdftotext: %v", j.s.layout, it.producer, err)
				}
				if len(bad) > 0 {
					log.Fatalf("%s %s: %d words are off the page, such as %q: the layout is too wide", j.s.layout, it.producer, len(bad), bad[0])
				}
			}
			name := j.s.layout + "-" + it.producer
			if it.variant != "" {
				name += "-" + it.variant
			}
			dst := filepath.Join(*out, name+".pdf")
			pw, err := p.derive(src, dst, it.variant)
			if err != nil {
				log.Fatalf("%s: %v", name, err)
			}
			opens := popplerOpens(dst, pw)
			if !opens && strings.HasPrefix(it.variant, "damaged") {
				os.Remove(dst)
				dropped = append(dropped, name)
				log.Printf("%-48s dropped: pdftotext does not open it", name)
				continue
			}
			if opens && it.variant != "" {
				want, err1 := digitProfile(src, "")
				got, err2 := digitProfile(dst, pw)
				if err1 != nil || err2 != nil || got != want {
					os.Remove(dst)
					dropped = append(dropped, name)
					log.Printf("%-48s dropped: pdftotext reads other digits than from the producer's own file", name)
					continue
				}
			}
			k := key(j.s, it.producer, it.variant, opens, pw)
			b, _ := json.MarshalIndent(k, "", "  ")
			b = append(b, '\n')
			old := filepath.Join(prev, filepath.Base(dst))
			if !*fresh && sameStatement(old, dst, b, pw) {
				must(os.Rename(old, dst))
			}
			if err := os.WriteFile(corpus.KeyPath(dst), b, 0o644); err != nil {
				log.Fatal(err)
			}
			fi, _ := os.Stat(dst)
			total += fi.Size()
			files++
			log.Printf("%-48s %7d bytes  poppler_opens=%v", name, fi.Size(), opens)
		}
	}
	log.Printf("%d files, %d bytes; dropped %v", files, total, dropped)
}

// key writes the answer key from the statement data.
func key(s *stmt, producer, variant string, opens bool, pw string) corpus.Key {
	places := int32(2)
	if s.currency == "IRR" {
		places = 0
	}
	k := corpus.Key{
		Layout: s.layout, Producer: producer, Variant: variant, PopplerOpens: opens, Password: pw,
		Account: s.account, Currency: s.currency,
		PeriodStart: s.start.Format(time.DateOnly), PeriodEnd: s.end.Format(time.DateOnly),
		OpeningBalance: fixed(s.opening, places), ClosingBalance: fixed(s.closing, places),
		Transactions: []corpus.KeyTransaction{},
	}
	for _, t := range s.txns {
		k.Transactions = append(k.Transactions, corpus.KeyTransaction{
			Date: t.date.Format(time.DateOnly), Amount: t.amount.StringFixed(places),
			Description: strings.Join(t.desc, " "), Reference: t.ref,
		})
	}
	return k
}

func init() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/statement/corpus/gen [-out dir] [-only layout] [-keep] [-fresh] [-scans]")
		flag.PrintDefaults()
	}
}
