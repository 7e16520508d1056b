package match

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
)

// benchScales are the sizes benchmarked, in steps of ten up to the target: 1,000,000 bank lines
// against 100,000 references in under a second on one core.
var benchScales = []struct {
	name       string
	bank, refs int
	naiveToo   bool // the naive scan is quadratic: only at the small scales
}{
	{"10k_lines_1k_refs", 10_000, 1_000, true},
	{"100k_lines_10k_refs", 100_000, 10_000, true},
	{"1M_lines_100k_refs", 1_000_000, 100_000, false},
}

type benchInput struct {
	expected []Expected
	bank     []BankEntry
}

var (
	benchMu     sync.Mutex
	benchInputs = map[int]benchInput{}
)

// benchCase generates, once per scale, a statement of nBank lines paying invoices
// INV-2024-000000 onwards, of which every (nBank/nRefs)-th is in the expected file of nRefs
// rows. Texts look like real remittance information: booking words, a payer, numbers that are
// not references, and the invoice number, usually as written (80%), sometimes spaced, run
// together or with other separators (10%), or missing (10%). A few invoices are paid in two
// instalments, a few with a wrong amount, a few twice.
func benchCase(nBank, nRefs int) benchInput {
	benchMu.Lock()
	defer benchMu.Unlock()
	if in, ok := benchInputs[nBank]; ok {
		return in
	}
	rng := rand.New(rand.NewPCG(uint64(nBank), 42))
	payers := []string{
		"ACME GMBH", "BETA LTD", "MUELLER & SOHN KG", "CAFÉ ZÜRICH AG", "NORDWIND LOGISTIK",
		"SMITH, JOHN", "GLOBAL TRADING S.A.", "KRAUSE ELEKTRO", "DUPONT SARL", "ROSSI SPA",
	}
	books := []string{"SEPA CREDIT TRANSFER", "SEPA GUTSCHRIFT", "INCOMING PAYMENT", "UEBERWEISUNG", "CREDIT"}
	amount := func(inv int) decimal.Decimal { return decimal.New(int64(1000+(inv*7919)%500000), -2) }
	refText := func(inv int) string {
		switch r := rng.IntN(100); {
		case r < 80:
			return fmt.Sprintf("INV-2024-%06d", inv)
		case r < 83:
			return fmt.Sprintf("INV 2024 %06d", inv)
		case r < 86:
			return fmt.Sprintf("inv/2024/%06d", inv)
		case r < 88:
			return fmt.Sprintf("INV2024%06d", inv)
		default:
			return fmt.Sprintf("Inv.2024_%06d", inv)
		}
	}
	step := max(1, nBank/nRefs)
	bank := make([]BankEntry, 0, nBank)
	for inv := 0; len(bank) < nBank; inv++ {
		text := func(ref string) string {
			return fmt.Sprintf("%s %s %04d %s CUSTOMER %d REF %05d",
				books[rng.IntN(len(books))], payers[rng.IntN(len(payers))], rng.IntN(10000), ref, rng.IntN(1000), rng.IntN(100000))
		}
		ref := refText(inv)
		if rng.IntN(10) == 0 {
			ref = "" // no reference at all
		}
		a := amount(inv)
		switch r := rng.IntN(100); {
		case r < 2 && len(bank)+2 <= nBank: // two instalments
			half := a.Div(decimal.New(2, 0)).Round(2)
			bank = append(bank,
				BankEntry{Line: len(bank) + 1, Amount: half, Currency: "EUR", Text: text(ref + " 1/2")},
				BankEntry{Line: len(bank) + 2, Amount: a.Sub(half), Currency: "EUR", Text: text(ref + " 2/2")})
		case r < 3 && len(bank)+2 <= nBank: // paid twice
			bank = append(bank,
				BankEntry{Line: len(bank) + 1, Amount: a, Currency: "EUR", Text: text(ref)},
				BankEntry{Line: len(bank) + 2, Amount: a, Currency: "EUR", Text: text(ref)})
		case r < 5: // wrong amount
			bank = append(bank, BankEntry{Line: len(bank) + 1, Amount: a.Add(decimal.New(1, 0)), Currency: "EUR", Text: text(ref)})
		default:
			bank = append(bank, BankEntry{Line: len(bank) + 1, Amount: a, Currency: "EUR", Text: text(ref)})
		}
	}
	// Statements are not sorted by invoice: shuffle.
	rng.Shuffle(len(bank), func(i, j int) { bank[i], bank[j] = bank[j], bank[i] })
	// A reader allocates texts in statement order; so does a real reconciliation's input.
	for i := range bank {
		bank[i].Line = i + 1
		bank[i].Text = strings.Clone(bank[i].Text)
	}
	expected := make([]Expected, nRefs)
	for k := range expected {
		inv := k * step
		expected[k] = Expected{Row: k + 2, Reference: fmt.Sprintf("INV-2024-%06d", inv), Amount: amount(inv), Currency: "EUR"}
	}
	in := benchInput{expected, bank}
	benchInputs[nBank] = in
	return in
}

func BenchmarkReconcile(b *testing.B) {
	for _, sc := range benchScales {
		b.Run(sc.name, func(b *testing.B) {
			in := benchCase(sc.bank, sc.refs)
			var res Result
			for b.Loop() {
				res = Reconcile(in.expected, in.bank)
			}
			s := res.Summary
			b.ReportMetric(float64(s.MatchedCount)/float64(s.ExpectedCount), "matched/ref")
		})
	}
}

// BenchmarkReconcileFind measures rule 1 alone: scanning every line for every reference.
func BenchmarkReconcileFind(b *testing.B) {
	for _, sc := range benchScales {
		b.Run(sc.name, func(b *testing.B) {
			in := benchCase(sc.bank, sc.refs)
			norms := make([]string, len(in.expected))
			for i, e := range in.expected {
				norms[i] = string(normalize(nil, e.Reference))
			}
			f := finderOf(norms...)
			hits := 0
			for b.Loop() {
				for i := range in.bank {
					hits += len(f.find(in.bank[i].Text))
				}
			}
			_ = hits
		})
	}
}

// BenchmarkReconcileNaiveScan is the approach the finder replaces, for comparison: every
// reference searched in every lower-cased text with strings.Contains (and it does not even
// respect token boundaries). It is quadratic, so it runs at the small scales only.
func BenchmarkReconcileNaiveScan(b *testing.B) {
	for _, sc := range benchScales {
		if !sc.naiveToo {
			continue
		}
		b.Run(sc.name, func(b *testing.B) {
			in := benchCase(sc.bank, sc.refs)
			refs := make([]string, len(in.expected))
			for i, e := range in.expected {
				refs[i] = strings.ToLower(e.Reference)
			}
			hits := 0
			for b.Loop() {
				for i := range in.bank {
					text := strings.ToLower(in.bank[i].Text)
					for _, r := range refs {
						if strings.Contains(text, r) {
							hits++
						}
					}
				}
			}
			_ = hits
		})
	}
}
