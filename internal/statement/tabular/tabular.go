// Package tabular turns a table of text cells into a statement.Statement. The CSV parser feeds
// it the records of a file, the Excel parser the rows of a sheet, the PDF parser the rows it
// lays out from a page's text; tabular does the rest the same way for all three.
//
// It finds the header row (after a preamble of account and balance lines, which it mines for
// the account, currency, period and labelled opening and closing balances), maps columns to
// roles by their names in the languages statements come in, or, for tables without a header,
// by what the columns hold. It decides once per table, from all rows, the order of day, month
// and year and the decimal mark, and says so in the Dialect; when the rows leave either open it
// picks by the locale the table shows and, failing that, reports a Problem for review rather
// than guess silently. Rows it cannot read become Problems; rows that continue the description
// of the one before (an empty date and no amount) are joined to it; totals and balance rows are
// mined, not read as transactions.
package tabular

import (
	"fmt"
	"iter"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// Row is one row of a table.
type Row struct {
	// Cells are the row's cells left to right, as text. Extract trims them; it never keeps the
	// slice itself, only the strings.
	Cells []string
	// Canonical marks cells whose text the reader wrote itself from a typed value, such as a
	// spreadsheet's number or date cell: numbers as plain decimals with a '.' mark
	// ("-1234.5"), dates as "2006-01-02". Their format is certain, so they take no part in
	// deciding the table's date order and decimal mark. Nil when no cell is typed.
	Canonical []bool
	// Pos is where the row stands in the file: Line for text files, Sheet and Line for
	// spreadsheets, Page and Line for PDFs.
	Pos statement.Position
	// Raw is the row's source text for a person to look at; it becomes Transaction.Raw.
	Raw string
}

// Table is the rows of one table, in file order.
type Table struct {
	// Format is the file format the rows came from, used in the Statement and in errors.
	Format statement.Format
	// Rows holds the rows, for readers that have them all in memory.
	Rows []Row
	// Scan, when set, is used instead of Rows: it yields the rows in order, from the first,
	// each time it is ranged over. Extract ranges over it two or three times, so a reader can
	// re-read its text rather than hold every row; a Row's Cells slice may be reused between
	// rows.
	Scan iter.Seq[Row]
	// Card says the table is a credit card statement's: its plain amounts are charges to the
	// holder and its balances what the holder owes, so both are read with the sign turned
	// (a payment marked CR or in parentheses becomes a credit, a balance owed a negative one).
	Card bool
	// Context is text printed around the table (page headers and footers, boxes beside it),
	// one line a string, where a statement states its period; it is mined, never read as rows.
	Context []string
	// RowsHint estimates the number of rows (a CSV file's line count), to size the result
	// once; 0 when unknown.
	RowsHint int
}

// Limits of the layout search.
const (
	// sampleSize is how many leading rows decide the layout (header, roles).
	sampleSize = 400
	// headerSearch is how many leading rows may hold the header.
	headerSearch = 60
	// maxColumns bounds the columns given roles; cells beyond are kept in Raw only.
	maxColumns = 512
)

// Extract reads the table as a bank statement. It returns an error of kind
// statement.ErrNotAStatement when no column of dates with a column of amounts is found,
// ErrNoTransactions when such columns are found but no row can be read, and ErrTooManyRows
// past opts.MaxRows transactions. A header without data rows is an empty statement, not an
// error: a month without activity is a statement too.
//
// Statement.Dialect holds what was detected, readers putting their own part (charset,
// delimiter) in front: header=N (its 1-based row) or header=none; lang= the header's language;
// layout= a known export layout; decimal=point|comma; dates=DMY|MDY|YMD; amount=signed (one
// signed column), flag (unsigned amounts and a debit/credit mark), inverted (a card holder's
// export whose signs contradict its own DEBIT/CREDIT marks, flipped so money out is negative),
// or debit-credit (separate columns); filled=dates when rows without a date took the one above;
// order=newest-first; balances=stated (labelled in the file) or running (derived from the
// running balance of the oldest and newest rows).
//
// The statement has one Section per run of rows of one own account (a multi-account export)
// or else one; BankName is set only for the layouts in the signature table.
func Extract(t Table, opts statement.Options) (st *statement.Statement, err error) {
	x := newExtractor(t, opts)
	defer x.recover(&err)
	out := &output{keep: true}
	if err := x.run(out); err != nil {
		return nil, err
	}
	x.st.Transactions = out.txs
	if x.flips.on {
		for i := range out.txs {
			var before *decimal.Decimal
			switch {
			case !x.flips.newest && i > 0:
				before = out.txs[i-1].Balance
			case x.flips.newest && i+1 < len(out.txs):
				before = out.txs[i+1].Balance
			}
			t := &out.txs[i]
			t.Amount = x.signed(facts{amount: t.Amount, balance: t.Balance}, before)
		}
	}
	return x.st, nil
}

// Stream reads the table as Extract does without holding its transactions: the Stream's Each
// reads the rows again under the decisions the first reading made, and yields each transaction
// as Extract would have held it. The rows are read twice or three times to make the statement,
// and once more by each call of Each.
func Stream(t Table, opts statement.Options) (s *statement.Stream, err error) {
	x := newExtractor(t, opts)
	defer x.recover(&err)
	if err := x.run(&output{}); err != nil {
		return nil, err
	}
	s = &statement.Stream{Statement: x.st, Count: x.tally.n, First: x.tally.firstPos}
	s.Each = func(yield func(*statement.Transaction) bool) (err error) {
		// A reading of its own, under the decisions made: build starts afresh, and the
		// statement already made is left as it is.
		y := *x
		y.st = nil
		defer y.recover(&err)
		out := &output{emit: yield}
		if err := y.build(nil, out); err != nil {
			return err
		}
		if !out.stopped && out.n != x.tally.n {
			return y.errorf(statement.ErrInternal, statement.Position{}, "the table read %d transactions again, not %d", out.n, x.tally.n)
		}
		return nil
	}
	return s, nil
}

func newExtractor(t Table, opts statement.Options) *extractor {
	if t.Format == "" {
		t.Format = statement.FormatCSV
	}
	return &extractor{t: t, opts: opts.WithDefaults()}
}

// recover is a last resort only: every index is bounds-checked, but a reader of untrusted
// files turns an unforeseen panic into a failed parse rather than a crashed service.
func (x *extractor) recover(err *error) {
	if r := recover(); r != nil {
		*err = statement.Errorf(x.t.Format, statement.ErrCorrupt, statement.Position{}, "table could not be read: %v", r)
	}
}

// extractor holds one Extract's state.
type extractor struct {
	t    Table
	opts statement.Options

	sample []Row
	lay    layout
	dec    decision
	// currency is the statement's currency as the header names it.
	currency string
	// buildDialect holds what reading the rows found ("filled=dates").
	buildDialect []string

	st    *statement.Statement
	mined mined
	// tally is what build found of the transactions; flips how signFromBalances signs them.
	tally    tally
	flips    flips
	dialect  []string
	problems []statement.Problem
}

// amountMode is how a row's amount and its sign are read.
type amountMode uint8

const (
	modeSigned amountMode = iota
	// modeFlag: unsigned amounts, the sign from the debit/credit mark.
	modeFlag
	// modeInverted: signed amounts whose signs are a card holder's view turned around
	// (purchases positive); every sign is flipped so that money out is negative.
	modeInverted
	// modeDebitCredit: separate debit and credit columns.
	modeDebitCredit
	// modeDebitOnly: one unsigned column of a debit/credit pair whose other side is empty.
	modeDebitOnly
	// modeCreditMarked: one column whose credits are marked CR and whose debits are plain.
	modeCreditMarked
)

var modeNames = [...]string{"signed", "flag", "inverted", "debit-credit", "debit-credit", "credits-marked"}

// each calls fn for every row with its index, until fn returns false.
func (x *extractor) each(fn func(i int, r *Row) bool) {
	if x.t.Scan != nil {
		i := 0
		// One Row for all: taking the address of the loop variable would move every row to
		// the heap.
		var row Row
		for r := range x.t.Scan {
			row = r
			if !fn(i, &row) {
				return
			}
			i++
		}
		return
	}
	for i := range x.t.Rows {
		if !fn(i, &x.t.Rows[i]) {
			return
		}
	}
}

func (x *extractor) errorf(kind error, pos statement.Position, msg string, args ...any) error {
	return statement.Errorf(x.t.Format, kind, pos, msg, args...)
}

// run reads the table into x.st, all but its transactions, which build puts in out.
func (x *extractor) run(out *output) error {
	x.takeSample()
	if len(x.sample) == 0 {
		return x.errorf(statement.ErrNotAStatement, statement.Position{}, "the table is empty")
	}
	lay, ok := x.detectLayout()
	if !ok {
		return x.errorf(statement.ErrNotAStatement, statement.Position{}, "no column of dates and amounts found")
	}
	x.lay = lay
	x.st = &statement.Statement{Format: x.t.Format}
	if lay.header >= 0 {
		x.dialect = append(x.dialect, fmt.Sprintf("header=%d", lay.header+1))
	} else {
		x.dialect = append(x.dialect, "header=none")
	}
	if lay.lang != "" {
		x.dialect = append(x.dialect, "lang="+lay.lang)
	}
	if lay.layoutName != "" {
		x.dialect = append(x.dialect, "layout="+lay.layoutName)
	}
	// The statement's currency as the header names it ("Betrag (EUR)").
	for _, col := range [3]int{lay.amount, lay.debit, lay.credit} {
		if col >= 0 && lay.colCurrency[col] != "" {
			x.currency = lay.colCurrency[col]
			break
		}
	}
	// The formats are decided from all rows, but reading every row twice (once to decide,
	// once to read) would halve the speed. So the rows are read under the decision the first
	// rows suggest while the evidence of all rows is gathered, and read again only if all rows
	// decide otherwise.
	var sampleEv evidence
	var rs rowScan
	for i := lay.dataStart; i < len(x.sample); i++ {
		if !isBlank(x.sample[i].Cells) {
			x.scanRow(&x.sample[i], &rs)
			x.observe(&sampleEv, &x.sample[i], &rs)
		}
	}
	x.dec = x.decide(&sampleEv)
	var full evidence
	if err := x.build(&full, out); err != nil {
		return err
	}
	if final := x.decide(&full); !final.same(x.dec) {
		x.dec = final
		*out = output{keep: out.keep}
		if err := x.build(nil, out); err != nil {
			return err
		}
	} else {
		x.dec = final
	}
	x.dialect = append(x.dialect, x.dec.dialect...)
	x.dialect = append(x.dialect, x.buildDialect...)
	x.signFromBalances()
	x.finishSections()
	x.st.Problems = append(x.st.Problems, x.dec.problems...)
	x.st.Problems = append(x.st.Problems, x.problems...)
	x.st.Dialect = strings.Join(x.dialect, ";")
	x.st.BankName = x.lay.bankName
	if x.tally.n == 0 && len(x.problems) > 0 {
		p := x.problems[0]
		return x.errorf(statement.ErrNoTransactions, p.Pos, "%s", p.Message)
	}
	return nil
}

// takeSample keeps the first rows, copying their cells when the reader reuses them.
func (x *extractor) takeSample() {
	if x.t.Scan == nil {
		n := min(len(x.t.Rows), sampleSize)
		x.sample = x.t.Rows[:n]
		return
	}
	x.each(func(i int, r *Row) bool {
		if i >= sampleSize {
			return false
		}
		c := *r
		// Only the columns that can get a role are kept.
		c.Cells = append([]string(nil), r.Cells[:min(len(r.Cells), maxColumns)]...)
		if r.Canonical != nil {
			c.Canonical = append([]bool(nil), r.Canonical[:min(len(r.Canonical), maxColumns)]...)
		}
		x.sample = append(x.sample, c)
		return true
	})
}

// cell returns column i of a row, or "" past its end.
func cell(cells []string, i int) string {
	if i < 0 || i >= len(cells) {
		return ""
	}
	return cells[i]
}

func canonical(r *Row, i int) bool {
	return i >= 0 && i < len(r.Canonical) && r.Canonical[i]
}

// isBlank reports a row without any text.
func isBlank(cells []string) bool {
	for _, c := range cells {
		if statement.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// problem records an unreadable row.
func (x *extractor) problem(code statement.ReviewCode, pos statement.Position, msg string, args ...any) {
	// Thousands of identical problems help no one and cost memory; the count still shows.
	if len(x.problems) >= 1000 {
		return
	}
	x.problems = append(x.problems, statement.Problem{Code: code, Pos: pos, Message: fmt.Sprintf(msg, args...)})
}

// columnName names a column in messages: its header, or its number.
func (x *extractor) columnName(col int) string {
	if col >= 0 && col < len(x.lay.names) && statement.TrimSpace(x.lay.names[col]) != "" {
		return fmt.Sprintf("%q", statement.CollapseSpace(x.lay.names[col]))
	}
	return fmt.Sprintf("column %d", col+1)
}

// Slots of a rowScan: the columns whose cells are read before the formats apply.
const (
	slotDate = iota
	slotValueDate
	slotAmount
	slotDebit
	slotCredit
	slotBalance
	numSlots
)

// cellScan is one cell taken apart before the table's formats are applied.
type cellScan struct {
	col   int
	text  string
	empty bool
	// ok: the cell has the shape of a date (date slots) or of an amount (money slots).
	ok   bool
	date rawDate
	num  numScan
	// then is the second of two dates in a date cell ("03-04-2023 03-04-2023"): a booking and
	// a value date whose columns the layout reader took for one; set is false without one.
	then struct {
		date rawDate
		set  bool
	}
}

// rowScan holds a row's date and money cells taken apart once, for the evidence and for
// reading.
type rowScan [numSlots]cellScan

// scanRow takes apart the row's date and money cells.
func (x *extractor) scanRow(r *Row, rs *rowScan) {
	lay := &x.lay
	for k, col := range [numSlots]int{lay.date, lay.valueDate, lay.amount, lay.debit, lay.credit, lay.balance} {
		c := &rs[k]
		*c = cellScan{col: col, empty: true}
		if col < 0 {
			continue
		}
		c.text = cellText(cell(r.Cells, col))
		if k <= slotValueDate {
			if c.empty = c.text == ""; !c.empty {
				c.date, c.ok = scanDate(c.text)
				if !c.ok && k == slotDate {
					c.date, c.then.date, c.ok = datePair(c.text)
					c.then.set = c.ok
				}
			}
			continue
		}
		if c.empty = isEmptyValue(c.text); !c.empty {
			c.num, c.ok = scanNumber(c.text)
		}
	}
}

// amount reads a money slot with the table's decimal mark.
func (x *extractor) amount(r *Row, c *cellScan) (v decimal.Decimal, ok bool) {
	if !c.ok {
		return decimal.Decimal{}, false
	}
	mark := x.dec.mark
	if canonical(r, c.col) {
		mark = '.'
	}
	return c.num.value(mark)
}

// date reads a date slot with the table's order.
func (x *extractor) date(c *cellScan) (statement.Date, bool) {
	if !c.ok {
		return statement.Date{}, false
	}
	d, ok := c.date.resolve(x.dec.order)
	if !ok || !c.date.noYear {
		return d, ok
	}
	y, ok := x.yearFor(d.Month(), d.Day())
	if !ok {
		return statement.Date{}, false
	}
	return statement.NewDate(y, d.Month(), d.Day())
}
