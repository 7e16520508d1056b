// Package statement is the model every bank statement parser produces: a Statement with its
// Transactions, where each came from in the file, and what a person should review. It has no
// I/O, no HTTP and no SQL. The parsers live in one package per format below this one
// (csv, excel, pdf, mt940, camt, ofx, bai2, qif); engine detects the format and dispatches.
package statement

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Format is a statement file format, found from the content, never from the file name.
type Format string

// The formats the engine reads.
const (
	FormatCSV     Format = "csv"
	FormatXLSX    Format = "xlsx"
	FormatXLS     Format = "xls"
	FormatPDF     Format = "pdf"
	FormatMT940   Format = "mt940"
	FormatMT942   Format = "mt942"
	FormatCAMT052 Format = "camt052"
	FormatCAMT053 Format = "camt053"
	FormatCAMT054 Format = "camt054"
	FormatOFX     Format = "ofx"
	FormatBAI2    Format = "bai2"
	FormatQIF     Format = "qif"
	// FormatHTML is a statement that is an HTML page with a table: the "Excel export" of many
	// banks, saved as .xls, and plain .html statements. It reports what the content is, not
	// what the file name claims.
	FormatHTML Format = "html"
	// FormatSpreadsheetML is Excel 2003's XML Spreadsheet (a Workbook of namespace
	// urn:schemas-microsoft-com:office:spreadsheet), often saved as .xls or .xml.
	FormatSpreadsheetML Format = "spreadsheetml"
	// FormatPNG, FormatJPEG and FormatTIFF are pictures of statement pages (scans, phone
	// photos), read with OCR.
	FormatPNG  Format = "png"
	FormatJPEG Format = "jpeg"
	FormatTIFF Format = "tiff"
)

// Type says whether money came in or went out.
type Type string

// Transaction types. Credits have positive amounts, debits negative.
const (
	Credit Type = "credit"
	Debit  Type = "debit"
)

// Date is a calendar date without a time zone, as statements state booking and value dates.
// The zero Date means "not given". It takes 8 bytes: a transaction holds two, and a large file
// a million transactions.
type Date struct {
	year  int32
	month uint8
	day   uint8
}

// NewDate returns the date, and false when it does not exist (30 February, month 13). It builds
// no time.Time, so parsers may call it for every cell they try as a date.
func NewDate(year int, month time.Month, day int) (Date, bool) {
	if !exists(year, month, day) {
		return Date{}, false
	}
	return Date{int32(year), uint8(month), uint8(day)}, true
}

// MustDate returns the date, and panics when it does not exist: for dates written in code.
func MustDate(year int, month time.Month, day int) Date {
	d, ok := NewDate(year, month, day)
	if !ok {
		panic(fmt.Sprintf("statement.MustDate: %04d-%02d-%02d does not exist", year, int(month), day))
	}
	return d
}

// Year returns the date's year.
func (d Date) Year() int { return int(d.year) }

// Month returns the date's month.
func (d Date) Month() time.Month { return time.Month(d.month) }

// Day returns the date's day of the month.
func (d Date) Day() int { return int(d.day) }

// DaysIn returns the number of days of month in year, in the Gregorian calendar.
func DaysIn(year int, month time.Month) int {
	switch month {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date { return Date{int32(t.Year()), uint8(t.Month()), uint8(t.Day())} }

// IsZero reports whether the date was not given.
func (d Date) IsZero() bool { return d == Date{} }

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time { return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC) }

// Compare returns -1, 0 or +1 as d is before, equal to or after e. Dates that exist (NewDate's)
// compare field by field without building a time.Time; others compare as Time normalises them.
func (d Date) Compare(e Date) int {
	if !d.exists() || !e.exists() {
		return d.Time().Compare(e.Time())
	}
	switch {
	case d.year != e.year:
		return cmp.Compare(d.year, e.year)
	case d.month != e.month:
		return cmp.Compare(d.month, e.month)
	}
	return cmp.Compare(d.day, e.day)
}

// exists reports whether the date is one NewDate returns.
func (d Date) exists() bool { return exists(d.Year(), d.Month(), d.Day()) }

// exists reports whether year, month and day make a date from 1 January 1 to 31 December 9999.
func exists(year int, month time.Month, day int) bool {
	return year >= 1 && year <= 9999 && month >= time.January && month <= time.December &&
		day >= 1 && day <= DaysIn(year, month)
}

// String returns the date as YYYY-MM-DD, or "" for the zero date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.year, d.month, d.day)
}

// MarshalJSON writes the date as "YYYY-MM-DD", or null when not given.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(d.String())
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Date{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return err
	}
	*d = DateOf(t)
	return nil
}

