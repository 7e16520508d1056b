// Package expected reads an expected-references file: the payments a business expects, one row
// each, that the reconciliation engine (package match) looks for in a bank statement. The file is
// CSV or Excel (.xlsx, .xls), found from its content, never from its name. It follows the rules
// published in the Reconciliation API (openapi/reconciliation.yaml); where they leave a choice,
// this comment says what was chosen and why.
//
// Reading reuses the statement readers, so that a file reads the same whether it is uploaded as
// a statement or as expected references: package csv decodes the text (UTF-8 with or without a
// byte-order mark, UTF-16 with a byte-order mark or by its NUL bytes, Windows-125x and
// ISO-8859-x code pages) and splits records (comma, semicolon, tab or pipe; quoted fields with
// delimiters and line breaks); package excel opens workbooks within the same limits (rows,
// decompressed size) and renders numeric cells exactly, never as a float's artefacts; package
// tabular reads amount and date cells.
//
// The header row is the first row with any text. Its names are compared after trimming, in lower
// case, with every run of spaces, hyphens and underscores read as one "_": "Invoice Number",
// "invoice-number" and "INVOICE_NUMBER" are all invoice_number. Reading a run as one "_" (rather
// than each character) is a little more lenient than the published rule, and can only make a
// header name match that a person would read as the same name. The leftmost column of a role
// wins, and other columns are ignored.
//
// For a CSV file the delimiter is the one that splits the header row into a reference and an
// amount column (the most roles when several do); only when none does is the statement reader's
// delimiter sniffing used, so that the error names the columns the file seems to have.
//
// Decisions made where the published rules are silent:
//   - Decimal mark. It is decided once per file from the amount cells that show it: "12,50" or
//     "1.250,50" show a comma, "12.50" or "1,250.50" a point; the mark more cells show wins, a
//     tie going to the point. An amount with one separator followed by exactly three digits
//     ("1,250", "1.250") shows nothing: when no cell of the file shows a mark, the point is the
//     decimal mark, so "1,250" is 1250 and "1.250" is 1.25, the reading of the English-speaking
//     exports most such files come from. Excel numeric cells take no part: their text is
//     canonical, with a point. A cell that does not read with the file's mark ("12,5" in a file of
//     "1,250.00") is an invalid row: a file mixing both marks is ambiguous, and guessing per row
//     could turn 1.250 into 1250 silently.
//   - Date order of due dates such as 03/05/2024: decided once per file as for statements. A
//     date with a first field over 12 shows day first, one with a second field over 12 month
//     first; the order more dates show wins (day first on a tie). When no date shows it, dates
//     are read day first, unless nothing points at a day-first locale (dotted dates, a decimal
//     comma shown by the amounts) and the file's most named currency is USD. A due date that
//     does not read in the file's order is an invalid row.
//   - Currency. A currency cell must be empty or three ASCII letters (any case, stored upper
//     case); the code is not checked against the ISO 4217 list, so that a new code is not
//     refused. A code or single-currency symbol in the amount cell ("€ 12.50", "12.50 EUR")
//     gives the currency when the currency cell is empty; when both name a currency and they
//     differ, the row is invalid rather than one of them silently preferred. "$" names no one
//     currency and gives none.
//   - Sign. The amount is stored as its absolute value, whatever wrote the sign: a minus before
//     or after, parentheses, CR or DR.
//   - Cells written in Excel's ="..." form (="INV-001") are read without it, as Excel shows them.
//     The reference is otherwise kept as written, trimmed.
//   - Rows. A row is empty, and skipped, when every cell is blank. The row limit
//     (Options.MaxRows) counts the rows after the header that are not empty. Errors name a row
//     by its number in the file: for CSV the line on which the record starts (the header being
//     line 1 unless blank lines precede it), for Excel the sheet's row number.
//   - Sheets. The first sheet with any content is read, visible sheets before hidden ones, the
//     order the statement reader tries them in; other sheets are ignored.
//   - Not supported. A PDF, an MT940, CAMT, OFX, BAI2 or QIF statement, a ZIP archive or OLE2
//     file that is not a workbook, and binary data are refused as "not a CSV or Excel file",
//     saying what the file looks like. A text file recognised as a statement format is still
//     read as CSV when its first row has a reference and an amount column, since such markers
//     (":20:" in a time of day) can occur in a CSV file by chance.
//
// Check does the part of Read that depends on the file as a whole and its header only. For a
// CSV file it reads the first MiB of the file; for an xlsx workbook it opens the package and
// decompresses the first sheet only as far as its header row; an xls workbook is read whole,
// its stream being no larger than the file.
package expected

import (
	"errors"
	"fmt"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
)

