package tabular

import (
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// tally is what the statement's sections, its reading order and the signs read from running
// balances need to know of the transactions, gathered as build reads them, so that a Stream
// need not hold them.
type tally struct {
	n int
	// balances counts the transactions with a running balance.
	balances int
	firstPos statement.Position
	prev     facts // the transaction read last
	// Consecutive dates that rise and fall, and consecutive running balances that follow
	// reading down (fw) and up (bw): newestFirst.
	up, down, fw, bw int
	// unsigned: every transaction so far has an amount of zero or more and a running balance,
	// as signFromBalances needs. fwdOK and bwdOK: each balance differs from the one above
	// (below) by its row's amount, either way; fwdNeg and bwdNeg: some by less, a debit.
	unsigned       bool
	fwdOK, bwdOK   bool
	fwdNeg, bwdNeg bool
	first          facts
	runs           []run
}

// facts is what the tally keeps of one transaction.
type facts struct {
	date    statement.Date
	amount  decimal.Decimal
	balance *decimal.Decimal
}

// run is a run of transactions of one own account (one section).
type run struct {
	first, count int
	account      string
	// currency is the currency every transaction of the run names, unless mixed.
	currency   string
	mixed      bool
	start, end statement.Date
	head, tail facts
	// before is the running balance of the transaction before head, after that of the one
	// after tail (nil at either end of the table).
	before, after *decimal.Decimal
}

func newTally() tally { return tally{unsigned: true, fwdOK: true, bwdOK: true} }

// add counts transaction t, of own account acct.
func (tl *tally) add(t *statement.Transaction, acct string) {
	f := facts{date: t.Date, amount: t.Amount, balance: t.Balance}
	if t.Balance != nil {
		tl.balances++
	}
	if tl.unsigned && (t.Balance == nil || t.Amount.Sign() < 0) {
		tl.unsigned = false
	}
	if tl.n == 0 {
		tl.first, tl.firstPos = f, t.Pos
	} else {
		p := tl.prev
		switch f.date.Compare(p.date) {
		case 1:
			tl.up++
		case -1:
			tl.down++
		}
		if p.balance != nil && f.balance != nil {
			if statement.AddsUp(*p.balance, f.amount, *f.balance) {
				tl.fw++
			}
			if statement.AddsUp(*f.balance, p.amount, *p.balance) {
				tl.bw++
			}
		}
		if tl.unsigned {
			// Reading down, this row's amount leads from the balance above to its own;
			// reading up, the row above's leads from this balance to the one above.
			tl.fwdOK, tl.fwdNeg = explains(tl.fwdOK, tl.fwdNeg, *p.balance, f)
			tl.bwdOK, tl.bwdNeg = explains(tl.bwdOK, tl.bwdNeg, *f.balance, p)
		}
		tl.runs[len(tl.runs)-1].after = t.Balance
	}
	if k := len(tl.runs) - 1; k >= 0 && tl.runs[k].account == acct {
		r := &tl.runs[k]
		r.count++
		r.tail, r.after = f, nil
		if f.date.Compare(r.start) < 0 {
			r.start = f.date
		}
		if f.date.Compare(r.end) > 0 {
			r.end = f.date
		}
		if t.Currency != "" {
			if r.currency == "" {
				r.currency = t.Currency
			} else if r.currency != t.Currency {
				r.mixed = true
			}
		}
	} else {
		r := run{first: tl.n, count: 1, account: acct, currency: t.Currency, start: f.date, end: f.date, head: f, tail: f}
		if tl.n > 0 {
			r.before = tl.prev.balance
		}
		tl.runs = append(tl.runs, r)
	}
	tl.prev = f
	tl.n++
}

// explains folds one row into signFromBalances' test: its balance differs from prev, the
// balance before it in the reading order, by exactly its amount, and whether downwards.
func explains(ok, neg bool, prev decimal.Decimal, row facts) (bool, bool) {
	if !ok {
		return false, neg
	}
	if statement.AddsUp(prev, row.amount, *row.balance) {
		return true, neg
	}
	if statement.AddsUp(*row.balance, row.amount, prev) {
		return true, true
	}
	return false, neg
}

// newestFirst reports a table listed newest first: more of its consecutive dates fall than
// rise, or, with as many rising as falling, its running balances follow from the row below.
func (tl *tally) newestFirst() bool {
	if tl.up != tl.down {
		return tl.down > tl.up
	}
	return tl.bw > tl.fw
}

// flips is how a table of unsigned amounts beside a running balance takes its signs from the
// balances (signFromBalances): a row is a debit when its balance is below the one before it in
// the reading order, the opening balance before the first row read.
type flips struct {
	on      bool
	newest  bool
	opening decimal.Decimal
}

// debit reports whether a row whose balance is bal, read after the balance prev (nil: the
// opening balance), is money out, under the flips.
func (fl *flips) debit(prev *decimal.Decimal, amount decimal.Decimal, bal decimal.Decimal) bool {
	p := fl.opening
	if prev != nil {
		p = *prev
	}
	return !statement.AddsUp(p, amount, bal)
}

// signFromBalances decides whether a single unsigned amount column takes its signs from the
// running balance beside it: when the balances explain every one, each differing from the one
// before it (the opening balance before the first row) by exactly the row's amount. Statements
// that print "Amount" and "Balance" without a sign or a debit/credit mark are read this way; any
// row the balances do not explain leaves the amounts as they are, for the checks to flag.
func (x *extractor) signFromBalances() {
	tl := &x.tally
	x.flips = flips{}
	if x.dec.mode != modeSigned || x.t.Card || tl.n == 0 || x.mined.opening == nil || !tl.unsigned {
		return
	}
	opening := *x.mined.opening
	newest := tl.newestFirst()
	// The row read first after the opening balance: the top one, or the bottom one newest first.
	end, ok, neg := tl.first, tl.fwdOK, tl.fwdNeg
	if newest {
		end, ok, neg = tl.prev, tl.bwdOK, tl.bwdNeg
	}
	ok, neg = explains(ok, neg, opening, end)
	if !ok || !neg {
		return
	}
	x.flips = flips{on: true, newest: newest, opening: opening}
	x.dialect = append(x.dialect, "signs=balance")
}

// signed returns a row's amount as flipped, given the balance read before it (nil: the
// opening balance).
func (x *extractor) signed(f facts, prev *decimal.Decimal) decimal.Decimal {
	if x.flips.on && x.flips.debit(prev, f.amount, *f.balance) {
		return f.amount.Neg()
	}
	return f.amount
}