// Position is where something stands in the source file, in the terms of its format: a line
// (1-based) for text formats, a record number where records span lines, an XPath-like path for
// XML, a sheet and row for spreadsheets, a page for PDFs. Unknown parts are zero or empty.
type Position struct {
	Line   int    `json:"line,omitempty"`
	Record int    `json:"record,omitempty"`
	Path   string `json:"path,omitempty"`
	Sheet  string `json:"sheet,omitempty"`
	Page   int    `json:"page,omitempty"`
	// Box is where on Page a PDF's or a scan's row was read from, when the reader knows.
	Box *Box `json:"box,omitempty"`
}

// Box is the part of a page something was read from, as fractions (0 to 1) of the page's width
// and height measured from its top-left corner as the page is shown (its rotation applied), so
// that it fits the page drawn at any size.
type Box struct {
	Left   float64 `json:"left"`
	Top    float64 `json:"top"`
	Right  float64 `json:"right"`
	Bottom float64 `json:"bottom"`
	// Corners are the four corners of the print, as fractions like the sides (x then y; top
	// left, top right, bottom right, bottom left as the print reads), when it runs askew on the
	// page, as on a scan not fed straight; the sides then bound them. Nil when the print runs
	// level with the page.
	Corners *[4][2]float64 `json:"corners,omitempty"`
}

// String returns the position for a message, e.g. "line 12" or "/Document/BkToCstmrStmt/Stmt[2]/Ntry[5]".
func (p Position) String() string {
	var s string
	add := func(part string) {
		if s != "" {
			s += ", "
		}
		s += part
	}
	if p.Page > 0 {
		add(fmt.Sprintf("page %d", p.Page))
	}
	if p.Sheet != "" {
		add("sheet " + p.Sheet)
	}
	if p.Line > 0 {
		add(fmt.Sprintf("line %d", p.Line))
	}
	if p.Record > 0 {
		add(fmt.Sprintf("record %d", p.Record))
	}
	if p.Path != "" {
		add(p.Path)
	}
	if s == "" {
		return "start of file"
	}
	return s
}

// Transaction is one booked line of a statement.
type Transaction struct {
	Date      Date `json:"date"`
	ValueDate Date `json:"value_date"`
	// Amount is signed: credits (money in) positive, debits negative. Exact, never a float.
	Amount decimal.Decimal `json:"amount"`
	// Currency is the ISO 4217 code of Amount; empty when the file does not say.
	Currency            string `json:"currency,omitempty"`
	Description         string `json:"description"`
	Reference           string `json:"reference,omitempty"`
	CounterpartyName    string `json:"counterparty_name,omitempty"`
	CounterpartyAccount string `json:"counterparty_account,omitempty"`
	// Balance is the running balance after this line, when the statement states it.
	Balance *decimal.Decimal `json:"balance,omitempty"`
	// Type is set by Finish from the sign of Amount unless the parser read it from the file
	// (a zero amount can still be a debit, say a reversed fee).
	Type Type `json:"type"`
	// Raw is the source line or record the transaction was read from, as text.
	Raw string   `json:"raw"`
	Pos Position `json:"pos"`
}

// Section is one statement inside a file: MT940, CAMT, OFX and BAI2 files may hold several,
// for several accounts or days. Its transactions are Transactions[First : First+Count].
type Section struct {
	Account        string           `json:"account,omitempty"`
	Currency       string           `json:"currency,omitempty"`
	PeriodStart    Date             `json:"period_start"`
	PeriodEnd      Date             `json:"period_end"`
	OpeningBalance *decimal.Decimal `json:"opening_balance,omitempty"`
	ClosingBalance *decimal.Decimal `json:"closing_balance,omitempty"`
	// Declared holds control totals the file states for this section, checked by Finish.
	Declared *ControlTotals `json:"declared,omitempty"`
	First    int            `json:"first"`
	Count    int            `json:"count"`
	Pos      Position       `json:"pos"`
}

// ControlTotals are totals a file declares about its own transactions (CAMT TxsSummry). Nil
// fields were not declared. Totals that cover more than transactions, such as BAI2 control sums
// over balances too, are checked by their parser, which reports a mismatch as a Problem with
// code ReviewControlTotalMismatch.
type ControlTotals struct {
	Count *int `json:"count,omitempty"`
	// Net is credits minus debits.
	Net *decimal.Decimal `json:"net,omitempty"`
	// Credits and Debits are sums of absolute amounts.
	Credits *decimal.Decimal `json:"credits,omitempty"`
	Debits  *decimal.Decimal `json:"debits,omitempty"`
}

