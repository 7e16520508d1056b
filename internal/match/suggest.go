package match

import (
	"cmp"
	"math"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// MaxSuggestions is how many bank lines are suggested, at most, for an Unmatched reference.
const MaxSuggestions = 3

// suggest lists, for every Unmatched reference with a non-zero amount, the bank lines no
// reference used that pay exactly its amount and agree with it in currency: lines a person
// might attribute to it by hand, typically a transfer whose payer wrote no reference. At most
// MaxSuggestions, the closest in date to the reference's due date first, or in statement
// order when it has none; ties go to the earlier line. Suggestions decide nothing: the
// reference stays Unmatched, and a line may be suggested for several references.
//
// Most unused lines pay nothing expected (a statement's other business), so the index is
// built from the other side: the amounts of the Unmatched references first, then one pass
// over the unused lines keeps the hits, those of these amounts, sorted by amount and currency
// (and date, when due dates need it). Each reference then costs a map look-up and a few
// binary searches: time linear in the lines plus n log n in the hits, whatever the data, even
// when thousands of references and lines share an amount.
func (e *engine) suggest(unused []int) {
	ix := &suggestIndex{amount: newAmountIndex()}
	for r := range e.refs {
		if e.refs[r].Outcome == Unmatched && e.abs[r].Sign() != 0 {
			ix.amount.add(e.abs[r])
		}
	}
	if ix.amount.n == 0 {
		return
	}
	ix.amount.seal()
	for _, l := range unused {
		b := &e.bank[l]
		if k := ix.amount.find(b.Amount); k >= 0 { // never a zero amount: none is indexed
			ix.hits = append(ix.hits, hit{amount: k, cur: currencyKey(b.Currency), day: dayNumber(b.Date), line: int32(l)})
		}
	}
	if len(ix.hits) == 0 {
		return
	}
	// Unused lines come in statement order: sorting by amount alone keeps it within each.
	slices.SortStableFunc(ix.hits, func(a, b hit) int { return cmp.Compare(a.amount, b.amount) })
	for r := range e.refs {
		if e.refs[r].Outcome == Unmatched && e.abs[r].Sign() != 0 {
			e.refs[r].Suggestions = ix.suggest(e, r)
		}
	}
}

// amountIndexKey is an amount as the suggestion index keys it, without allocating: the
// absolute coefficient without trailing zeros and the exponent. Amounts of more than 18
// digits, which no statement has, are keyed in amountIndex.big by amountKey.
type amountIndexKey struct {
	coef int64
	exp  int64
}

// smallKey returns the key of d, and false when d has more than 18 digits.
func smallKey(d decimal.Decimal) (amountIndexKey, bool) {
	if d.NumDigits() > 18 {
		return amountIndexKey{}, false
	}
	c, exp := d.CoefficientInt64(), int64(d.Exponent())
	if c < 0 {
		c = -c
	}
	if c == 0 {
		return amountIndexKey{}, true
	}
	for c%10 == 0 {
		c /= 10
		exp++
	}
	return amountIndexKey{coef: c, exp: exp}, true
}

// amountIndex numbers a set of amounts. Most amounts looked up are not in it (the unused
// lines of a statement pay mostly what nobody expected), so a bit set of their hashes, small
// enough to stay in cache, answers most look-ups before the map.
type amountIndex struct {
	small map[amountIndexKey]int32
	big   map[string]int32
	bits  []uint64
	shift uint // the hash's top bits index bits
	n     int32
}

func newAmountIndex() *amountIndex {
	return &amountIndex{small: make(map[amountIndexKey]int32), big: make(map[string]int32)}
}

func (k amountIndexKey) hash() uint64 {
	return uint64(k.coef)*0x9E3779B97F4A7C15 ^ uint64(k.exp)*0xC2B2AE3D27D4EB4F
}

// add numbers d, if new, and returns its number.
func (ix *amountIndex) add(d decimal.Decimal) int32 {
	if k, ok := smallKey(d); ok {
		if i, ok := ix.small[k]; ok {
			return i
		}
		ix.small[k] = ix.n
	} else {
		s := amountKey(d)
		if i, ok := ix.big[s]; ok {
			return i
		}
		ix.big[s] = ix.n
	}
	ix.n++
	return ix.n - 1
}

// seal builds the bit set, once every amount is added: some 16 bits per amount.
func (ix *amountIndex) seal() {
	b := filterBits(len(ix.small), 16)
	ix.bits, ix.shift = make([]uint64, 1<<b/64), 64-b
	for k := range ix.small {
		setBit(ix.bits, uint32(k.hash()>>ix.shift))
	}
}

// find returns the number of d, or -1.
func (ix *amountIndex) find(d decimal.Decimal) int32 {
	k, ok := smallKey(d)
	if !ok {
		if i, ok := ix.big[amountKey(d)]; ok {
			return i
		}
		return -1
	}
	if !hasBit(ix.bits, uint32(k.hash()>>ix.shift)) {
		return -1
	}
	if i, ok := ix.small[k]; ok {
		return i
	}
	return -1
}

// hit is an unused line of an amount some Unmatched reference expects.
type hit struct {
	amount int32  // the amount's number in the amountIndex
	cur    string // the line's currency, as currencyKey gives it
	day    int32  // dayNumber of the line's date
	line   int32
}

// suggestIndex holds the hits in the orders references need, each sorted by amount first so
// that a reference finds its own by binary search. The orders a file's references never need
// (by currency when none names one, by date when none has a due date) are never built.
type suggestIndex struct {
	amount *amountIndex
	// hits are by (amount, line); byCur by (amount, currency, line); byDate by (amount, day,
	// line); byCurDate by (amount, currency, day, line).
	hits, byCur, byDate, byCurDate []hit
}

func byLine(a, b hit) int { return cmp.Compare(a.line, b.line) }

func byDay(a, b hit) int {
	if c := cmp.Compare(a.day, b.day); c != 0 {
		return c
	}
	return byLine(a, b)
}

// byCurrency orders by amount, currency, then then.
func byCurrency(then func(a, b hit) int) func(a, b hit) int {
	return byAmount(func(a, b hit) int {
		if c := cmp.Compare(a.cur, b.cur); c != 0 {
			return c
		}
		return then(a, b)
	})
}

// byAmount orders by amount, then then.
func byAmount(then func(a, b hit) int) func(a, b hit) int {
	return func(a, b hit) int {
		if c := cmp.Compare(a.amount, b.amount); c != 0 {
			return c
		}
		return then(a, b)
	}
}

// order returns the hits sorted by less, sorting a copy into *dst on first use.
func (ix *suggestIndex) order(dst *[]hit, less func(a, b hit) int) []hit {
	if *dst == nil {
		*dst = slices.Clone(ix.hits)
		slices.SortFunc(*dst, less)
	}
	return *dst
}

// span returns the run of sorted hits of amount k and, unless anyCur, of currency cur.
func span(sorted []hit, k int32, cur string, anyCur bool) []hit {
	key := func(h hit) int {
		if c := cmp.Compare(h.amount, k); c != 0 || anyCur {
			return c
		}
		return cmp.Compare(h.cur, cur)
	}
	lo, _ := slices.BinarySearchFunc(sorted, 0, func(h hit, _ int) int {
		if key(h) < 0 {
			return -1
		}
		return 1
	})
	hi, _ := slices.BinarySearchFunc(sorted, 0, func(h hit, _ int) int {
		if key(h) <= 0 {
			return -1
		}
		return 1
	})
	return sorted[lo:hi]
}

// suggest returns the suggestions of row r, or nil.
func (ix *suggestIndex) suggest(e *engine, r int) []int {
	k := ix.amount.find(e.abs[r])
	due, cur := e.expected[r].DueDate, e.expected[r].Currency
	var lists [2][]hit
	switch {
	case cur == "" && due.IsZero():
		lists[0] = span(ix.hits, k, "", true)
	case cur == "":
		lists[0] = span(ix.order(&ix.byDate, byAmount(byDay)), k, "", true)
	default:
		sorted := ix.order(&ix.byCur, byCurrency(byLine))
		if !due.IsZero() {
			sorted = ix.order(&ix.byCurDate, byCurrency(byDay))
		}
		lists[0], lists[1] = span(sorted, k, currencyKey(cur), false), span(sorted, k, "", false)
	}
	var buf [2 * MaxSuggestions]int
	var picked []int
	if due.IsZero() {
		picked = firstLines(lists[:], buf[:0])
	} else {
		picked = closest(lists[:], dayNumber(due), buf[:0])
	}
	if len(picked) == 0 {
		return nil
	}
	out := e.alloc(len(picked))
	copy(out, picked)
	return out
}

// firstLines appends to dst the first MaxSuggestions lines of the lists, each in statement
// order, together in statement order.
func firstLines(lists [][]hit, dst []int) []int {
	for _, hs := range lists {
		for _, h := range hs[:min(len(hs), MaxSuggestions)] {
			dst = append(dst, int(h.line))
		}
	}
	slices.Sort(dst)
	return dst[:min(len(dst), MaxSuggestions)]
}

// suggestion is a candidate line and its distance in days from the due date.
type suggestion struct {
	dist int64
	line int32
}

// closest appends to dst the MaxSuggestions lines of the lists, each sorted by (day, line),
// closest in date to day, nearest first, ties to the earlier line: each list's best, merged.
func closest(lists [][]hit, day int32, dst []int) []int {
	var buf [2 * MaxSuggestions]suggestion
	cands := buf[:0]
	for _, hs := range lists {
		cands = nearest(hs, day, cands)
	}
	slices.SortFunc(cands, func(a, b suggestion) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		return cmp.Compare(a.line, b.line)
	})
	for _, c := range cands[:min(len(cands), MaxSuggestions)] {
		dst = append(dst, int(c.line))
	}
	return dst
}

