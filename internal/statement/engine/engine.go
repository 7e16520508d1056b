package engine

import (
	"fmt"
	"runtime"

	"github.com/statementmatch/service/internal/statement"
)

// parseFunc is what every format package exports as Parse.
type parseFunc func(data []byte, opts statement.Options) (*statement.Statement, error)

// Parse reads a statement file of any supported format. It detects the format from the content,
// parses, and completes the result with statement.Finish, so the statement's summary, checks and
// review reasons are set. Failures are *statement.Error values whose Kind says why (not a
// statement, corrupt, encrypted, too many rows, ...); a panic in a parser is contained and
// reported as statement.ErrInternal, never propagated.
func Parse(data []byte, opts statement.Options) (st *statement.Statement, err error) {
	opts = opts.WithDefaults()
	format, parse, err := parserOf(data)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st = nil
		}
	}()
	defer contain(format, &err)
	st, err = parse(data, opts)
	if err != nil {
		return nil, err
	}
	statement.Finish(st)
	if len(st.Transactions) == 0 && !statesBalance(st) {
		return nil, statement.Errorf(st.Format, statement.ErrNoTransactions, statement.Position{}, "")
	}
	return st, nil
}

// Stream reads a statement file as Parse does, for a caller that stores the transactions as
// they pass rather than hold them all: CSV files and workbooks are read again each time the
// transactions are asked for, a PDF's rebuilt table is held and its transactions made again
// from its rows, MT940, CAMT and OFX files are read again holding one statement's transactions
// at a time and BAI2 files none, QIF files once for their dates' order and decimal mark and
// again for the transactions, holding none; scans are parsed whole and held. The Stream's
// Finished yields the transactions finished and then finishes the statement, as Parse leaves
// it.
func Stream(data []byte, opts statement.Options) (s *statement.Stream, err error) {
	opts = opts.WithDefaults()
	format, parse, err := parserOf(data)
	if err != nil {
		return nil, err
	}
	defer contain(format, &err)
	if stream, ok := streamers[format]; ok {
		s, err = stream(data, opts)
	} else {
		var st *statement.Statement
		if st, err = parse(data, opts); err == nil {
			s = statement.Held(st)
		}
	}
	if err != nil {
		return nil, err
	}
	if s.Count == 0 && !statesBalance(s.Statement) {
		return nil, statement.Errorf(s.Statement.Format, statement.ErrNoTransactions, statement.Position{}, "")
	}
	each := s.Each
	s.Each = func(yield func(*statement.Transaction) bool) (err error) {
		defer contain(format, &err)
		return each(yield)
	}
	return s, nil
}

// parserOf detects the file's format and returns its parser.
func parserOf(data []byte) (statement.Format, parseFunc, error) {
	format, err := Detect(data)
	if err != nil {
		return format, nil, err
	}
	parse, ok := parsers[format]
	if !ok {
		return format, nil, statement.Errorf(format, statement.ErrNotAStatement, statement.Position{},
			"%s statements are recognised but not read by this version yet", format)
	}
	return format, parse, nil
}

// contain turns a parser's panic into an error of kind statement.ErrInternal in *err; it is
// deferred.
func contain(format statement.Format, err *error) {
	if r := recover(); r != nil {
		buf := make([]byte, 4<<10)
		buf = buf[:runtime.Stack(buf, false)]
		// The panic goes into the error's text for logs; the *statement.Error inside carries
		// only the fixed message that may be shown to a client.
		*err = fmt.Errorf("%w (panic: %v)\n%s", statement.Errorf(format, statement.ErrInternal, statement.Position{}, ""), r, buf)
	}
}

// statesBalance reports whether any section of the statement states a balance. A statement
// with balances and no activity in its period is a statement (completed, zero transactions);
// the sections are asked rather than the top-level balances, which Finish leaves empty when
// the sections are of several accounts (an OFX with two STMTRS, a BAI2 file of two accounts).
func statesBalance(st *statement.Statement) bool {
	if st.OpeningBalance != nil || st.ClosingBalance != nil {
		return true
	}
	for _, s := range st.Sections {
		if s.OpeningBalance != nil || s.ClosingBalance != nil {
			return true
		}
	}
	return false
}
