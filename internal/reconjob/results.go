package reconjob

import (
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
)

// Results is the stored outcome of a completed job. Its JSON form is what the Store keeps; the
// HTTP layer converts it to the API's JobResults.
type Results struct {
	Matched              []MatchedReference   `json:"matched"`
	Partial              []PartialReference   `json:"partial"`
	Unmatched            []UnmatchedReference `json:"unmatched"`
	UnmatchedBankEntries []BankEntry          `json:"unmatched_bank_entries"`
	Summary              Summary              `json:"summary"`
}

// BankEntry is a bank line as the results show it.
type BankEntry struct {
	Line     int             `json:"line"`
	Date     statement.Date  `json:"date"`
	Amount   decimal.Decimal `json:"amount"`
	Currency string          `json:"currency,omitempty"`
	Text     string          `json:"text"`
}

// MatchedReference is a reference paid exactly.
type MatchedReference struct {
	Reference string          `json:"reference"`
	Amount    decimal.Decimal `json:"amount"`
	Currency  string          `json:"currency,omitempty"`
	// Rule is the rule that matched it; results stored before rules were recorded have none
	// (see DecidingRule).
	Rule        match.Rule  `json:"rule,omitempty"`
	BankEntries []BankEntry `json:"bank_entries"`
}

// DecidingRule is the rule that matched the reference. Results stored before rules were
// recorded lack it, and then it follows from the lines: the engine of that time matched by one
// line (exact) or by instalments, nothing else.
func (m MatchedReference) DecidingRule() match.Rule {
	switch {
	case m.Rule != "":
		return m.Rule
	case len(m.BankEntries) > 1:
		return match.RuleInstalments
	}
	return match.RuleExact
}

// PartialReference is a reference found in lines that do not pay it exactly.
type PartialReference struct {
	Reference      string          `json:"reference"`
	ExpectedAmount decimal.Decimal `json:"expected_amount"`
	MatchedAmount  decimal.Decimal `json:"matched_amount"`
	Reason         match.Reason    `json:"reason"`
	// Rule is the rule that decided it, its reason's; results stored before rules were
	// recorded have none (see DecidingRule).
	Rule        match.Rule  `json:"rule,omitempty"`
	Currency    string      `json:"currency,omitempty"`
	BankEntries []BankEntry `json:"bank_entries"`
}

// DecidingRule is the rule that decided the reference: its reason's.
func (p PartialReference) DecidingRule() match.Rule {
	if p.Rule != "" {
		return p.Rule
	}
	return match.Rule(p.Reason)
}

// UnmatchedReference is a reference found in no line.
type UnmatchedReference struct {
	Reference string          `json:"reference"`
	Amount    decimal.Decimal `json:"amount"`
	Currency  string          `json:"currency,omitempty"`
	// Suggestions are unused lines paying exactly the amount (see match.Reference); results
	// stored before suggestions were made have none.
	Suggestions []BankEntry `json:"suggestions,omitempty"`
}

// Summary counts and totals the results.
type Summary struct {
	ExpectedCount             int             `json:"expected_count"`
	MatchedCount              int             `json:"matched_count"`
	PartialCount              int             `json:"partial_count"`
	UnmatchedCount            int             `json:"unmatched_count"`
	UnmatchedBankEntriesCount int             `json:"unmatched_bank_entries_count"`
	ExpectedTotal             decimal.Decimal `json:"expected_total"`
	MatchedTotal              decimal.Decimal `json:"matched_total"`
}

// buildResults turns the engine's result into the results document. Amounts are shown with
// their currency's decimals (1250.5 EUR as 1250.50), never rounded.
func buildResults(expected []match.Expected, bank []match.BankEntry, r match.Result) Results {
	entry := func(i int) BankEntry {
		b := bank[i]
		return BankEntry{Line: b.Line, Date: b.Date, Amount: statement.WithCurrencyDecimals(b.Amount, b.Currency), Currency: b.Currency, Text: b.Text}
	}
	entries := func(idx []int) []BankEntry {
		out := make([]BankEntry, len(idx))
		for k, i := range idx {
			out[k] = entry(i)
		}
		return out
	}
	res := Results{
		Matched:              []MatchedReference{},
		Partial:              []PartialReference{},
		Unmatched:            []UnmatchedReference{},
		UnmatchedBankEntries: entries(r.Unused),
	}
	// Totals are shown with the decimals of the file's currency when it has one currency.
	totalCurrency := ""
	for i, e := range expected {
		if i == 0 {
			totalCurrency = e.Currency
		} else if e.Currency != totalCurrency {
			totalCurrency = ""
			break
		}
	}
	for _, ref := range r.References {
		e := expected[ref.Expected]
		amount := statement.WithCurrencyDecimals(e.Amount.Abs(), e.Currency)
		switch ref.Outcome {
		case match.Matched:
			res.Matched = append(res.Matched, MatchedReference{Reference: e.Reference, Amount: amount, Currency: e.Currency, Rule: ref.Rule, BankEntries: entries(ref.Entries)})
		case match.Partial:
			res.Partial = append(res.Partial, PartialReference{Reference: e.Reference, ExpectedAmount: amount,
				MatchedAmount: statement.WithCurrencyDecimals(ref.Paid, e.Currency), Reason: ref.Reason, Rule: ref.Rule, Currency: e.Currency, BankEntries: entries(ref.Entries)})
		default:
			u := UnmatchedReference{Reference: e.Reference, Amount: amount, Currency: e.Currency}
			if len(ref.Suggestions) > 0 {
				u.Suggestions = entries(ref.Suggestions)
			}
			res.Unmatched = append(res.Unmatched, u)
		}
	}
	s := r.Summary
	res.Summary = Summary{
		ExpectedCount: s.ExpectedCount, MatchedCount: s.MatchedCount, PartialCount: s.PartialCount,
		UnmatchedCount: s.UnmatchedCount, UnmatchedBankEntriesCount: s.UnmatchedBankEntriesCount,
		ExpectedTotal: statement.WithCurrencyDecimals(s.ExpectedTotal, totalCurrency),
		MatchedTotal:  statement.WithCurrencyDecimals(s.MatchedTotal, totalCurrency),
	}
	return res
}

// bankEntries turns a parsed statement into the engine's bank lines: line numbers in the
// statement's order, and the text references are searched in, the booking text and the
// reference field joined by a single space.
func bankEntries(st *statement.Statement) []match.BankEntry {
	sectionCurrency := make([]string, len(st.Transactions))
	for _, sec := range st.Sections {
		for i := sec.First; i < sec.First+sec.Count && i < len(sectionCurrency); i++ {
			sectionCurrency[i] = sec.Currency
		}
	}
	out := make([]match.BankEntry, len(st.Transactions))
	for i, t := range st.Transactions {
		text := t.Description
		if t.Reference != "" && !statement.ContainsFold(text, t.Reference) {
			text = statement.CollapseSpace(text + " " + t.Reference)
		}
		cur := t.Currency
		if cur == "" {
			cur = sectionCurrency[i]
		}
		if cur == "" {
			cur = st.Currency
		}
		out[i] = match.BankEntry{Line: i + 1, Date: t.Date, Amount: t.Amount, Currency: cur, Text: text}
	}
	return out
}
