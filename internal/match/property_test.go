package match

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// randomCase builds a small reconciliation with many collisions: few distinct references
// (often repeated in the expected file), texts mixing references written in every allowed and
// forbidden way with noise, and amounts drawn from a small set so that exact payments,
// duplicates, instalments and mismatches all happen. One case in three is sparse, as real
// files are: many references, each named by few lines, so that combined payments and
// instalments, which need a reference named nowhere else, happen too.
func randomCase(rng *rand.Rand) ([]Expected, []BankEntry) {
	sparse := rng.IntN(3) == 0
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	prefixes := []string{"INV", "inv", "SO", "RÉF", "Über", "A", "X", "", "ǅ", "straſe"}
	joins := []string{"-", "/", " ", "", ".", "_", "#"}
	amounts := []string{"100", "100.00", "50", "50.0", "25", "150", "75", "-100", "-50", "0.5", "200", "0"}
	currencies := []string{"", "EUR", "USD", "eur"}
	noise := []string{"PAYMENT", "SEPA", "X", "INV", "10", "2024", "ÜBERWEISUNG", "ab", "1", "REF", "inv10"}
	seps := []string{" ", " ", "-", "/", ".", "_", " - ", ",", ":", "#", "(", "", "\u00a0", "\xff"}

	pool := make([]string, 1+rng.IntN(8))
	if sparse {
		pool = make([]string, 10+rng.IntN(20))
	}
	for i := range pool {
		switch rng.IntN(12) {
		case 0:
			pool[i] = pick([]string{"--", "#", ""}) // no token: never found
		default:
			ref := pick(prefixes) + pick(joins) + strings.Repeat("1", rng.IntN(2)) + string(rune('0'+rng.IntN(10)))
			if rng.IntN(3) == 0 {
				ref += pick(joins) + string(rune('0'+rng.IntN(3)))
			}
			if sparse { // distinct references, as an invoice file has
				ref += pick(joins) + strconv.Itoa(10+i)
			}
			pool[i] = ref
		}
	}
	// spell writes a reference as a bank might: its tokens in random case, joined by random
	// allowed separators or run together.
	spell := func(ref string) string {
		var b strings.Builder
		for i, tok := range naiveTokens(ref) {
			if i > 0 {
				b.WriteString(pick([]string{"", " ", "-", "/", ".", "_", " / "}))
			}
			for _, r := range ref[tok.start:tok.end] {
				if rng.IntN(2) == 0 {
					r = unicode.ToUpper(r)
				} else {
					r = unicode.ToLower(r)
				}
				b.WriteRune(r)
			}
		}
		return b.String()
	}

	expected := make([]Expected, rng.IntN(12))
	if sparse {
		expected = make([]Expected, len(pool))
	}
	for i := range expected {
		ref := pick(pool)
		if sparse && rng.IntN(8) > 0 {
			ref = pool[i]
		}
		expected[i] = Expected{
			Row: i + 2, Reference: ref,
			Amount: decimal.RequireFromString(pick(amounts)), Currency: pick(currencies), DueDate: randomDate(rng),
		}
	}
	bank := make([]BankEntry, rng.IntN(25))
	for i := range bank {
		var b strings.Builder
		for j := range rng.IntN(5) {
			if j > 0 {
				b.WriteString(pick(seps))
			}
			mention := rng.IntN(5)
			if sparse && rng.IntN(8) > 0 {
				mention = 0
			}
			switch mention {
			case 0:
				b.WriteString(pick(noise))
			case 1: // a near miss: glued to a letter or digit
				b.WriteString(pick([]string{"X", "0", ""}) + spell(pick(pool)) + pick([]string{"0", "Y", ""}))
			default:
				b.WriteString(spell(pick(pool)))
			}
		}
		amount, currency := pick(amounts), pick(currencies)
		if len(expected) > 0 && rng.IntN(2) == 0 {
			amount = expected[rng.IntN(len(expected))].Amount.String()
		}
		if len(expected) > 1 && rng.IntN(4) == 0 && (!sparse || rng.IntN(2) == 0) {
			// A combined payment, or nearly one: two or three expected rows named on one line
			// paying their sum, sometimes a cent off.
			b.Reset()
			sum := decimal.Zero
			for k, r := range rng.Perm(len(expected))[:min(len(expected), 2+rng.IntN(2))] {
				e := expected[r]
				if k > 0 {
					b.WriteString(pick([]string{" ", " / ", ", ", " + "}))
				}
				b.WriteString(spell(e.Reference))
				sum = sum.Add(e.Amount.Abs())
				if k == 0 && rng.IntN(2) == 0 {
					currency = e.Currency
				}
			}
			if rng.IntN(4) == 0 {
				sum = sum.Add(decimal.New(1, -2))
			}
			amount = sum.String()
		}
		bank[i] = BankEntry{
			Line: i + 1, Text: b.String(), Date: randomDate(rng),
			Amount: decimal.RequireFromString(amount), Currency: currency,
		}
	}
	if sparse && len(expected) > 0 {
		// Instalments: a row's amount paid on two lines, one of them sometimes a cent off.
		for range rng.IntN(3) {
			e := expected[rng.IntN(len(expected))]
			first := decimal.RequireFromString(pick([]string{"0.5", "10", "25"}))
			rest := e.Amount.Abs().Sub(first)
			if rng.IntN(4) == 0 {
				rest = rest.Add(decimal.New(1, -2))
			}
			for _, a := range []decimal.Decimal{first, rest} {
				bank = append(bank, BankEntry{
					Line: len(bank) + 1, Text: "PART " + spell(e.Reference), Amount: a, Currency: e.Currency,
				})
			}
		}
	}
	return expected, bank
}