// Kinds of failure, for callers to branch on with errors.Is: every error Read and Check return
// is an *Error whose Kind is one of these.
var (
	// ErrInvalid is a file that cannot be read as expected references: not CSV or Excel,
	// empty, encrypted, damaged, without a required column, or with an invalid row. The API
	// reports it as FILE_INVALID.
	ErrInvalid = errors.New("invalid expected-references file")
	// ErrTooLarge is a file past a limit of Options: more rows than MaxRows, or a workbook
	// that expands past MaxDecompressedBytes. The API reports it as FILE_TOO_LARGE.
	ErrTooLarge = errors.New("expected-references file too large")
)

// Error says why a file was refused, and where when the reason is one row or column.
type Error struct {
	// Row is the 1-based row the error is about, as described in the package comment; 0
	// when the error is about the file as a whole.
	Row int
	// Column is the role the error is about ("reference", "amount", "currency", "due_date",
	// "name"), or empty.
	Column string
	// Msg says what is wrong, for a person, without the row.
	Msg string
	// Kind is ErrInvalid or ErrTooLarge.
	Kind error
}

// Error returns the message with its row, e.g. `row 14: amount "12,50,00" is not a decimal
// number`, or the message alone for the file as a whole, e.g. "the file is empty".
func (e *Error) Error() string {
	if e.Row > 0 {
		return fmt.Sprintf("row %d: %s", e.Row, e.Msg)
	}
	return e.Msg
}

// Unwrap returns the Kind, so that errors.Is(err, ErrInvalid) works.
func (e *Error) Unwrap() error { return e.Kind }

// invalid returns an ErrInvalid error about the file as a whole.
func invalid(msg string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(msg, args...), Kind: ErrInvalid}
}

// rowError returns an ErrInvalid error about one cell of a row.
func rowError(row int, column, msg string, args ...any) *Error {
	return &Error{Row: row, Column: column, Msg: fmt.Sprintf(msg, args...), Kind: ErrInvalid}
}

// Read reads an expected-references file, CSV or Excel (.xlsx, .xls; first non-empty sheet),
// found from the content, not a name, into one Expected per row that is not empty, in file
// order. A header row without data rows gives an empty, non-nil slice. Every error is an *Error
// of kind ErrInvalid or ErrTooLarge; the first invalid row fails the whole file, since a payment
// left out would later be reported as missing from the statement.
func Read(data []byte, opts statement.Options) (out []match.Expected, err error) {
	defer contain(&err)
	opts = opts.WithDefaults()
	src, err := open(data, opts, false)
	if err != nil {
		return nil, err
	}
	t, err := src.header()
	if err != nil {
		return nil, err
	}
	return t.read(opts)
}

// Check is the cheap check made before a job is accepted: the file is CSV or Excel, is not
// empty, encrypted or damaged (as far as its head shows), and its header row has a reference
// and an amount column. It refuses every file Read refuses for a reason of the file as a whole
// or of its header, and reads only the file's head: it stays fast for a 25 MiB file. Rows are
// not checked; Read does that. Errors are as Read's.
func Check(data []byte, opts statement.Options) (err error) {
	defer contain(&err)
	opts = opts.WithDefaults()
	src, err := open(data, opts, true)
	if err != nil {
		return err
	}
	_, err = src.header()
	return err
}

// recoverPanics is turned off by the fuzz test, so that a panic fails it instead of hiding in
// an ErrInvalid.
var recoverPanics = true

// contain turns a panic into an ErrInvalid error. The readers bound every index they use; this
// is the last resort, so that a bug fails one file instead of the service.
func contain(err *error) {
	if !recoverPanics {
		return
	}
	if r := recover(); r != nil {
		*err = invalid("the file could not be read (internal error: %v)", r)
	}
}

// fromStatement turns a statement reader's error into ours, keeping what it says (its message
// without the kind's generic text) and mapping its kind.
func fromStatement(err error, maxRows int) *Error {
	var se *statement.Error
	if !errors.As(err, &se) {
		return invalid("the file could not be read: %v", err)
	}
	msg := se.Msg
	if se.Pos != (statement.Position{}) {
		msg += " (" + se.Pos.String() + ")"
	}
	switch {
	case errors.Is(err, statement.ErrTooManyRows):
		return &Error{Msg: fmt.Sprintf("the file has more than %d rows, the limit", maxRows), Kind: ErrTooLarge}
	case errors.Is(err, statement.ErrResourceLimit):
		return &Error{Msg: "the file is too large: " + msg, Kind: ErrTooLarge}
	case errors.Is(err, statement.ErrEncrypted):
		return invalid("the workbook is encrypted: save it without a password")
	case errors.Is(err, statement.ErrNotAStatement):
		return notSupported(se.Msg)
	case errors.Is(err, statement.ErrCorrupt):
		return invalid("the file is damaged: %s", msg)
	}
	return invalid("the file could not be read: %s", msg)
}

// notSupported refuses a file that is neither CSV nor Excel, saying what it looks like.
func notSupported(what string) *Error {
	return invalid("not a CSV or Excel file: %s", what)
}
