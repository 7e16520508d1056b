package match

import (
	"math"
	"slices"
	"strconv"

	"github.com/shopspring/decimal"
)

// Reconcile matches expected rows against bank entries, following the published matching
// rules: references are found in bank texts by their tokens (rule 1), and each reference is
// decided in one of three passes (exact and combined payments, instalments, the rest). A bank
// line pays at most one reference, except a combined payment: one line that names several
// references, each named by no other line, and pays exactly the sum of their amounts. In pass
// 3, which decides nothing Matched, a line shown against one Partial reference stays a
// candidate of the other references it names, so that a line naming two references and paying
// neither makes both Partial rather than one Unmatched. The result has one Reference per
// expected row, in order, and lists the bank lines no reference used; an Unmatched reference
// lists those of them that pay exactly its amount as suggestions (suggest.go).
//
// One refinement covers expected files that list the same reference with the same amount more
// than once (a monthly fee, an invoice entered twice on purpose): in pass 1 each such row but
// the last takes only the first full payment, so two rows paid twice are both Matched; only the
// last of them reports further full payments as duplicate_payment.
//
// Reconcile takes time linear in the size of its input (for references of sensible length,
// see find.go), whatever the data: texts are scanned once for all references, and no bank
// line is examined again and again for one reference, even when thousands of lines have the
// same amount and reference or the expected file repeats a reference thousands of times.
func Reconcile(expected []Expected, bank []BankEntry) Result {
	e := newEngine(expected, bank)
	e.scan()
	e.pass1()
	e.combined()
	e.pass2()
	e.pass3()
	res := e.result()
	e.suggest(res.Unused)
	return res
}

// forceMultiIndex makes every group use a multiIndex, as groups of several rows do; tests set
// it to check the index against the simple walks of one-row groups.
var forceMultiIndex = false

// engine holds the state of one reconciliation.
type engine struct {
	expected []Expected
	bank     []BankEntry
	refs     []Reference
	decided  []bool
	abs      []decimal.Decimal // absolute expected amount of every row
	// finder holds the distinct normalised references; their index is the group.
	finder *finder
	group  []int32 // group of every row; -1 when its reference has no token
	// groupRows[g] counts the rows of group g: groups of one row, the usual case, are
	// decided by walking their candidate lines; groups of several use a multiIndex.
	groupRows []int32
	laterTwin []bool // a later row has the same group and amount (see Reconcile)

	// Candidates, in compressed sparse rows: bank lines of group g are
	// cands[candOff[g]:candOff[g+1]], ascending; groups found in line l are
	// lineGroups[lineOff[l]:lineOff[l+1]].
	cands      []int32
	candOff    []int32
	lineGroups []int32
	lineOff    []int32

	used []bool
	// shown marks the lines attributed to a Partial reference in pass 3: unlike used lines,
	// they stay candidates of the other references of pass 3 (see Reconcile).
	shown   []bool
	sharing bool          // pass 3: decide marks lines shown, not used
	multi   []*multiIndex // per group of several rows, built when pass 1 first needs it
	summing bool          // pass 2 or later: multiIndex counts and sums are kept up to date
	soleRow []int32       // the row of every group of one row, built by onlyRow
	scratch []int32
	arena   []int // backing store of the Entries and Suggestions slices, to avoid one allocation each
}

func newEngine(expected []Expected, bank []BankEntry) *engine {
	n := len(expected)
	e := &engine{
		expected: expected,
		bank:     bank,
		refs:     make([]Reference, n),
		decided:  make([]bool, n),
		abs:      make([]decimal.Decimal, n),
		group:    make([]int32, n),
		used:     make([]bool, len(bank)),
		shown:    make([]bool, len(bank)),
	}
	e.finder = newFinder(n)
	e.groupRows = make([]int32, 0, n)
	var buf []byte
	for r := range expected {
		e.abs[r] = expected[r].Amount.Abs()
		buf = normalize(buf[:0], expected[r].Reference)
		if len(buf) == 0 {
			e.group[r] = -1
			continue
		}
		g := e.finder.add(buf)
		if int(g) == len(e.groupRows) {
			e.groupRows = append(e.groupRows, 0)
		}
		e.group[r] = g
		e.groupRows[g]++
	}
	e.finder.seal()
	e.multi = make([]*multiIndex, len(e.groupRows))
	e.laterTwin = make([]bool, n)
	type twinKey struct {
		group  int32
		amount string
	}
	var last map[twinKey]int
	for r := n - 1; r >= 0; r-- {
		if g := e.group[r]; g >= 0 && e.groupRows[g] > 1 {
			if last == nil {
				last = make(map[twinKey]int)
			}
			k := twinKey{g, amountKey(e.abs[r])}
			_, e.laterTwin[r] = last[k]
			last[k] = r
		}
	}
	return e
}

