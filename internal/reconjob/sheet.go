package reconjob

import (
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/sheet"
	"github.com/statementmatch/service/internal/statement"
)

// ResultsFlushEvery is how many rows WriteResults writes between flushes to the client.
const ResultsFlushEvery = 1000

// ResultsColumns are the columns of a results spreadsheet, as the Reconciliation API's
// getJobResults operation describes them (format=csv|xlsx), with their widths in a workbook;
// the dashboard's downloads are the same.
var ResultsColumns = []sheet.Column{
	{Name: "status", Width: 22}, {Name: "reference", Width: 18}, {Name: "currency", Width: 9},
	{Name: "expected_amount", Width: 16}, {Name: "matched_amount", Width: 16}, {Name: "reason", Width: 18},
	{Name: "rule", Width: 18}, {Name: "bank_lines", Width: 11}, {Name: "bank_date", Width: 11},
	{Name: "bank_amount", Width: 16}, {Name: "bank_text", Width: 60}, {Name: "suggested_lines", Width: 15},
}

// WriteResults writes the rows of the results document doc (see OpenResults) to t and closes
// it: a row per reference, then a row per unmatched bank line. flush is called every
// ResultsFlushEvery rows.
func WriteResults(doc io.Reader, t sheet.Table, flush func() error) error {
	defer t.Discard()
	rows := 0
	row := func(cells []sheet.Cell) error {
		if err := t.Row(cells); err != nil {
			return err
		}
		if rows++; rows%ResultsFlushEvery == 0 {
			return flush()
		}
		return nil
	}
	err := VisitResults(doc, ResultsVisitor{
		Matched: func(m MatchedReference) error {
			return row(referenceRow("matched", m.Reference, m.Currency, m.Amount, money(m.Amount, m.Currency), "",
				string(m.DecidingRule()), m.BankEntries, nil))
		},
		Partial: func(p PartialReference) error {
			return row(referenceRow("partial", p.Reference, p.Currency, p.ExpectedAmount, money(p.MatchedAmount, p.Currency),
				string(p.Reason), string(p.DecidingRule()), p.BankEntries, nil))
		},
		Unmatched: func(u UnmatchedReference) error {
			return row(referenceRow("unmatched", u.Reference, u.Currency, u.Amount, sheet.Cell{}, "", "", nil, u.Suggestions))
		},
		BankEntry: func(b BankEntry) error {
			return row([]sheet.Cell{sheet.TextCell("unmatched_bank_entry"), {}, sheet.TextCell(b.Currency), {}, {}, {}, {},
				sheet.TextCell(strconv.Itoa(b.Line)), sheet.DateCell(b.Date), money(b.Amount, b.Currency), sheet.TextCell(b.Text), {}})
		},
	})
	if err != nil {
		return err
	}
	return t.Close()
}

// referenceRow is the row of an expected reference.
func referenceRow(status, reference, currency string, expected decimal.Decimal, matched sheet.Cell, reason, rule string,
	entries, suggestions []BankEntry) []sheet.Cell {
	cells := []sheet.Cell{sheet.TextCell(status), sheet.TextCell(reference), sheet.TextCell(currency),
		money(expected, currency), matched, sheet.TextCell(reason), sheet.TextCell(rule), {}, {}, {}, {},
		sheet.TextCell(lineNumbers(suggestions))}
	if len(entries) > 0 {
		texts := make([]string, len(entries))
		sum := decimal.Zero
		for i, e := range entries {
			texts[i] = e.Text
			if i == 0 {
				sum = e.Amount
			} else {
				sum = sum.Add(e.Amount)
			}
		}
		cells[7], cells[8] = sheet.TextCell(lineNumbers(entries)), sheet.DateCell(entries[0].Date)
		cells[9], cells[10] = money(sum, entries[0].Currency), sheet.TextCell(strings.Join(texts, " | "))
	}
	return cells
}

// money is an amount cell with at least its currency's decimals, however the stored document
// wrote it.
func money(d decimal.Decimal, currency string) sheet.Cell {
	return sheet.AmountCell(statement.WithCurrencyDecimals(d, currency))
}

// lineNumbers lists the statement lines of entries: "3, 5".
func lineNumbers(entries []BankEntry) string {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(e.Line))
	}
	return b.String()
}
