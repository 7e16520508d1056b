package match

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// This file holds slow, obviously correct implementations of the rules, written straight from
// their wording, against which the fast ones are checked.

// naiveToken is a token of a text: a maximal run of letters and digits, at text[start:end].
type naiveToken struct {
	start, end int
}

func naiveTokens(s string) []naiveToken {
	var toks []naiveToken
	start := -1
	for i, r := range s {
		isTok := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case isTok && start < 0:
			start = i
		case !isTok && start >= 0:
			toks = append(toks, naiveToken{start, i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, naiveToken{start, len(s)})
	}
	return toks
}

// naiveLinks reports whether sep, the characters between two tokens, holds only spaces, '-',
// '/', '.' and '_'.
func naiveLinks(sep string) bool {
	for _, r := range sep {
		if !strings.ContainsRune("-/._", r) && !statement.IsSpace(r) {
			return false
		}
	}
	return true
}

// naiveJoin is the reference's tokens joined together.
func naiveJoin(ref string) string {
	var b strings.Builder
	for _, t := range naiveTokens(ref) {
		b.WriteString(ref[t.start:t.end])
	}
	return b.String()
}

// naiveFound is rule 1 word for word: try every run of consecutive tokens of the text joined
// only by allowed separators, and compare it with the reference's joined tokens ignoring case.
func naiveFound(text, ref string) bool {
	want := naiveJoin(ref)
	if want == "" {
		return false
	}
	// Strings equal ignoring case have as many runes (EqualFold compares rune by rune), so a
	// run of tokens longer than the reference in runes cannot match, nor can its extensions:
	// stopping there keeps the matcher quadratic rather than cubic on long fuzzed texts.
	wantRunes := utf8.RuneCountInString(want)
	toks := naiveTokens(text)
	for i := range toks {
		var joined strings.Builder
		for j := i; j < len(toks); j++ {
			if j > i && !naiveLinks(text[toks[j-1].end:toks[j].start]) {
				break
			}
			joined.WriteString(text[toks[j].start:toks[j].end])
			if utf8.RuneCountInString(joined.String()) > wantRunes {
				break
			}
			if strings.EqualFold(joined.String(), want) {
				return true
			}
		}
	}
	return false
}

// naiveReconcile applies the passes literally, re-walking every candidate of every reference:
// quadratic, but easy to check against the rules.
func naiveReconcile(expected []Expected, bank []BankEntry) Result {
	n := len(expected)
	cands := make([][]int, n)
	for r := range expected {
		for l := range bank {
			if naiveFound(bank[l].Text, expected[r].Reference) {
				cands[r] = append(cands[r], l)
			}
		}
	}
	abs := func(d decimal.Decimal) decimal.Decimal { return d.Abs() }
	laterTwin := func(r int) bool {
		for s := r + 1; s < n; s++ {
			if naiveJoin(expected[r].Reference) != "" &&
				strings.EqualFold(naiveJoin(expected[s].Reference), naiveJoin(expected[r].Reference)) &&
				abs(expected[s].Amount).Equal(abs(expected[r].Amount)) {
				return true
			}
		}
		return false
	}
	agrees := func(r, l int) bool {
		a, b := expected[r].Currency, bank[l].Currency
		return a == "" || b == "" || strings.EqualFold(a, b)
	}
	used := make([]bool, len(bank))
	shown := make([]bool, len(bank)) // lines of pass 3, which stay candidates of other references
	refs := make([]Reference, n)
	decided := make([]bool, n)
	pass := 1
	decide := func(r int, o Outcome, reason Reason, rule Rule, lines []int) {
		paid := decimal.Zero
		for i, l := range lines {
			if pass == 3 {
				shown[l] = true
			} else {
				used[l] = true
			}
			if i == 0 {
				paid = abs(bank[l].Amount)
			} else {
				paid = paid.Add(abs(bank[l].Amount))
			}
		}
		refs[r] = Reference{Expected: r, Outcome: o, Reason: reason, Rule: rule, Entries: lines, Paid: paid}
		decided[r] = true
	}
	remaining := func(r int, agreeing bool) []int {
		lines := []int{}
		for _, l := range cands[r] {
			if !used[l] && (!agreeing || agrees(r, l)) {
				lines = append(lines, l)
			}
		}
		return lines
	}
	for r := range expected { // pass 1
		var full []int
		for _, l := range remaining(r, true) {
			if abs(bank[l].Amount).Equal(abs(expected[r].Amount)) {
				full = append(full, l)
			}
		}
		switch {
		case len(full) == 1 || len(full) > 1 && laterTwin(r):
			decide(r, Matched, "", "exact", full[:1])
		case len(full) > 1:
			decide(r, Partial, ReasonDuplicatePayment, "duplicate_payment", full)
		}
	}
	// Combined payments: a line naming two or more references, each of one row, undecided and
	// named by no other line, whose currencies agree with the line's and each other's, and
	// whose non-zero amounts add up to the line's.
	sameRef := func(r, s int) bool {
		return naiveJoin(expected[r].Reference) != "" &&
			strings.EqualFold(naiveJoin(expected[r].Reference), naiveJoin(expected[s].Reference))
	}
	for l := range bank {
		if used[l] {
			continue
		}
		var named []int
		ok := true
		for r := range expected {
			if !slices.Contains(cands[r], l) {
				continue
			}
			named = append(named, r)
			for s := range expected {
				if s != r && sameRef(r, s) {
					ok = false // a reference of several rows
				}
			}
			if decided[r] || len(cands[r]) != 1 || expected[r].Amount.IsZero() || !agrees(r, l) {
				ok = false
			}
		}
		sum := decimal.Zero
		for _, r := range named {
			for _, s := range named {
				if a, b := expected[r].Currency, expected[s].Currency; a != "" && b != "" && !strings.EqualFold(a, b) {
					ok = false
				}
			}
			sum = sum.Add(abs(expected[r].Amount))
		}
		if !ok || len(named) < 2 || !sum.Equal(abs(bank[l].Amount)) {
			continue
		}
		for _, r := range named {
			decide(r, Matched, "", "combined_payment", []int{l})
			refs[r].Paid = abs(expected[r].Amount)
		}
	}
	pass = 2
	for r := range expected { // pass 2
		if decided[r] {
			continue
		}
		lines := remaining(r, true)
		sum := decimal.Zero
		for _, l := range lines {
			sum = sum.Add(abs(bank[l].Amount))
		}
		if len(lines) >= 2 && sum.Equal(abs(expected[r].Amount)) {
			decide(r, Matched, "", "instalments", lines)
		}
	}
	pass = 3
	// In pass 3 a line shown against one reference stays a candidate of the others, but not of
	// later rows of the same reference.
	in3 := make([]bool, n)
	remaining3 := func(r int, agreeing bool) []int {
		lines := []int{}
		for _, l := range remaining(r, agreeing) {
			taken := false
			for s := range r {
				if in3[s] && sameRef(r, s) && slices.Contains(refs[s].Entries, l) {
					taken = true
				}
			}
			if !taken {
				lines = append(lines, l)
			}
		}
		return lines
	}
	for r := range expected { // pass 3
		if decided[r] {
			continue
		}
		in3[r] = true
		if lines := remaining3(r, true); len(lines) > 0 {
			decide(r, Partial, ReasonAmountMismatch, "amount_mismatch", lines)
		} else if lines := remaining3(r, false); len(lines) > 0 {
			decide(r, Partial, ReasonCurrencyMismatch, "currency_mismatch", lines)
		} else {
			refs[r] = Reference{Expected: r, Outcome: Unmatched, Entries: []int{}, Paid: decimal.Zero}
		}
	}
	res := Result{References: refs, Unused: []int{}}
	for l, u := range used {
		if !u && !shown[l] {
			res.Unused = append(res.Unused, l)
		}
	}
	// Suggestions: unused lines paying exactly the amount of an unmatched reference, in an
	// agreeing currency, nearest to its due date first, then in statement order.
	for r := range refs {
		if refs[r].Outcome != Unmatched || expected[r].Amount.IsZero() {
			continue
		}
		var lines []int
		for _, l := range res.Unused {
			if abs(bank[l].Amount).Equal(abs(expected[r].Amount)) && agrees(r, l) {
				lines = append(lines, l)
			}
		}
		dist := func(l int) float64 {
			due := expected[r].DueDate
			switch {
			case due.IsZero():
				return 0
			case bank[l].Date.IsZero():
				return math.Inf(1)
			}
			return math.Abs(bank[l].Date.Time().Sub(due.Time()).Hours())
		}
		sort.SliceStable(lines, func(i, j int) bool { return dist(lines[i]) < dist(lines[j]) })
		if len(lines) > MaxSuggestions {
			lines = lines[:MaxSuggestions]
		}
		if len(lines) > 0 {
			refs[r].Suggestions = lines
		}
	}
	s := &res.Summary
	s.ExpectedCount = n
	for r, ref := range refs {
		s.ExpectedTotal = s.ExpectedTotal.Add(abs(expected[r].Amount))
		switch ref.Outcome {
		case Matched:
			s.MatchedCount++
			s.MatchedTotal = s.MatchedTotal.Add(abs(expected[r].Amount))
		case Partial:
			s.PartialCount++
		default:
			s.UnmatchedCount++
		}
	}
	s.UnmatchedBankEntriesCount = len(res.Unused)
	return res
}