// scan finds the references of every bank line (rule 1) and builds the candidate lists.
func (e *engine) scan() {
	f := e.finder
	e.lineOff = make([]int32, len(e.bank)+1)
	e.lineGroups = make([]int32, 0, len(e.bank))
	counts := make([]int32, f.groups()+1)
	for l := range e.bank {
		for _, g := range f.find(e.bank[l].Text) {
			e.lineGroups = append(e.lineGroups, g)
			counts[g+1]++
		}
		e.lineOff[l+1] = int32(len(e.lineGroups))
	}
	// Counting sort by group; lines are visited in order, so every list comes out ascending.
	for g := 1; g < len(counts); g++ {
		counts[g] += counts[g-1]
	}
	e.candOff = slices.Clone(counts)
	e.cands = make([]int32, len(e.lineGroups))
	for l := range e.bank {
		for _, g := range e.lineGroups[e.lineOff[l]:e.lineOff[l+1]] {
			e.cands[counts[g]] = int32(l)
			counts[g]++
		}
	}
}

func (e *engine) candidates(g int32) []int32 {
	return e.cands[e.candOff[g]:e.candOff[g+1]]
}

// pass1 decides the references paid by full payments: Matched by exactly one agreeing line
// with the expected amount, Partial duplicate_payment by several.
func (e *engine) pass1() {
	for r := range e.expected {
		g := e.group[r]
		if g < 0 {
			continue
		}
		if e.groupRows[g] > 1 || forceMultiIndex {
			e.pass1Multi(r, g)
			continue
		}
		want, cur := e.abs[r], e.expected[r].Currency
		found := e.scratch[:0]
		for _, l := range e.candidates(g) {
			b := &e.bank[l]
			if !e.used[l] && agree(cur, b.Currency) && absEqual(b.Amount, want) {
				found = append(found, l)
			}
		}
		e.scratch = found
		e.decideFull(r, found)
	}
}

// decideFull decides reference r from its full payments found in pass 1, if any.
func (e *engine) decideFull(r int, found []int32) {
	switch {
	case len(found) == 1:
		e.decide(r, RuleExact, found)
	case len(found) > 1:
		e.decide(r, RuleDuplicatePayment, found)
	}
}

// combined decides the combined payments: a line naming two or more references, each of one
// expected row still undecided and named by no other line, whose stated currencies agree with
// each other and with the line's, and whose non-zero expected amounts add up exactly to the
// line's amount. Each of them is Matched by that line. A line naming a reference that fails
// any of this is left to the other rules, as is every reference it names: when in doubt, no
// match. It runs after pass 1, so the references have only this line and instalments, which
// need two lines, never mix with a combined payment.
func (e *engine) combined() {
	for l := range e.bank {
		groups := e.lineGroups[e.lineOff[l]:e.lineOff[l+1]]
		if len(groups) < 2 || e.used[l] {
			continue
		}
		rows := e.scratch[:0]
		var sum adder
		cur := e.bank[l].Currency
		ok := true
		for _, g := range groups {
			r := e.onlyRow(g)
			if r < 0 || e.decided[r] || e.candOff[g+1]-e.candOff[g] != 1 || e.abs[r].Sign() == 0 {
				ok = false
				break
			}
			rc := e.expected[r].Currency
			if !agree(rc, cur) {
				ok = false
				break
			}
			if cur == "" {
				cur = rc // the rows' currencies must agree with each other too
			}
			rows = append(rows, int32(r))
			sum.addAbs(e.abs[r])
		}
		e.scratch = rows
		if !ok || !absEqual(e.bank[l].Amount, sum.sum()) {
			continue
		}
		slices.Sort(rows) // decided in the order of the expected file, as everywhere
		for _, r := range rows {
			e.decideCombined(int(r), int32(l))
		}
	}
}

// onlyRow returns the row of group g when the group has exactly one, else -1. Rows of a group
// of one are found once, when the first combined payment needs them.
func (e *engine) onlyRow(g int32) int {
	if e.groupRows[g] != 1 {
		return -1
	}
	if e.soleRow == nil {
		e.soleRow = make([]int32, len(e.groupRows))
		for r, g := range e.group {
			if g >= 0 {
				e.soleRow[g] = int32(r)
			}
		}
	}
	return int(e.soleRow[g])
}