// randomDate returns one of a few days around the turn of a month and a leap day, or the
// zero Date (none) one time in four: ties and missing dates are common.
func randomDate(rng *rand.Rand) statement.Date {
	days := []statement.Date{{}, statement.MustDate(2024, 2, 28), statement.MustDate(2024, 2, 29),
		statement.MustDate(2024, 3, 1), statement.MustDate(2024, 3, 2), statement.MustDate(2023, 12, 31)}
	if rng.IntN(4) == 0 {
		return statement.Date{}
	}
	return days[rng.IntN(len(days))]
}

// checkInvariants checks what must hold of any result, whatever the rules decided.
func checkInvariants(t *testing.T, expected []Expected, bank []BankEntry, res Result) {
	t.Helper()
	require.Len(t, res.References, len(expected))
	owners := make([][]int, len(bank))
	var counts [3]int
	total, matchedTotal := decimal.Zero, decimal.Zero
	for i, ref := range res.References {
		require.Equal(t, i, ref.Expected)
		require.NotNil(t, ref.Entries)
		require.True(t, slices.IsSorted(ref.Entries), "entries of %d not in statement order", i)
		want := expected[i].Amount.Abs()
		total = total.Add(want)
		paid := decimal.Zero
		for _, l := range ref.Entries {
			owners[l] = append(owners[l], i)
			paid = paid.Add(bank[l].Amount.Abs())
			require.True(t, naiveFound(bank[l].Text, expected[i].Reference),
				"line %d %q does not mention %q", l, bank[l].Text, expected[i].Reference)
		}
		if ref.Rule == RuleCombinedPayment {
			require.Len(t, ref.Entries, 1)
			paid = want // its share of the line
		}
		require.True(t, paid.Equal(ref.Paid), "paid of %d", i)
		switch ref.Outcome {
		case Matched:
			require.Empty(t, ref.Reason)
			require.NotEmpty(t, ref.Entries)
			require.Contains(t, []Rule{RuleExact, RuleCombinedPayment, RuleInstalments}, ref.Rule)
			require.True(t, paid.Equal(want), "matched %d pays %s, not %s", i, paid, want)
			matchedTotal = matchedTotal.Add(want)
		case Partial:
			require.Contains(t, []Reason{ReasonAmountMismatch, ReasonCurrencyMismatch, ReasonDuplicatePayment}, ref.Reason)
			require.NotEmpty(t, ref.Entries)
			if ref.Reason == ReasonDuplicatePayment {
				require.GreaterOrEqual(t, len(ref.Entries), 2)
			}
		case Unmatched:
			require.Empty(t, ref.Reason)
			require.Empty(t, ref.Entries)
			require.True(t, ref.Paid.IsZero())
			require.LessOrEqual(t, len(ref.Suggestions), MaxSuggestions)
			for _, l := range ref.Suggestions {
				require.Contains(t, res.Unused, l, "suggested line %d was used", l)
				require.True(t, bank[l].Amount.Abs().Equal(want), "suggested line %d pays %s", l, bank[l].Amount)
				require.True(t, agree(expected[i].Currency, bank[l].Currency))
			}
		default:
			t.Fatalf("outcome %d", ref.Outcome)
		}
		counts[ref.Outcome]++
	}
	// A line belongs to one reference, except a combined payment, shared by references that
	// it pays exactly together, and a line shown against Partial references of pass 3, each
	// of them a different reference.
	for l, o := range owners {
		if len(o) < 2 {
			continue
		}
		combined, shares := res.References[o[0]].Rule == RuleCombinedPayment, decimal.Zero
		for k, i := range o {
			ref := res.References[i]
			if combined {
				require.Equal(t, RuleCombinedPayment, ref.Rule, "line %d of a combined payment and of %d", l, i)
				shares = shares.Add(ref.Paid)
			} else {
				require.Contains(t, []Rule{RuleAmountMismatch, RuleCurrencyMismatch}, ref.Rule, "line %d used twice", l)
			}
			for _, j := range o[:k] {
				require.NotEqual(t, normalize(nil, expected[i].Reference), normalize(nil, expected[j].Reference),
					"line %d shown against two rows of one reference", l)
			}
		}
		if combined {
			require.True(t, shares.Equal(bank[l].Amount.Abs()), "combined payment on line %d", l)
		}
	}
	require.NotNil(t, res.Unused)
	require.True(t, slices.IsSorted(res.Unused))
	for _, l := range res.Unused {
		require.Empty(t, owners[l], "line %d both used and unused", l)
		owners[l] = append(owners[l], len(expected))
	}
	for l, o := range owners {
		require.NotEmpty(t, o, "line %d neither used nor unused", l)
	}
	s := res.Summary
	require.Equal(t, len(expected), s.ExpectedCount)
	require.Equal(t, counts[Matched], s.MatchedCount)
	require.Equal(t, counts[Partial], s.PartialCount)
	require.Equal(t, counts[Unmatched], s.UnmatchedCount)
	require.Equal(t, s.ExpectedCount, s.MatchedCount+s.PartialCount+s.UnmatchedCount)
	require.Equal(t, len(res.Unused), s.UnmatchedBankEntriesCount)
	require.True(t, total.Equal(s.ExpectedTotal))
	require.True(t, matchedTotal.Equal(s.MatchedTotal))
}

