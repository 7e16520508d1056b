package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	openapi_types "github.com/statementmatch/service/gen/sdk/types"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// maxCell is the most runes a free-text cell shows in a table; --json has the whole text.
const maxCell = 60

// tableFlushRows is how many rows a long table holds before it is written out, so that
// printing every transaction of a large job takes bounded memory (each block of rows is
// aligned on its own).
const tableFlushRows = 500

// newTable returns a writer that aligns tab-separated cells into columns two spaces apart.
// Lines end without the padding of an empty last cell.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(&trimTrailing{w: w}, 0, 8, 2, ' ', 0)
}

// trimTrailing drops the spaces at the end of each line written through it: it holds spaces
// back until something other than a line break follows them.
type trimTrailing struct {
	w      io.Writer
	spaces int
}

func (t *trimTrailing) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		switch b {
		case ' ':
			t.spaces++
			continue
		case '\n':
			t.spaces = 0
		default:
			out = append(out, bytes.Repeat([]byte{' '}, t.spaces)...)
			t.spaces = 0
		}
		out = append(out, b)
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// row writes one table row of cells, each made safe by cell.
func row(w io.Writer, cells ...string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(w, "\t")
		}
		io.WriteString(w, cell(c))
	}
	io.WriteString(w, "\n")
}

// cell makes text safe for one table cell (see clean) and cuts text longer than maxCell runes
// with an ellipsis, so that one long bank text does not push every row's columns apart.
func cell(s string) string {
	s = clean(s)
	if r := []rune(s); len(r) > maxCell {
		return string(r[:maxCell-1]) + "…"
	}
	return s
}