// decideCombined records row r as Matched by its share of the combined payment on line l.
func (e *engine) decideCombined(r int, l int32) {
	line := [1]int32{l}
	e.decide(r, RuleCombinedPayment, line[:])
	e.refs[r].Paid = e.abs[r]
}

// pass2 decides the references paid in instalments: two or more agreeing lines that together
// pay exactly the expected amount.
func (e *engine) pass2() {
	e.summing = true
	for r := range e.expected {
		g := e.group[r]
		if g < 0 || e.decided[r] {
			continue
		}
		if e.groupRows[g] > 1 || forceMultiIndex {
			e.pass2Multi(r, g)
			continue
		}
		cur := e.expected[r].Currency
		found := e.scratch[:0]
		var sum adder
		for _, l := range e.candidates(g) {
			b := &e.bank[l]
			if !e.used[l] && agree(cur, b.Currency) {
				found = append(found, l)
				sum.addAbs(b.Amount)
			}
		}
		e.scratch = found
		if len(found) >= 2 && sum.sum().Cmp(e.abs[r]) == 0 {
			e.decide(r, RuleInstalments, found)
		}
	}
}

// pass3 decides the remaining references: Partial with all agreeing lines left
// (amount_mismatch), else with all lines left (currency_mismatch), else Unmatched. The lines
// it attributes stay candidates of the other references of pass 3, but not of later rows of
// the same reference: those find no line left, as in the other passes, which keeps the results
// linear in size when a file repeats a reference thousands of times.
func (e *engine) pass3() {
	e.sharing = true
	for r := range e.expected {
		g := e.group[r]
		if g < 0 || e.decided[r] {
			continue
		}
		if e.groupRows[g] > 1 || forceMultiIndex {
			e.pass3Multi(r, g)
			continue
		}
		cur := e.expected[r].Currency
		agreeing, remain := e.scratch[:0], false
		for _, l := range e.candidates(g) {
			if e.used[l] {
				continue
			}
			remain = true
			if agree(cur, e.bank[l].Currency) {
				agreeing = append(agreeing, l)
			}
		}
		switch {
		case len(agreeing) > 0:
			e.decide(r, RuleAmountMismatch, agreeing)
		case remain:
			for _, l := range e.candidates(g) {
				if !e.used[l] {
					agreeing = append(agreeing, l)
				}
			}
			e.decide(r, RuleCurrencyMismatch, agreeing)
		}
		e.scratch = agreeing
	}
}

// decide records the outcome of row r, decided by rule, with the bank lines lines
// (ascending), and marks them used (shown, in pass 3). exact, combined_payment and
// instalments match it; the other rules make it Partial with that reason.
func (e *engine) decide(r int, rule Rule, lines []int32) {
	o, reason := Matched, Reason("")
	if rule != RuleExact && rule != RuleCombinedPayment && rule != RuleInstalments {
		o, reason = Partial, Reason(rule)
	}
	entries := e.alloc(len(lines))
	var paid adder
	for i, l := range lines {
		entries[i] = int(l)
		if e.sharing {
			e.shown[l] = true
		} else {
			e.use(l)
		}
		paid.addAbs(e.bank[l].Amount)
	}
	e.decided[r] = true
	e.refs[r] = Reference{Expected: r, Outcome: o, Reason: reason, Rule: rule, Entries: entries, Paid: paid.sum()}
}

// alloc returns a slice of n ints from the arena: one allocation for thousands of the short
// slices of a result.
func (e *engine) alloc(n int) []int {
	if len(e.arena) < n {
		e.arena = make([]int, max(4096, n))
	}
	s := e.arena[:n:n]
	e.arena = e.arena[n:]
	return s
}

// use marks bank line l as used and, from pass 2 on, takes it out of the counts and sums of
// the multiIndexes it belongs to.
func (e *engine) use(l int32) {
	e.used[l] = true
	if !e.summing {
		return
	}
	for _, g := range e.lineGroups[e.lineOff[l]:e.lineOff[l+1]] {
		if ix := e.multi[g]; ix != nil && ix.summed {
			ix.unuse(&e.bank[l])
		}
	}
}

