package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// txn is one transaction as the statement prints it.
type txn struct {
	date   time.Time
	desc   []string // description lines, as printed
	ref    string
	amount decimal.Decimal // signed: credits positive
	bal    decimal.Decimal // running balance after the transaction
	kind   string
}

// stmt is the data of one statement: what the answer key says and what the document prints.
type stmt struct {
	layout           string
	account          string
	currency         string
	start, end       time.Time
	opening, closing *decimal.Decimal // nil when the statement prints none
	txns             []txn            // in the order the statement prints them
	doc              *Doc
}

// kind is one sort of transaction a layout draws: its share, its amount range in cents and
// how its description and reference are written.
type kind struct {
	name     string
	weight   int
	min, max int64 // cents (or whole units for currencies without minor units)
	credit   bool
	text     func(r *rand.Rand, t *txn)
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// genTxns draws n transactions dated within [start, end] in date order, keeping the running
// balance above the floor (a debit that would cross it becomes the first credit kind).
func genTxns(r *rand.Rand, start, end time.Time, n int, opening decimal.Decimal, exp int32, kinds []kind) []txn {
	span := int(end.Sub(start).Hours()/24) + 1
	days := make([]int, n)
	for i := range days {
		days[i] = r.IntN(span)
	}
	sort.Ints(days)
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	var firstCredit kind
	for _, k := range kinds {
		if k.credit {
			firstCredit = k
			break
		}
	}
	floor := decimal.New(5000, exp)
	bal := opening
	out := make([]txn, 0, n)
	for _, d := range days {
		pick := r.IntN(total)
		var k kind
		for _, kk := range kinds {
			if pick < kk.weight {
				k = kk
				break
			}
			pick -= kk.weight
		}
		amt := decimal.New(k.min+r.Int64N(k.max-k.min+1), exp)
		if !k.credit && bal.Sub(amt).LessThan(floor) {
			k = firstCredit
			amt = decimal.New(k.min+r.Int64N(k.max-k.min+1), exp)
		}
		if !k.credit {
			amt = amt.Neg()
		}
		bal = bal.Add(amt)
		t := txn{date: start.AddDate(0, 0, d), amount: amt, bal: bal, kind: k.name}
		k.text(r, &t)
		out = append(out, t)
	}
	return out
}

// finish sets the closing balance from the opening balance and the transactions.
func (s *stmt) finish(opening decimal.Decimal) {
	s.opening = &opening
	c := opening
	for _, t := range s.txns {
		c = c.Add(t.amount)
	}
	s.closing = &c
}

func sumOf(txns []txn, credit bool) decimal.Decimal {
	s := decimal.Zero
	for _, t := range txns {
		if t.amount.IsPositive() == credit && !t.amount.IsZero() {
			s = s.Add(t.amount)
		}
	}
	return s
}

// group writes the absolute value of d with thousands separator sep and decimal mark mark,
// places decimals; indian groups lakhs and crores (1,23,45,678.90).
func group(d decimal.Decimal, places int32, sep, mark string, indian bool) string {
	s := d.Abs().StringFixed(places)
	ip, fp, _ := strings.Cut(s, ".")
	var parts []string
	if indian && len(ip) > 3 {
		parts = append(parts, ip[len(ip)-3:])
		ip = ip[:len(ip)-3]
		for len(ip) > 2 {
			parts = append([]string{ip[len(ip)-2:]}, parts...)
			ip = ip[:len(ip)-2]
		}
		parts = append([]string{ip}, parts...)
	} else {
		for len(ip) > 3 {
			parts = append([]string{ip[len(ip)-3:]}, parts...)
			ip = ip[:len(ip)-3]
		}
		parts = append([]string{ip}, parts...)
	}
	out := strings.Join(parts, sep)
	if places > 0 {
		out += mark + fp
	}
	return out
}

func us(d decimal.Decimal) string { return group(d, 2, ",", ".", false) }
func eu(d decimal.Decimal) string { return group(d, 2, ".", ",", false) }
func in(d decimal.Decimal) string { return group(d, 2, ",", ".", true) }

func ordinal(n int) string {
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suf)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

func alnum(r *rand.Rand, n int) string {
	const a = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = a[r.IntN(len(a))]
	}
	return string(b)
}