// nearest appends to dst the MaxSuggestions hits of byDate, sorted by (day, line), nearest to
// day, in the order (distance, line). It walks out from day one distance at a time, the day
// before and the day after it together; the hits of one day are contiguous and in statement
// order, so each step is a binary search and at most MaxSuggestions hits, however many share
// a day.
func nearest(byDate []hit, day int32, dst []suggestion) []suggestion {
	// lower returns the index of the first hit dated d or later.
	lower := func(d int32) int {
		i, _ := slices.BinarySearchFunc(byDate, d, func(h hit, d int32) int { return cmp.Compare(h.day, d) })
		return i
	}
	lo := lower(day) // hits before lo are dated before day, hits from hi on day or later
	hi, want := lo, MaxSuggestions
	for want > 0 && (lo > 0 || hi < len(byDate)) {
		dist := int64(math.MaxInt64)
		if lo > 0 {
			dist = absDiff(byDate[lo-1].day, day)
		}
		if hi < len(byDate) {
			dist = min(dist, absDiff(byDate[hi].day, day))
		}
		var before, after []hit
		if lo > 0 && absDiff(byDate[lo-1].day, day) == dist {
			start := lower(byDate[lo-1].day)
			before, lo = byDate[start:min(lo, start+want)], start
		}
		if hi < len(byDate) && absDiff(byDate[hi].day, day) == dist {
			end := len(byDate)
			if d := byDate[hi].day; d != noDay {
				end = lower(d + 1)
			}
			after, hi = byDate[hi:min(end, hi+want)], end
		}
		// Both runs are in statement order: merge them, earliest line first.
		for want > 0 && (len(before) > 0 || len(after) > 0) {
			var h hit
			if len(after) == 0 || len(before) > 0 && before[0].line < after[0].line {
				h, before = before[0], before[1:]
			} else {
				h, after = after[0], after[1:]
			}
			dst = append(dst, suggestion{dist: dist, line: h.line})
			want--
		}
	}
	return dst
}

// noDay is the day number of a line without a date: later than any, so it is suggested last.
const noDay = math.MaxInt32

// dayNumber returns the number of days from 1 January of year 0 to d in the proleptic
// Gregorian calendar, or noDay for the zero Date. It builds no time.Time.
func dayNumber(d statement.Date) int32 {
	if d.IsZero() {
		return noDay
	}
	// Days before the year, then before the month (March-based, so leap days come last).
	y, m := d.Year(), int(d.Month())
	if m <= 2 {
		y--
		m += 12
	}
	return int32(365*y + y/4 - y/100 + y/400 + (153*(m-3)+2)/5 + d.Day() - 1)
}

func absDiff(a, b int32) int64 {
	if a > b {
		return int64(a) - int64(b)
	}
	return int64(b) - int64(a)
}