func (e *engine) result() Result {
	res := Result{References: e.refs}
	s := &res.Summary
	s.ExpectedCount = len(e.expected)
	var total, matched adder
	for r := range e.refs {
		ref := &e.refs[r]
		if !e.decided[r] {
			*ref = Reference{Expected: r, Outcome: Unmatched, Entries: []int{}, Paid: decimal.Zero}
		}
		switch ref.Outcome {
		case Matched:
			s.MatchedCount++
			matched.addAbs(e.abs[r])
		case Partial:
			s.PartialCount++
		default:
			s.UnmatchedCount++
		}
		total.addAbs(e.abs[r])
	}
	// As if added to decimal.Zero one by one: the same value and scale as the obvious loop.
	s.ExpectedTotal = decimal.Zero.Add(total.sum())
	s.MatchedTotal = decimal.Zero.Add(matched.sum())
	unused := 0
	for l, u := range e.used {
		if !u && !e.shown[l] {
			unused++
		}
	}
	res.Unused = make([]int, 0, unused)
	for l, u := range e.used {
		if !u && !e.shown[l] {
			res.Unused = append(res.Unused, l)
		}
	}
	s.UnmatchedBankEntriesCount = unused
	return res
}

// multiIndex organises the candidate lines of a group of several expected rows so that each
// row is decided without walking lines other rows of the group already examined: otherwise an
// expected file listing one reference thousands of times against a statement mentioning it
// thousands of times would take quadratic time. Lists are found through maps keyed by
// currency, so even a statement of thousands of currencies costs no scan of them per row.
type multiIndex struct {
	// buckets hold the candidates by amount and currency, for pass 1: bucket[bucketKey]
	// indexes them, and byAmount lists the buckets of each amountKey, of every currency, for
	// rows that name no currency.
	buckets  []lineList
	bucket   map[bucketKey]int32
	byAmount map[string][]int32
	// byCur holds the candidates by currency, for passes 2 and 3, indexed by cur.
	byCur []lineList
	cur   map[string]int32
	// When summed, count and sum of every list of byCur, and all their totals, are those of
	// the unused lines.
	summed bool
	count  int
	sum    decimal.Decimal
}

type bucketKey struct{ amount, currency string }

// lineList is a list of bank lines of one currency (one amount too, in buckets), ascending.
// Lines never become unused again, so head only moves forward past used lines, and a list
// whose lines a row takes is emptied for good: every line is stepped over a bounded number of
// times.
type lineList struct {
	lines []int32
	head  int
	count int             // unused lines (when summed)
	sum   decimal.Decimal // their absolute amounts (when summed)
}

// first returns the first unused line of the list, or -1.
func (ll *lineList) first(used []bool) int32 {
	for ll.head < len(ll.lines) && used[ll.lines[ll.head]] {
		ll.head++
	}
	if ll.head == len(ll.lines) {
		return -1
	}
	return ll.lines[ll.head]
}

// take appends the unused lines of the list to dst and empties the list.
func (ll *lineList) take(dst []int32, used []bool) []int32 {
	for _, l := range ll.lines[ll.head:] {
		if !used[l] {
			dst = append(dst, l)
		}
	}
	ll.head = len(ll.lines)
	return dst
}

