package match

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// randomCase builds a small reconciliation with many collisions: few distinct references
// (often repeated in the expected file), texts mixing references written in every allowed and
// forbidden way with noise, and amounts drawn from a small set so that exact payments,
// duplicates, instalments and mismatches all happen.
func randomCase(rng *rand.Rand) ([]Expected, []BankEntry) {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	prefixes := []string{"INV", "inv", "SO", "RÉF", "Über", "A", "X", "", "ǅ", "straſe"}
	joins := []string{"-", "/", " ", "", ".", "_", "#"}
	amounts := []string{"100", "100.00", "50", "50.0", "25", "150", "75", "-100", "-50", "0.5", "200", "0"}
	currencies := []string{"", "EUR", "USD", "eur"}
	noise := []string{"PAYMENT", "SEPA", "X", "INV", "10", "2024", "ÜBERWEISUNG", "ab", "1", "REF", "inv10"}
	seps := []string{" ", " ", "-", "/", ".", "_", " - ", ",", ":", "#", "(", "", "\u00a0", "\xff"}

	pool := make([]string, 1+rng.IntN(8))
	for i := range pool {
		switch rng.IntN(12) {
		case 0:
			pool[i] = pick([]string{"--", "#", ""}) // no token: never found
		default:
			ref := pick(prefixes) + pick(joins) + strings.Repeat("1", rng.IntN(2)) + string(rune('0'+rng.IntN(10)))
			if rng.IntN(3) == 0 {
				ref += pick(joins) + string(rune('0'+rng.IntN(3)))
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
	for i := range expected {
		expected[i] = Expected{
			Row: i + 2, Reference: pick(pool),
			Amount: decimal.RequireFromString(pick(amounts)), Currency: pick(currencies),
		}
	}
	bank := make([]BankEntry, rng.IntN(25))
	for i := range bank {
		var b strings.Builder
		for j := range rng.IntN(5) {
			if j > 0 {
				b.WriteString(pick(seps))
			}
			switch rng.IntN(5) {
			case 0:
				b.WriteString(pick(noise))
			case 1: // a near miss: glued to a letter or digit
				b.WriteString(pick([]string{"X", "0", ""}) + spell(pick(pool)) + pick([]string{"0", "Y", ""}))
			default:
				b.WriteString(spell(pick(pool)))
			}
		}
		amount := pick(amounts)
		if len(expected) > 0 && rng.IntN(2) == 0 {
			amount = expected[rng.IntN(len(expected))].Amount.String()
		}
		bank[i] = BankEntry{
			Line: i + 1, Text: b.String(),
			Amount: decimal.RequireFromString(amount), Currency: pick(currencies),
		}
	}
	return expected, bank
}

// checkInvariants checks what must hold of any result, whatever the rules decided.
func checkInvariants(t *testing.T, expected []Expected, bank []BankEntry, res Result) {
	t.Helper()
	require.Len(t, res.References, len(expected))
	owner := make([]int, len(bank))
	for i := range owner {
		owner[i] = -1
	}
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
			require.Equal(t, -1, owner[l], "line %d used twice", l)
			owner[l] = i
			paid = paid.Add(bank[l].Amount.Abs())
			require.True(t, naiveFound(bank[l].Text, expected[i].Reference),
				"line %d %q does not mention %q", l, bank[l].Text, expected[i].Reference)
		}
		require.True(t, paid.Equal(ref.Paid), "paid of %d", i)
		switch ref.Outcome {
		case Matched:
			require.Empty(t, ref.Reason)
			require.NotEmpty(t, ref.Entries)
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
		default:
			t.Fatalf("outcome %d", ref.Outcome)
		}
		counts[ref.Outcome]++
	}
	require.NotNil(t, res.Unused)
	require.True(t, slices.IsSorted(res.Unused))
	for _, l := range res.Unused {
		require.Equal(t, -1, owner[l], "line %d both used and unused", l)
		owner[l] = len(expected)
	}
	for l, o := range owner {
		require.NotEqual(t, -1, o, "line %d neither used nor unused", l)
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
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		expected, bank := randomCase(rng)
		res := Reconcile(expected, bank)
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