// clean makes text safe for one line: tabs, line breaks and other control characters (which
// would break the columns or drive the terminal) become spaces, and runs of spaces one.
func clean(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// printJSON writes v as indented JSON; amounts are numbers (see init).
func printJSON(w io.Writer, v any) error {
	b, err := marshalIndent(v, "")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// marshalIndent is json.MarshalIndent with two spaces and without escaping <, > and & (bank
// texts hold them; nobody embeds this output in HTML).
func marshalIndent(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// jsonArray writes a JSON array an element at a time, so a long list is printed without being
// held in memory. indent is the indentation of the line the array starts on.
type jsonArray struct {
	w      io.Writer
	indent string
	n      int
}

func (j *jsonArray) add(v any) error {
	b, err := marshalIndent(v, j.indent+"  ")
	if err != nil {
		return err
	}
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
	}
	j.n++
	_, err = fmt.Fprintf(j.w, "%s%s  %s", sep, j.indent, b)
	return err
}

// close ends the array, without a line break after it.
func (j *jsonArray) close() error {
	end := "\n" + j.indent + "]"
	if j.n == 0 {
		end = "[]"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// printFields writes label/value pairs as two aligned columns, the values in full.
func printFields(w io.Writer, fields [][2]string) error {
	tw := newTable(w)
	for _, f := range fields {
		// Values are whole: a message or a secret must not be cut.
		fmt.Fprintf(tw, "%s\t%s\n", clean(f[0]), clean(f[1]))
	}
	return tw.Flush()
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

func amountOrDash(d *decimal.Decimal) string {
	if d == nil {
		return "-"
	}
	return d.String()
}

func dateOrDash(d *openapi_types.Date) string {
	if d == nil {
		return "-"
	}
	return d.String()
}

// timeOrDash prints a time as RFC 3339 UTC, or "-" for none.
func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// printReconResults writes a reconciliation job's results: a table of the expected references
// (matched, then partial, then unmatched, each in the order of the expected file) with the rule
// that decided each (for an unmatched one, the lines suggested for it), the bank lines that
// paid nothing, and a summary line.
func printReconResults(w io.Writer, res reconclient.JobResults) error {
	tw := newTable(w)
	row(tw, "RESULT", "REFERENCE", "EXPECTED", "PAID", "CURRENCY", "BANK LINES", "RULE")
	for _, m := range res.Matched {
		row(tw, "matched", m.Reference, m.Amount.String(), m.Amount.String(), orDash(m.Currency), bankLines(m.BankEntries), string(m.Rule))
	}
	for _, p := range res.Partial {
		row(tw, "partial", p.Reference, p.ExpectedAmount.String(), p.MatchedAmount.String(), orDash(p.Currency), bankLines(p.BankEntries), string(p.Rule))
	}
	for _, u := range res.Unmatched {
		hint := ""
		if len(u.Suggestions) > 0 {
			hint = "suggested: " + bankLines(u.Suggestions)
		}
		row(tw, "unmatched", u.Reference, u.Amount.String(), "-", orDash(u.Currency), "-", hint)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(res.UnmatchedBankEntries) > 0 {
		fmt.Fprintln(w, "\nBank lines that paid no reference:")
		tw = newTable(w)
		row(tw, "LINE", "DATE", "AMOUNT", "CURRENCY", "TEXT")
		for _, e := range res.UnmatchedBankEntries {
			row(tw, strconv.Itoa(e.Line), e.Date.String(), e.Amount.String(), orDash(e.Currency), e.Text)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	s := res.Summary
	_, err := fmt.Fprintf(w, "\n%d matched, %d partial, %d unmatched of %s (%s of %s expected matched); %s paid nothing\n",
		s.MatchedCount, s.PartialCount, s.UnmatchedCount, plural(s.ExpectedCount, "reference"),
		s.MatchedTotal.String(), s.ExpectedTotal.String(), plural(s.UnmatchedBankEntriesCount, "bank line"))
	return err
}

// bankLines lists the statement lines of entries: "3,5".
func bankLines(entries []reconclient.BankEntry) string {
	if len(entries) == 0 {
		return "-"
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = strconv.Itoa(e.Line)
	}
	return strings.Join(lines, ",")
}

// printParseJob writes a parsing job as label/value lines, then its review reasons or error.
func printParseJob(w io.Writer, j parseclient.Job) error {
	period := "-"
	if j.PeriodStart != nil || j.PeriodEnd != nil {
		period = dateOrDash(j.PeriodStart) + " to " + dateOrDash(j.PeriodEnd)
	}
	fields := [][2]string{
		{"job", j.JobId.String()},
		{"status", string(j.Status)},
		{"file", j.FileName},
		{"format", string(j.Format)},
		{"bank", orDash(j.BankName)},
		{"account", orDash(j.Account)},
		{"currency", orDash(j.Currency)},
		{"period", period},
		{"opening balance", amountOrDash(j.OpeningBalance)},
		{"closing balance", amountOrDash(j.ClosingBalance)},
		{"transactions", strconv.Itoa(j.TransactionsCount)},
		{"created", timeOrDash(&j.CreatedAt)},
		{"completed", timeOrDash(j.CompletedAt)},
	}
	for _, r := range j.ReviewReasons {
		where := ""
		if r.Line != nil {
			where = fmt.Sprintf(" (line %d)", *r.Line)
		}
		fields = append(fields, [2]string{"review", fmt.Sprintf("%s%s: %s", r.Code, where, r.Message)})
	}
	if j.Error != nil {
		fields = append(fields, [2]string{"error", fmt.Sprintf("%s: %s", j.Error.Code, j.Error.Message)})
	}
	return printFields(w, fields)
}

// printTransactions writes the transactions of seq as a table, a block of rows at a time, and
// returns how many there were. It stops at the first error.
func printTransactions(w io.Writer, seq iter.Seq2[parseclient.Transaction, error]) (int, error) {
	tw := newTable(w)
	row(tw, "DATE", "AMOUNT", "CURRENCY", "DESCRIPTION", "REFERENCE", "BALANCE")
	n := 0
	for t, err := range seq {
		if err != nil {
			_ = tw.Flush()
			return n, err
		}
		row(tw, t.Date.String(), t.Amount.String(), orDash(t.Currency), t.Description, orDash(t.Reference), amountOrDash(t.Balance))
		if n++; n%tableFlushRows == 0 {
			if err := tw.Flush(); err != nil {
				return n, err
			}
		}
	}
	return n, tw.Flush()
}

// printJSONSeq writes the elements of seq as a JSON array, one at a time, and returns how many
// there were. It stops at the first error; the array is then left unclosed, so that a reader
// cannot take a partial list for a whole one.
func printJSONSeq[T any](w io.Writer, seq iter.Seq2[T, error]) (int, error) {
	arr := &jsonArray{w: w}
	if err := addAll(arr, seq); err != nil {
		return arr.n, err
	}
	if err := arr.close(); err != nil {
		return arr.n, err
	}
	_, err := io.WriteString(w, "\n")
	return arr.n, err
}

// addAll adds every element of seq to arr, stopping at the first error.
func addAll[T any](arr *jsonArray, seq iter.Seq2[T, error]) error {
	for v, err := range seq {
		if err != nil {
			return err
		}
		if err := arr.add(v); err != nil {
			return err
		}
	}
	return nil
}

// take yields the first n elements of seq (all for n <= 0), and an error that ends it early.
func take[T any](seq iter.Seq2[T, error], n int) iter.Seq2[T, error] {
	if n <= 0 {
		return seq
	}
	return func(yield func(T, error) bool) {
		i := 0
		for v, err := range seq {
			if !yield(v, err) || err != nil {
				return
			}
			if i++; i >= n {
				return
			}
		}
	}
}
