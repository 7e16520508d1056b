package expected

import (
	"fmt"
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// role is what a column holds.
type role int

const (
	roleReference role = iota
	roleAmount
	roleCurrency
	roleDueDate
	roleName
	numRoles
)

// roleNames name the roles in errors, as the API documents the columns.
var roleNames = [numRoles]string{"reference", "amount", "currency", "due_date", "name"}

// synonyms are the accepted header names of each role, in the order the API lists them.
var synonyms = [numRoles][]string{
	roleReference: {"reference", "ref", "invoice", "invoice_number", "payment_reference"},
	roleAmount:    {"amount", "sum", "total", "expected_amount"},
	roleCurrency:  {"currency"},
	roleDueDate:   {"due_date"},
	roleName:      {"name"},
}

// roleByName maps each accepted header name to its role.
var roleByName = func() map[string]role {
	m := map[string]role{}
	for r, names := range synonyms {
		for _, n := range names {
			m[n] = role(r)
		}
	}
	return m
}()

// maxHeaderName bounds the header cells worth comparing: no accepted name is longer, and a
// hostile header cell of megabytes is not lower-cased for nothing.
const maxHeaderName = 64

// headerName returns a header cell in the form accepted names are compared in: trimmed (a
// byte-order mark and no-break spaces included), lower case, each run of spaces, hyphens and
// underscores one "_".
func headerName(s string) string {
	s = statement.TrimSpace(s)
	if len(s) > maxHeaderName {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s))
	sep := false
	for _, r := range strings.ToLower(s) {
		if r == '-' || r == '_' || statement.IsSpace(r) {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

// columns holds each role's column index, -1 when the header has none.
type columns [numRoles]int

// found returns how many roles have a column.
func (c columns) found() int {
	n := 0
	for _, col := range c {
		if col >= 0 {
			n++
		}
	}
	return n
}

// mapHeader finds each role's column in a header row: the leftmost whose name is accepted.
func mapHeader(cells []string) columns {
	var cols columns
	for i := range cols {
		cols[i] = -1
	}
	for i, c := range cells {
		if r, ok := roleByName[headerName(c)]; ok && cols[r] < 0 {
			cols[r] = i
		}
	}
	return cols
}

// table is a file whose header has been read.
type table struct {
	src *source
	// headerIndex is the header's index among the rows the source yields.
	headerIndex int
	headerRow   int
	cols        columns
	// codes holds the currency codes read so far, by cell text.
	codes map[string]string
}

// header finds the header row and its columns. A file without a reference or amount column
// fails; so does a text file statement detection took for another format whose first row does
// not give those columns, saying what the file looks like instead.
func (s *source) header() (*table, error) {
	index, row, ok := firstRow(s.rows)
	if !ok {
		if s.lookalike != "" {
			return nil, notSupported(s.lookalike)
		}
		return nil, invalid("the file is empty")
	}
	cells := row.Cells
	t := &table{src: s, headerIndex: index, headerRow: row.Pos.Line, cols: mapHeader(cells)}
	if t.headerRow <= 0 {
		t.headerRow = index + 1
	}
	for _, r := range []role{roleReference, roleAmount} {
		if t.cols[r] >= 0 {
			continue
		}
		if s.lookalike != "" {
			return nil, notSupported(s.lookalike)
		}
		return nil, &Error{Column: roleNames[r], Kind: ErrInvalid, Msg: fmt.Sprintf(
			"no %s column: the header row (row %d) has none of %s%s",
			roleNames[r], t.headerRow, strings.Join(synonyms[r], ", "), listColumns(cells))}
	}
	return t, nil
}

// listColumns names the header's columns for the error that misses one: seeing them shows
// whether the wrong file, the wrong delimiter or a misspelling is to blame.
func listColumns(cells []string) string {
	const most = 10
	var names []string
	for _, c := range cells {
		if c = statement.CollapseSpace(c); c == "" {
			continue
		}
		if len(names) == most {
			names = append(names, "…")
			break
		}
		names = append(names, quote(c))
	}
	if len(names) == 0 {
		return ""
	}
	return " (its columns are " + strings.Join(names, ", ") + ")"
}

// quote returns s quoted for a message, cut to 40 characters: a message names a value, it does
// not repeat a cell of any length.
func quote(s string) string {
	const most = 40
	n := 0
	for i := range s {
		if n == most {
			s = s[:i] + "…"
			break
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}