func TestReconcileProperties(t *testing.T) {
	t.Run("one-row groups walk their lines", func(t *testing.T) { testProperties(t) })
	t.Run("every group indexed", func(t *testing.T) {
		forceMultiIndex = true
		defer func() { forceMultiIndex = false }()
		testProperties(t)
	})
}

func testProperties(t *testing.T) {
	rules, suggested := map[Rule]int{}, 0
	for seed := range uint64(600) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		expected, bank := randomCase(rng)
		res := Reconcile(expected, bank)
		for _, ref := range res.References {
			rules[ref.Rule]++
			if len(ref.Suggestions) > 0 {
				suggested++
			}
		}
		checkInvariants(t, expected, bank, res)
		// The oracle applies the same rules slowly and literally: both must agree exactly.
		require.Equal(t, render(t, naiveReconcile(expected, bank)), render(t, res), "seed %d", seed)
		for _, b := range bank {
			for _, e := range expected {
				checkFind(t, b.Text, e.Reference)
			}
		}
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
	// The cases must exercise every rule, shared lines included, or agreeing proves little.
	t.Logf("rules decided: %v; %d references with suggestions", rules, suggested)
	require.GreaterOrEqual(t, suggested, 20)
	for _, r := range []Rule{RuleExact, RuleCombinedPayment, RuleInstalments, RuleAmountMismatch, RuleCurrencyMismatch, RuleDuplicatePayment} {
		require.GreaterOrEqual(t, rules[r], 20, "rule %s decided too rarely", r)
	}
}

// TestReconcileDeterministic checks that the same input always gives the same result, whatever
// map iteration order does.
func TestReconcileDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		expected, bank := randomCase(rng)
		first := render(t, Reconcile(expected, bank))
		for range 3 {
			require.Equal(t, first, render(t, Reconcile(expected, bank)))
		}
	}
}