// currencyKey is the currency as the index keys it: upper-cased, as sameCurrency compares.
func currencyKey(c string) string {
	for i := 0; i < len(c); i++ {
		if 'a' <= c[i] && c[i] <= 'z' {
			b := []byte(c)
			for j := i; j < len(b); j++ {
				if 'a' <= b[j] && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return c
}

func (e *engine) index(g int32) *multiIndex {
	if ix := e.multi[g]; ix != nil {
		return ix
	}
	ix := &multiIndex{
		bucket: make(map[bucketKey]int32), byAmount: make(map[string][]int32), cur: make(map[string]int32),
	}
	for _, l := range e.candidates(g) {
		b := &e.bank[l]
		cur := currencyKey(b.Currency)
		c, ok := ix.cur[cur]
		if !ok {
			c = int32(len(ix.byCur))
			ix.cur[cur] = c
			ix.byCur = append(ix.byCur, lineList{})
		}
		ix.byCur[c].lines = append(ix.byCur[c].lines, l)
		key := bucketKey{amountKey(b.Amount), cur}
		k, ok := ix.bucket[key]
		if !ok {
			k = int32(len(ix.buckets))
			ix.bucket[key] = k
			ix.buckets = append(ix.buckets, lineList{})
			ix.byAmount[key.amount] = append(ix.byAmount[key.amount], k)
		}
		ix.buckets[k].lines = append(ix.buckets[k].lines, l)
	}
	e.multi[g] = ix
	return ix
}

// agreeingBuckets returns the pass-1 buckets of amount agreeing with currency cur.
func (ix *multiIndex) agreeingBuckets(dst []int32, amount, cur string) []int32 {
	if cur == "" {
		return append(dst, ix.byAmount[amount]...)
	}
	cur = currencyKey(cur)
	for _, c := range []string{cur, ""} {
		if k, ok := ix.bucket[bucketKey{amount, c}]; ok {
			dst = append(dst, k)
		}
	}
	return dst
}

// agreeingLists returns the lists of byCur agreeing with currency cur, or nil for all of them
// (when cur is empty).
func (ix *multiIndex) agreeingLists(dst []int32, cur string) []int32 {
	if cur == "" {
		return nil
	}
	cur = currencyKey(cur)
	for _, c := range []string{cur, ""} {
		if i, ok := ix.cur[c]; ok {
			dst = append(dst, i)
		}
	}
	return dst
}

func (e *engine) pass1Multi(r int, g int32) {
	ix := e.index(g)
	var buf [2]int32
	bks := ix.agreeingBuckets(buf[:0], amountKey(e.abs[r]), e.expected[r].Currency)
	if e.laterTwin[r] {
		// Another row of the same reference and amount follows: take one full payment only.
		best := int32(-1)
		for _, k := range bks {
			if l := ix.buckets[k].first(e.used); l >= 0 && (best < 0 || l < best) {
				best = l
			}
		}
		if best >= 0 {
			e.scratch = append(e.scratch[:0], best)
			e.decide(r, RuleExact, e.scratch)
		}
		return
	}
	found := e.scratch[:0]
	for _, k := range bks {
		found = ix.buckets[k].take(found, e.used)
	}
	slices.Sort(found)
	e.scratch = found
	e.decideFull(r, found)
}

// sums makes the counts and sums valid; from then on, use keeps them so.
func (ix *multiIndex) sums(used []bool, bank []BankEntry) {
	if ix.summed {
		return
	}
	var total adder
	for c := range ix.byCur {
		ll := &ix.byCur[c]
		var sum adder
		for _, l := range ll.lines[ll.head:] {
			if !used[l] {
				ll.count++
				sum.addAbs(bank[l].Amount)
				total.addAbs(bank[l].Amount)
			}
		}
		ix.count += ll.count
		ll.sum = sum.sum()
	}
	ix.sum = total.sum()
	ix.summed = true
}

// unuse takes bank line b, just used, out of the counts and sums.
func (ix *multiIndex) unuse(b *BankEntry) {
	ll := &ix.byCur[ix.cur[currencyKey(b.Currency)]]
	a := b.Amount.Abs()
	ll.count--
	ll.sum = ll.sum.Sub(a)
	ix.count--
	ix.sum = ix.sum.Sub(a)
}

// remaining returns how many unused lines agree with currency cur and their sum.
func (ix *multiIndex) remaining(cur string) (int, decimal.Decimal) {
	var buf [2]int32
	lists := ix.agreeingLists(buf[:0], cur)
	if lists == nil {
		return ix.count, ix.sum
	}
	count, sum := 0, decimal.Zero
	for i, c := range lists {
		ll := &ix.byCur[c]
		count += ll.count
		if i == 0 {
			sum = ll.sum
		} else {
			sum = sum.Add(ll.sum)
		}
	}
	return count, sum
}

// take appends to dst the unused lines agreeing with currency cur, or all of them when all
// is set, in statement order.
func (ix *multiIndex) take(dst []int32, used []bool, cur string, all bool) []int32 {
	var buf [2]int32
	if lists := ix.agreeingLists(buf[:0], cur); lists != nil && !all {
		for _, c := range lists {
			dst = ix.byCur[c].take(dst, used)
		}
	} else {
		for c := range ix.byCur {
			dst = ix.byCur[c].take(dst, used)
		}
	}
	slices.Sort(dst)
	return dst
}

func (e *engine) pass2Multi(r int, g int32) {
	ix, cur := e.index(g), e.expected[r].Currency
	ix.sums(e.used, e.bank)
	if count, sum := ix.remaining(cur); count < 2 || sum.Cmp(e.abs[r]) != 0 {
		return
	}
	e.scratch = ix.take(e.scratch[:0], e.used, cur, false)
	e.decide(r, RuleInstalments, e.scratch)
}

// pass3Multi decides row r of group g in pass 3. Lines are not used in pass 3, so take leaves
// the counts as they were; forget then takes what the row took out of them, so that later
// rows of the group find only what is left (lines of other currencies, say).
func (e *engine) pass3Multi(r int, g int32) {
	ix, cur := e.index(g), e.expected[r].Currency
	ix.sums(e.used, e.bank)
	if ix.count == 0 {
		return
	}
	rule := RuleAmountMismatch
	if agreeing, _ := ix.remaining(cur); agreeing == 0 {
		rule = RuleCurrencyMismatch
	}
	all := rule == RuleCurrencyMismatch
	e.scratch = ix.take(e.scratch[:0], e.used, cur, all)
	e.decide(r, rule, e.scratch)
	ix.forget(cur, all)
}

// forget clears the counts and sums of the lists take(cur, all) empties.
func (ix *multiIndex) forget(cur string, all bool) {
	var buf [2]int32
	lists := ix.agreeingLists(buf[:0], cur)
	if lists == nil || all {
		lists = lists[:0]
		for c := range ix.byCur {
			lists = append(lists, int32(c))
		}
	}
	for _, c := range lists {
		ll := &ix.byCur[c]
		ix.count -= ll.count
		ix.sum = ix.sum.Sub(ll.sum)
		ll.count, ll.sum = 0, decimal.Zero
	}
}

// adder sums absolute amounts without an allocation per term: terms of the scale of the first
// term whose coefficients have at most 18 digits (in practice every amount of a file, all with
// two decimals) are added as int64, and the rest with decimal.Add. The sum has the value and
// the scale (the smallest of the terms') that adding the terms one by one with decimal.Add
// gives; the zero value is an empty sum.
type adder struct {
	// first is the first term, returned as is when it is the only one (a single payment),
	// which spares building a new decimal.
	first  decimal.Decimal
	terms  int
	exp    int32
	small  int64 // sum of the small terms' coefficients, at exp
	smalls bool  // some term was added to small
	rest   decimal.Decimal
	rests  bool // some term was added to rest
}

// addAbs adds |d|.
func (a *adder) addAbs(d decimal.Decimal) {
	if a.terms++; a.terms == 1 {
		a.first = d
	}
	if d.NumDigits() <= 18 {
		if !a.smalls {
			a.exp = d.Exponent()
		}
		if d.Exponent() == a.exp {
			c := d.CoefficientInt64()
			if c < 0 {
				c = -c
			}
			// Coefficients are below 10^18, so only some nine of the largest could overflow
			// the sum; past that, decimal.Add takes over.
			if a.small <= math.MaxInt64-c {
				a.small += c
				a.smalls = true
				return
			}
		}
	}
	if !a.rests {
		a.rest, a.rests = d.Abs(), true
		return
	}
	a.rest = a.rest.Add(d.Abs())
}

// sum returns the sum, decimal.Zero when empty.
func (a *adder) sum() decimal.Decimal {
	switch {
	case a.terms == 1:
		return a.first.Abs()
	case a.smalls && a.rests:
		return decimal.New(a.small, a.exp).Add(a.rest)
	case a.smalls:
		return decimal.New(a.small, a.exp)
	case a.rests:
		return a.rest
	}
	return decimal.Zero
}

// agree reports whether an expected row's currency and a bank line's agree: both the same, or
// either unnamed.
func agree(expected, bank string) bool {
	return expected == "" || bank == "" || sameCurrency(expected, bank)
}

// sameCurrency compares currency codes ignoring ASCII case: ISO 4217 codes are upper-case, but
// a reader passing "eur" through should not turn a payment into a currency mismatch.
func sameCurrency(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if x, y := a[i], b[i]; x != y && (x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z') {
			return false
		}
	}
	return true
}

// absEqual reports whether |x| equals abs (which is not negative), exactly and whatever the
// scales (1250.5 equals 1250.50). It allocates only for negative x.
func absEqual(x, abs decimal.Decimal) bool {
	if x.Sign() < 0 {
		x = x.Neg()
	}
	return x.Cmp(abs) == 0
}

// amountKey returns a string that is the same for two amounts exactly when their absolute
// values are equal: the coefficient without trailing zeros and the exponent. It does not use
// Decimal.String, whose output depends on package-level settings of the decimal package.
func amountKey(d decimal.Decimal) string {
	c := d.Coefficient()
	if c.Sign() == 0 {
		return "0"
	}
	digits := c.Abs(c).String()
	exp := int64(d.Exponent())
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	return digits + "e" + strconv.FormatInt(exp, 10)
}