// ReviewCode says why a parsed statement needs a person's look.
type ReviewCode string

// Review codes, as in the Parsing API's ReviewReasonCode.
const (
	ReviewBalanceMismatch      ReviewCode = "balance_mismatch"
	ReviewRunningBalanceBreak  ReviewCode = "running_balance_break"
	ReviewUnreadableRows       ReviewCode = "unreadable_rows"
	ReviewAmbiguousDateOrder   ReviewCode = "ambiguous_date_order"
	ReviewAmbiguousDecimalMark ReviewCode = "ambiguous_decimal_mark"
	ReviewControlTotalMismatch ReviewCode = "control_total_mismatch"
	// ReviewOCR: the statement was read by OCR from scanned pages. Alone, with a high mean
	// word confidence and every amount confirmed by the statement's balances, it does not send
	// the statement to review (see NeedsReview).
	ReviewOCR ReviewCode = "ocr"
)

// MinOCRConfidence is the mean word confidence below which a statement read by OCR goes to
// review whatever its balances say.
const MinOCRConfidence = 80.0

// ReviewReason is one reason to review a statement that was otherwise parsed.
type ReviewReason struct {
	Code    ReviewCode `json:"code"`
	Message string     `json:"message"`
	// Line is the line or record the reason refers to, when there is one.
	Line int `json:"line,omitempty"`
}

// Statement is everything a parser read from one file. Parsers fill Format, Dialect, the bank
// fields, Transactions, and either Sections or the top-level account fields; Finish then derives
// the summary and runs the checks.
type Statement struct {
	Format Format `json:"format"`
	// Dialect names the variant that was read, e.g. "csv;delim=semicolon;decimal=comma;dates=DMY"
	// or "mt940;envelope=swift", so a statement from an unknown bank still says what it was.
	Dialect string `json:"dialect"`
	// BankName is empty when the bank is unknown: it is never guessed.
	BankName string `json:"bank_name,omitempty"`
	// BankID is the identifier the bank was known by in the file (BIC, routing number, OFX
	// FID/ORG, MT940 sender), even when BankName is empty.
	BankID         string           `json:"bank_id,omitempty"`
	Account        string           `json:"account,omitempty"`
	Currency       string           `json:"currency,omitempty"`
	PeriodStart    Date             `json:"period_start"`
	PeriodEnd      Date             `json:"period_end"`
	OpeningBalance *decimal.Decimal `json:"opening_balance,omitempty"`
	ClosingBalance *decimal.Decimal `json:"closing_balance,omitempty"`
	Transactions   []Transaction    `json:"transactions"`
	Sections       []Section        `json:"sections,omitempty"`
	// OCRConfidence is the mean word confidence (0 to 100) of a statement read by OCR; 0 for
	// one read from text.
	OCRConfidence float64 `json:"ocr_confidence,omitempty"`
	// ocrConfirmed: Finish found every amount of an OCR'd statement confirmed by balances
	// (opening and closing, or running balances), so a misread digit would have shown.
	ocrConfirmed bool
	// Problems are rows or records that could not be read, and other findings of the parser;
	// Finish turns them into review reasons. Nothing unreadable is dropped silently.
	Problems []Problem      `json:"problems,omitempty"`
	Review   []ReviewReason `json:"review,omitempty"`
}

// Problem is something a parser could not read or that does not add up, at a position. Its
// Message says what happened to the row: "skipped" when the row is missing from the
// transactions, or which field was left out when the transaction was kept.
type Problem struct {
	// Code is the review reason the problem becomes; ReviewUnreadableRows when left empty.
	Code    ReviewCode `json:"code,omitempty"`
	Pos     Position   `json:"pos"`
	Message string     `json:"message"`
}

// NeedsReview reports whether the statement needs a person's look: a review reason other than
// ReviewOCR, or, read by OCR, a mean word confidence under MinOCRConfidence or an amount that no
// balance confirms.
func (st *Statement) NeedsReview() bool {
	for _, r := range st.Review {
		if r.Code != ReviewOCR {
			return true
		}
	}
	return st.OCRConfidence > 0 && (st.OCRConfidence < MinOCRConfidence || !st.ocrConfirmed)
}

// Reconciled reports whether the statement's own numbers bear it out: no review reason but
// ReviewOCR, and, read by OCR, every amount confirmed by a balance. Unlike NeedsReview it does
// not weigh OCR's confidence: it tells a right reading of a page from a wrong one.
func (st *Statement) Reconciled() bool {
	for _, r := range st.Review {
		if r.Code != ReviewOCR {
			return false
		}
	}
	return st.OCRConfidence == 0 || st.ocrConfirmed
}
