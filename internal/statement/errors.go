package statement

import (
	"errors"
	"fmt"
)

// Kinds of failure, one per way a job can fail. Parsers return an *Error whose Kind is one of
// these, so callers branch with errors.Is.
var (
	// ErrNotAStatement: the content is no supported statement format.
	ErrNotAStatement = errors.New("not a supported bank statement")
	// ErrCorrupt: the file is of a known format but damaged or truncated.
	ErrCorrupt = errors.New("file is damaged or truncated")
	// ErrEncrypted: the file is encrypted in a way that cannot be opened.
	ErrEncrypted = errors.New("file is encrypted or password-protected")
	// ErrPasswordRequired: the file is protected by a password and none was given.
	ErrPasswordRequired = errors.New("file is protected by a password")
	// ErrPasswordIncorrect: the password given does not open the file.
	ErrPasswordIncorrect = errors.New("password does not open the file")
	// ErrNoTextLayer: a PDF without text, such as a scan.
	ErrNoTextLayer = errors.New("PDF has no text layer")
	// ErrNoTransactions: the statement has no readable transactions.
	ErrNoTransactions = errors.New("statement has no readable transactions")
	// ErrTooManyRows: more rows than Options.MaxRows.
	ErrTooManyRows = errors.New("more rows than the row limit")
	// ErrResourceLimit: the file needs more memory, decompressed size or nesting than allowed.
	ErrResourceLimit = errors.New("file exceeds a resource limit")
	// ErrInternal: a bug in a parser, contained; the file may be fine.
	ErrInternal = errors.New("unexpected failure while reading the file")
)

// Error is a parse that failed as a whole: its kind, where, and why.
type Error struct {
	// Format is the format being read, empty before detection.
	Format Format
	Kind   error
	Pos    Position
	Msg    string
}

// Errorf returns an *Error of kind at pos with a formatted message.
func Errorf(format Format, kind error, pos Position, msg string, args ...any) *Error {
	return &Error{Format: format, Kind: kind, Pos: pos, Msg: fmt.Sprintf(msg, args...)}
}

// Error returns e.g. "mt940: line 12: :61: amount \"12x\" is not a number: file is damaged or truncated".
func (e *Error) Error() string {
	s := ""
	if e.Format != "" {
		s = string(e.Format) + ": "
	}
	if e.Pos != (Position{}) {
		s += e.Pos.String() + ": "
	}
	if e.Msg != "" {
		s += e.Msg + ": "
	}
	return s + e.Kind.Error()
}

// Unwrap returns the kind, so errors.Is(err, ErrCorrupt) works.
func (e *Error) Unwrap() error { return e.Kind }
