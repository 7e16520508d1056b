package reconhttp

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/sheet"
	"github.com/statementmatch/service/internal/statement"
)

// resultsFlushEvery is how many rows are written between flushes to the client.
const resultsFlushEvery = 1000

// resultsColumns are the columns of a results spreadsheet, as the getJobResults operation
// describes them, with their widths in a workbook.
var resultsColumns = []sheet.Column{
	{Name: "status", Width: 22}, {Name: "reference", Width: 18}, {Name: "currency", Width: 9},
	{Name: "expected_amount", Width: 16}, {Name: "matched_amount", Width: 16}, {Name: "reason", Width: 18},
	{Name: "rule", Width: 18}, {Name: "bank_lines", Width: 11}, {Name: "bank_date", Width: 11},
	{Name: "bank_amount", Width: 16}, {Name: "bank_text", Width: 60}, {Name: "suggested_lines", Width: 15},
}

// resultsDownload is the 200 answer of GET /api/v1/jobs/{job_id}/results?format=csv|xlsx: the
// stored results document, read a part at a time and decoded an item at a time, written as
// spreadsheet rows as it goes (httpkit.Download), so memory stays flat whatever the job's size.
type resultsDownload struct {
	ctx    context.Context
	job    reconjob.Job
	doc    io.Reader
	format reconapi.ResultsFormat
	logger *slog.Logger
}

var _ reconapi.GetJobResultsResponseObject = resultsDownload{}

// VisitGetJobResultsResponse writes the download.
func (r resultsDownload) VisitGetJobResultsResponse(w http.ResponseWriter) error {
	d := httpkit.Download{Ctx: r.ctx, Logger: r.logger, ContentType: "text/csv; charset=utf-8",
		Filename: "results-" + r.job.ID.String() + ".csv",
		LogAttrs: []any{slog.String("job_id", r.job.ID.String()), slog.String("format", string(r.format))},
		Write: func(w io.Writer, flush func() error) error {
			t, err := sheet.NewCSV(w, resultsColumns)
			if err != nil {
				return err
			}
			return writeResults(r.doc, t, flush)
		}}
	if r.format == reconapi.ResultsFormatXlsx {
		d.ContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		d.Filename = "results-" + r.job.ID.String() + ".xlsx"
		d.Write = func(w io.Writer, _ func() error) error {
			// A workbook is a zip archive written whole at the end (Close): rows gather in
			// the stream writer, spilling to a temporary file, until then.
			t, err := sheet.NewXLSX(w, "Results", resultsColumns)
			if err != nil {
				return err
			}
			return writeResults(r.doc, t, func() error { return r.ctx.Err() })
		}
	}
	return d.Serve(w)
}

// writeResults writes the rows of the results document doc to t and closes it: a row per
// reference, then a row per unmatched bank line. flush is called every resultsFlushEvery rows.
func writeResults(doc io.Reader, t sheet.Table, flush func() error) error {
	defer t.Discard()
	rows := 0
	row := func(cells []sheet.Cell) error {
		if err := t.Row(cells); err != nil {
			return err
		}
		if rows++; rows%resultsFlushEvery == 0 {
			return flush()
		}
		return nil
	}
	err := reconjob.VisitResults(doc, reconjob.ResultsVisitor{
		Matched: func(m reconjob.MatchedReference) error {
			return row(referenceRow("matched", m.Reference, m.Currency, m.Amount, money(m.Amount, m.Currency), "",
				string(m.DecidingRule()), m.BankEntries, nil))
		},
		Partial: func(p reconjob.PartialReference) error {
			return row(referenceRow("partial", p.Reference, p.Currency, p.ExpectedAmount, money(p.MatchedAmount, p.Currency),
				string(p.Reason), string(p.DecidingRule()), p.BankEntries, nil))
		},
		Unmatched: func(u reconjob.UnmatchedReference) error {
			return row(referenceRow("unmatched", u.Reference, u.Currency, u.Amount, sheet.Cell{}, "", "", nil, u.Suggestions))
		},
		BankEntry: func(b reconjob.BankEntry) error {
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
	entries, suggestions []reconjob.BankEntry) []sheet.Cell {
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
func lineNumbers(entries []reconjob.BankEntry) string {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(e.Line))
	}
	return b.String()
}
