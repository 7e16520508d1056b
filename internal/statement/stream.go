package statement

import "errors"

// ErrStopped is what a reader given to Read returns when emit has said its caller wants no
// more transactions; Read does not pass it on.
var ErrStopped = errors.New("the reader's caller stopped")

// Stream is a statement read without holding its transactions, for files too large to hold
// them all: Statement holds everything else (its Sections count the transactions, and
// Statement.Transactions is nil), and Each reads the transactions again from the file, in order,
// each time it is called. Parsers stream where their format allows; Held makes a Stream of a
// statement whose transactions are held.
type Stream struct {
	Statement *Statement
	// Count is how many transactions Each yields.
	Count int
	// First is the position of the first transaction; zero when there is none.
	First Position
	// Each yields the transactions as the parser read them (Finished completes them). The
	// Transaction is the reader's to reuse once yield returns: a caller that keeps one copies
	// it. The error is the reader's when it could not read the file again as it first did.
	Each func(yield func(*Transaction) bool) error
}

// Read makes a Stream of a reader that gives its transactions to a sink as it reads them
// rather than hold them: read reads the file once, giving each transaction to emit, and returns
// the statement without them (or with those it still held, which are dropped). The first
// reading makes the Stream's Statement, Count and First; Each reads the file again, yielding
// the transactions; a yield that returns false has emit return false, after which the reader
// stops as it can (any error it then returns is not the caller's).
func Read(read func(emit func(*Transaction) bool) (*Statement, error)) (*Stream, error) {
	s := &Stream{}
	st, err := read(func(t *Transaction) bool {
		if s.Count == 0 {
			s.First = t.Pos
		}
		s.Count++
		return true
	})
	if err != nil {
		return nil, err
	}
	st.Transactions = nil
	s.Statement = st
	s.Each = func(yield func(*Transaction) bool) error {
		stopped := false
		_, err := read(func(t *Transaction) bool {
			if !yield(t) {
				stopped = true
			}
			return !stopped
		})
		if stopped {
			return nil
		}
		return err
	}
	return s, nil
}

// Held returns st, whose transactions are held in st.Transactions, as a Stream.
func Held(st *Statement) *Stream {
	s := &Stream{Statement: st, Count: len(st.Transactions)}
	if len(st.Transactions) > 0 {
		s.First = st.Transactions[0].Pos
	}
	s.Each = func(yield func(*Transaction) bool) error {
		for i := range st.Transactions {
			if !yield(&st.Transactions[i]) {
				return nil
			}
		}
		return nil
	}
	return s
}

// Finished yields the transactions completed by a Finisher (their Type and currency), and, once
// the last has been yielded, leaves Statement finished as Finish leaves it: its summary and its
// review reasons. Each call reads the transactions again and finishes the statement afresh.
func (s *Stream) Finished(yield func(*Transaction) bool) error {
	f := NewFinisher(s.Statement)
	stopped := false
	err := s.Each(func(t *Transaction) bool {
		f.Add(t)
		if !yield(t) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil || stopped {
		return err
	}
	f.Done()
	return nil
}
