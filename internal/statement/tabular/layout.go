package tabular

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// layout is what each column of the table holds.
type layout struct {
	// header is the header row's index, or -1.
	header int
	// dataStart is the first row that may hold a transaction.
	dataStart int
	ncols     int
	names     []string
	roles     []role
	// Single-column roles, -1 when absent. date is the column read as Transaction.Date,
	// valueDate as ValueDate.
	date, valueDate, amount, debit, credit, flag, currency, balance, ownAccount, typ int
	// Multi-column roles: desc joined, desc2 when desc is empty, payee and cpAccount the first
	// filled, refs in priority order.
	desc, desc2, payee, cpAccount, refs []int
	// colCurrency is a currency named in a column's header ("Withdrawals (SGD)").
	colCurrency []string
	lang        string
	sig         *signature
	// headerless layouts: a constant account column's value, and the inference of a debit
	// column whose credit side is empty throughout.
	constAccount string
	debitOnly    bool
	layoutName   string
	bankName     string
}

func newLayout(ncols int) layout {
	return layout{header: -1, ncols: ncols, roles: make([]role, ncols), colCurrency: make([]string, ncols),
		date: -1, valueDate: -1, amount: -1, debit: -1, credit: -1, flag: -1, currency: -1, balance: -1,
		ownAccount: -1, typ: -1}
}

// hasMoney reports whether the layout can read an amount.
func (l *layout) hasMoney() bool { return l.amount >= 0 || l.debit >= 0 || l.credit >= 0 }

// colStats is what a column holds in the sample.
type colStats struct {
	nonEmpty    int
	dates       int
	numbers     int
	moneyLike   int
	negatives   int
	zeros       int
	flags       int
	currencies  int
	texty       int
	textRunes   int
	accountLike int
	// accountish counts cells that could be an account number of any bank's style.
	accountish int
	first      string
	constant   bool
}

// looksLikeAccount reports an IBAN or an account number: at least six digits among the
// separators banks write account numbers with.
func looksLikeAccount(s string) bool {
	if len(s) < 6 || len(s) > 42 {
		return false
	}
	if looksLikeIBAN(s) {
		return true
	}
	nd := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			nd++
		case c == '-' || c == '/' || c == ' ':
		default:
			return false
		}
	}
	return nd >= 6
}

// accountish reports an account number in any bank's style: an IBAN, digits with separators,
// or digits with a few letters ("UA00000001", "SE4550000000058398257466").
func accountish(s string) bool {
	if looksLikeAccount(s) {
		return true
	}
	if len(s) < 6 || len(s) > 42 {
		return false
	}
	nd, nl := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			nd++
		case isUpper(c):
			nl++
		case c == '-' || c == '/' || c == ' ' || c == '.':
		default:
			return false
		}
	}
	return nd >= 6 && nl <= 4
}

// looksLikeIBAN checks the shape of an IBAN (two letters, two check digits, 10 to 30 letters
// and digits, spaces allowed between groups), not its checksum: test files mask them.
func looksLikeIBAN(s string) bool {
	if len(s) < 14 || len(s) > 42 || !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	n := 0
	for i := 4; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c) || isUpper(c):
			n++
		case c == ' ':
		default:
			return false
		}
	}
	return n >= 10 && n <= 30
}

// isZeroCore reports an amount whose digits are all zero.
func isZeroCore(core string) bool {
	for i := 0; i < len(core); i++ {
		if c := core[i]; isDigit(c) && c != '0' {
			return false
		}
	}
	return true
}

// hasCents reports one or two digits after the last separator: the mark of a money amount.
func hasCents(core string) bool {
	i := strings.LastIndexAny(core, ".,")
	if i < 0 {
		return false
	}
	k := len(core) - i - 1
	return k == 1 || k == 2
}

// computeStats summarises the columns over rows.
func computeStats(rows []Row, ncols int) []colStats {
	stats := make([]colStats, ncols)
	for i := range stats {
		stats[i].constant = true
	}
	for ri := range rows {
		r := &rows[ri]
		for col := 0; col < len(r.Cells) && col < ncols; col++ {
			c := cellText(r.Cells[col])
			if isEmptyValue(c) {
				continue
			}
			s := &stats[col]
			s.nonEmpty++
			if accountish(c) {
				s.accountish++
			}
			if s.first == "" {
				s.first = c
			} else if c != s.first {
				s.constant = false
			}
			if rd, ok := scanDate(c); ok && rd.plausible() {
				s.dates++
				continue
			}
			if n, ok := scanNumber(c); ok {
				s.numbers++
				if n.neg {
					s.negatives++
				}
				if isZeroCore(n.core) {
					s.zeros++
				}
				if n.signed || n.currency != "" || hasCents(n.core) {
					s.moneyLike++
				}
				if !n.signed && n.currency == "" && !strings.ContainsAny(n.core, ".,") && looksLikeAccount(c) &&
					(len(n.core) >= 9 || n.core[0] == '0') {
					s.accountLike++
				}
				continue
			}
			if flagSign(c) != 0 {
				s.flags++
			}
			if currencyOf(c) != "" {
				s.currencies++
			}
			if looksLikeAccount(c) {
				s.accountLike++
				continue
			}
			if share, n := letterShare(c); share >= 0.25 {
				s.texty++
				s.textRunes += n
			}
		}
	}
	return stats
}

// fits reports whether a column's content suits a role its header names; a name that says it
// plainly (score 100) needs less of the content to agree than one that only suggests it.
func fits(r role, score int, s colStats) bool {
	if s.nonEmpty == 0 {
		return true
	}
	switch r {
	case roleDate, roleTxDate, roleValueDate:
		return s.dates*2 >= s.nonEmpty
	case roleAmount, roleDebit, roleCredit, roleBalance:
		return s.numbers*2 >= s.nonEmpty
	case roleFlag:
		if score >= 100 {
			return s.flags*2 >= s.nonEmpty
		}
		return s.flags*10 >= s.nonEmpty*8
	case roleCurrency:
		return s.currencies*2 >= s.nonEmpty
	case roleDesc, rolePayee, roleType:
		return s.dates*2 < s.nonEmpty
	}
	return true
}

// findHeader returns the index of the header row among the leading rows, or -1: the first row
// whose cells are mostly column names, among them a date or an amount.
func findHeader(rows []Row) int {
	best, bestScore := -1, 0
	for i := 0; i < len(rows) && i < headerSearch; i++ {
		matched, numeric, nonEmpty := 0, 0, 0
		hasDate, hasMoney := false, false
		for col, raw := range rows[i].Cells {
			if col >= maxColumns {
				break
			}
			c := cellText(raw)
			if c == "" {
				continue
			}
			nonEmpty++
			if _, ok := scanNumber(c); ok {
				numeric++
				continue
			}
			if _, ok := scanDate(c); ok {
				numeric++
				continue
			}
			if len(c) > 80 {
				continue
			}
			h := matchHeader(c)
			if len(h.matches) == 0 || h.matches[0].score < 60 {
				continue
			}
			matched++
			for _, m := range h.matches {
				switch m.role {
				case roleDate, roleTxDate, roleValueDate:
					hasDate = true
				case roleAmount, roleDebit, roleCredit:
					hasMoney = true
				}
			}
		}
		if matched < 2 || numeric*2 > nonEmpty || (!hasDate && !hasMoney) {
			continue
		}
		score := matched*2 - numeric*3
		if hasDate && hasMoney {
			score += 4
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// detectLayout finds the header and the columns' roles; without a header, it infers them.
func (x *extractor) detectLayout() (layout, bool) {
	rows := x.sample
	ncols := 0
	for i := range rows {
		ncols = max(ncols, len(rows[i].Cells))
	}
	ncols = min(ncols, maxColumns)
	if h := findHeader(rows); h >= 0 {
		if merged, ok := subHeader(rows, h); ok {
			// A header of two rows: the layout is found under the names the two make together,
			// from the rows after the second.
			two := make([]Row, 0, len(rows)-1)
			two = append(two, rows[:h]...)
			two = append(two, Row{Cells: merged, Pos: rows[h].Pos, Raw: rows[h].Raw})
			two = append(two, rows[h+2:]...)
			lay := headerLayout(two, h, ncols)
			if lay.date >= 0 && lay.hasMoney() {
				rows[h].Cells = merged
				lay.dataStart = h + 2
				return lay, true
			}
		}
		lay := headerLayout(rows, h, ncols)
		if lay.date >= 0 && lay.hasMoney() {
			return lay, true
		}
	}
	return inferLayout(rows, ncols)
}

// subHeader reads the row under header row h as the header's second row, when it holds only
// names, at least one of them a column name, and no value: sub-labels under a group label
// ("Amount" over "Debit | Credit", "Money" over "out | in"). It returns the names the two rows
// make together: a sub-label that names a role alone stands for its column, else the two are
// joined ("Rente" "datum").
func subHeader(rows []Row, h int) ([]string, bool) {
	if h+1 >= len(rows) {
		return nil, false
	}
	head, sub := rows[h].Cells, rows[h+1].Cells
	names := 0
	for _, raw := range sub {
		c := cellText(raw)
		if c == "" {
			continue
		}
		if _, ok := scanNumber(c); ok {
			return nil, false
		}
		if _, ok := scanDate(c); ok {
			return nil, false
		}
		if HeaderRole(c) != "" {
			names++
		} else if len(c) > 40 {
			return nil, false
		}
	}
	if names == 0 {
		return nil, false
	}
	n := max(len(head), len(sub))
	merged := make([]string, n)
	for col := 0; col < n; col++ {
		top, below := cellText(cell(head, col)), cellText(cell(sub, col))
		switch {
		case below == "":
			merged[col] = top
		case top == "" || HeaderRole(below) != "":
			merged[col] = below
		default:
			merged[col] = top + " " + below
		}
	}
	return merged, true
}

// headerLayout maps the header's names to roles, checking each against the column's content,
// and fills in a date or amount column the names missed from content.
func headerLayout(rows []Row, h, ncols int) layout {
	lay := newLayout(ncols)
	lay.header, lay.dataStart = h, h+1
	header := rows[h].Cells
	lay.names = make([]string, ncols)
	copy(lay.names, header)
	stats := computeStats(rows[h+1:], ncols)

	type cand struct {
		col int
		m   headerMatch
	}
	var cands []cand
	langs := map[string]int{}
	folded := make([]string, len(header))
	for col, name := range header {
		folded[col] = fold(name)
		if col >= ncols {
			continue
		}
		info := matchHeader(name)
		lay.colCurrency[col] = info.currency
		for _, m := range info.matches {
			cands = append(cands, cand{col, m})
		}
		if len(info.matches) > 0 && info.matches[0].role != roleIgnore {
			langs[info.matches[0].lang]++
		}
	}
	lay.sig = matchSignature(folded)
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].m.score != cands[j].m.score {
			return cands[i].m.score > cands[j].m.score
		}
		return cands[i].col < cands[j].col
	})
	bestScore := map[role]int{}
	// rejected keeps, per role, the best-named column whose content did not fit: when no
	// column is left for the date or the amount, the header's word stands, and the rows that
	// do not read become problems.
	rejected := map[role]*cand{}
	var accounts []int
	var refScores = map[int]int{}
	for _, c := range cands {
		if lay.roles[c.col] != roleNone {
			continue
		}
		if !fits(c.m.role, c.m.score, stats[c.col]) {
			if rejected[c.m.role] == nil {
				cc := c
				rejected[c.m.role] = &cc
			}
			continue
		}
		r := c.m.role
		switch r {
		case roleDesc:
			if b, ok := bestScore[r]; ok && c.m.score < b-20 {
				lay.desc2 = append(lay.desc2, c.col)
				lay.roles[c.col] = r
				continue
			}
			lay.desc = append(lay.desc, c.col)
		case rolePayee, roleCPAccount:
			if b, ok := bestScore[r]; ok && c.m.score < b-20 {
				continue
			}
			if r == rolePayee {
				lay.payee = append(lay.payee, c.col)
			} else {
				lay.cpAccount = append(lay.cpAccount, c.col)
			}
		case roleRef:
			lay.refs = append(lay.refs, c.col)
			refScores[c.col] = c.m.score
		case roleAccount:
			accounts = append(accounts, c.col)
		case roleIgnore:
		default:
			if _, taken := bestScore[r]; taken {
				continue
			}
		}
		if _, ok := bestScore[r]; !ok {
			bestScore[r] = c.m.score
		}
		lay.roles[c.col] = r
		switch r {
		case roleDate:
			lay.date = c.col
		case roleValueDate:
			lay.valueDate = c.col
		case roleAmount:
			lay.amount = c.col
		case roleDebit:
			lay.debit = c.col
		case roleCredit:
			lay.credit = c.col
		case roleFlag:
			lay.flag = c.col
		case roleCurrency:
			lay.currency = c.col
		case roleBalance:
			lay.balance = c.col
		case roleOwnAccount:
			lay.ownAccount = c.col
		case roleType:
			lay.typ = c.col
		}
	}
	// The transaction date is the date when no booking date is named, else the value date
	// when none is named.
	tx := -1
	for col, r := range lay.roles {
		if r == roleTxDate {
			tx = col
			break
		}
	}
	if tx >= 0 {
		if lay.date < 0 {
			lay.date = tx
		} else if lay.valueDate < 0 {
			lay.valueDate = tx
		}
	}
	if col := lay.ownAccount; col >= 0 && stats[col].nonEmpty > 0 && stats[col].accountish*2 < stats[col].nonEmpty {
		lay.ownAccount, lay.roles[col] = -1, roleNone
	}
	// Sort multi-column roles: descriptions left to right, references by priority.
	sort.Ints(lay.desc)
	sort.Ints(lay.desc2)
	sort.SliceStable(lay.refs, func(i, j int) bool {
		if refScores[lay.refs[i]] != refScores[lay.refs[j]] {
			return refScores[lay.refs[i]] > refScores[lay.refs[j]]
		}
		return lay.refs[i] < lay.refs[j]
	})
	// Account columns: ours when named so, or when constant, or when the counterparty's has a
	// column of its own; else the counterparty's.
	for _, col := range accounts {
		if st := stats[col]; st.nonEmpty > 0 && st.accountish*2 < st.nonEmpty {
			lay.roles[col] = roleNone // placeholder text, not account numbers
			continue
		}
		switch {
		case lay.ownAccount < 0 && (stats[col].constant || len(lay.cpAccount) > 0):
			lay.ownAccount = col
			lay.roles[col] = roleOwnAccount
		default:
			lay.cpAccount = append(lay.cpAccount, col)
			lay.roles[col] = roleCPAccount
		}
	}
	// A debit/credit pair and a signed amount: the signed amount is read, the pair is a
	// fallback only when it is empty.
	if lay.date < 0 {
		lay.date = inferDateColumn(stats, lay.roles, len(rows)-h-1)
	}
	if !lay.hasMoney() {
		inferMoney(&lay, rows[h+1:], stats, nil)
	}
	if lay.date < 0 {
		for _, r := range []role{roleDate, roleTxDate} {
			if c := rejected[r]; c != nil && lay.roles[c.col] == roleNone {
				lay.date, lay.roles[c.col] = c.col, r
				break
			}
		}
	}
	if !lay.hasMoney() {
		if c := rejected[roleAmount]; c != nil && lay.roles[c.col] == roleNone {
			lay.amount, lay.roles[c.col] = c.col, roleAmount
		}
	}
	// The header's language is the one most of its recognised names are in.
	bestLang, bestN := "", 0
	for l, n := range langs {
		if n > bestN || n == bestN && l < bestLang {
			bestLang, bestN = l, n
		}
	}
	lay.lang = bestLang
	if lay.sig != nil {
		lay.layoutName, lay.bankName = lay.sig.layout, lay.sig.bank
	}
	return lay
}

// inferDateColumn returns the unassigned column most filled with dates, or -1.
func inferDateColumn(stats []colStats, roles []role, nrows int) int {
	best, bestN := -1, 0
	for col, s := range stats {
		if roles[col] != roleNone {
			continue
		}
		if s.dates > bestN && s.dates*10 >= nrows*6 {
			best, bestN = col, s.dates
		}
	}
	return best
}

// inferLayout gives roles to the columns of a table without a header, from their content: the
// date columns, the amounts (one signed column, or a debit/credit pair whose cells never both
// hold money), a running balance (only when it runs), a debit/credit mark, a currency, an
// account number repeated on every row, and the text columns as the description.
func inferLayout(rows []Row, ncols int) (layout, bool) {
	lay := newLayout(ncols)
	if ncols == 0 {
		return lay, false
	}
	all := computeStats(rows, ncols)
	nonBlank := 0
	for i := range rows {
		if !isBlank(rows[i].Cells) {
			nonBlank++
		}
	}
	// The booking date is the leftmost column that is (nearly) all dates.
	bestDates := 0
	for _, s := range all {
		bestDates = max(bestDates, s.dates)
	}
	if bestDates == 0 || bestDates*10 < nonBlank*5 {
		return lay, false
	}
	for col, s := range all {
		if s.dates*10 >= bestDates*9 {
			lay.date = col
			break
		}
	}
	// The data rows are those with a date there; the rows before the first are a preamble.
	var data []Row
	for i := range rows {
		c := cellText(cell(rows[i].Cells, lay.date))
		if rd, ok := scanDate(c); ok && rd.plausible() {
			if len(data) == 0 {
				lay.dataStart = i
			}
			data = append(data, rows[i])
		}
	}
	stats := computeStats(data, ncols)
	nd := len(data)
	lay.roles[lay.date] = roleDate
	for col, s := range stats {
		if col != lay.date && s.dates > 0 && s.dates*10 >= nd*9 && lay.valueDate < 0 {
			lay.valueDate = col
			lay.roles[col] = roleValueDate
		}
	}
	for col, s := range stats {
		if lay.roles[col] != roleNone || s.nonEmpty == 0 {
			continue
		}
		switch {
		case nd >= 2 && s.constant && s.nonEmpty == nd && (s.accountLike == nd || looksLikeIBAN(s.first)) && lay.ownAccount < 0:
			lay.ownAccount = col
			lay.roles[col] = roleOwnAccount
			lay.constAccount = s.first
		case s.flags*10 >= s.nonEmpty*9 && s.nonEmpty*2 >= nd && lay.flag < 0:
			lay.flag = col
			lay.roles[col] = roleFlag
		case s.currencies*10 >= s.nonEmpty*9 && lay.currency < 0:
			lay.currency = col
			lay.roles[col] = roleCurrency
		}
	}
	inferMoney(&lay, data, stats, nil)
	if !lay.hasMoney() {
		return lay, false
	}
	// Text columns: the one with the longest text, and with it those of comparable length
	// that are filled on enough rows.
	primary, primaryAvg := -1, 0.0
	avg := make([]float64, ncols)
	for col, s := range stats {
		if lay.roles[col] != roleNone || s.texty == 0 || s.texty*10 < s.nonEmpty*6 {
			continue
		}
		avg[col] = float64(s.textRunes) / float64(s.texty)
		if s.texty*2 >= nd && avg[col] > primaryAvg {
			primary, primaryAvg = col, avg[col]
		}
	}
	if primary >= 0 {
		for col, s := range stats {
			if lay.roles[col] != roleNone || avg[col] == 0 {
				continue
			}
			if col == primary || (s.texty*5 >= nd && avg[col] >= primaryAvg*0.4 && !(nd >= 3 && s.constant)) {
				lay.desc = append(lay.desc, col)
				lay.roles[col] = roleDesc
			}
		}
	}
	abnAmroSignature(&lay, stats, nd)
	return lay, true
}

// inferMoney finds the amount columns among the unassigned ones.
func inferMoney(lay *layout, data []Row, stats []colStats, _ []int) {
	var cands []int
	for col, s := range stats {
		if lay.roles[col] != roleNone || s.nonEmpty == 0 || s.dates*2 >= s.nonEmpty {
			continue
		}
		// Zeros are placeholders in debit/credit pairs ("100.00" and "0"); the rest must look
		// like money.
		if s.numbers*10 >= s.nonEmpty*9 && s.nonEmpty > s.zeros && s.moneyLike*2 >= s.nonEmpty-s.zeros && s.accountLike*2 < s.nonEmpty {
			cands = append(cands, col)
		}
	}
	if len(cands) == 0 {
		// Whole amounts: a numeric column with signs.
		for col, s := range stats {
			if lay.roles[col] == roleNone && s.nonEmpty > 0 && s.numbers == s.nonEmpty && s.negatives > 0 &&
				s.dates*2 < s.nonEmpty && s.accountLike*2 < s.nonEmpty {
				cands = append(cands, col)
				break
			}
		}
	}
	if len(cands) == 0 {
		return
	}
	mark := provisionalMark(data, cands)
	vals := make([][]*decimal.Decimal, len(cands))
	for k, col := range cands {
		vals[k] = make([]*decimal.Decimal, len(data))
		for i := range data {
			n, ok := scanNumber(cellText(cell(data[i].Cells, col)))
			if !ok {
				continue
			}
			if v, ok := n.value(mark); ok {
				vals[k][i] = &v
			}
		}
	}
	nonzero := func(v *decimal.Decimal) bool { return v != nil && !v.IsZero() }
	used := make([]bool, len(cands))
	// A debit/credit pair: two columns that never both hold money on one row.
	pairFound := false
	for a := 0; a < len(cands) && !pairFound; a++ {
		for b := a + 1; b < len(cands) && !pairFound; b++ {
			exclusive, na, nb := true, 0, 0
			for i := range data {
				va, vb := nonzero(vals[a][i]), nonzero(vals[b][i])
				if va && vb {
					exclusive = false
					break
				}
				if va {
					na++
				}
				if vb {
					nb++
				}
			}
			if !exclusive || na == 0 || nb == 0 {
				continue
			}
			da, db := cands[a], cands[b]
			// Debits come first, unless the signs say otherwise (-$76.00 and +$327.49).
			if stats[da].negatives == 0 && stats[db].negatives > 0 {
				da, db = db, da
			}
			lay.debit, lay.credit = da, db
			lay.roles[da], lay.roles[db] = roleDebit, roleCredit
			used[a], used[b] = true, true
			pairFound = true
		}
	}
	if !pairFound {
		// One signed column, preferring one with both signs.
		pick := -1
		for k, col := range cands {
			if stats[col].negatives > 0 && stats[col].negatives < stats[col].nonEmpty {
				pick = k
				break
			}
		}
		if pick < 0 {
			for k, col := range cands {
				if stats[col].negatives > 0 {
					pick = k
					break
				}
			}
		}
		if pick < 0 {
			pick = 0
		}
		col := cands[pick]
		lay.amount = col
		lay.roles[col] = roleAmount
		used[pick] = true
		// An unsigned column beside one that is empty on every row is one side of a
		// debit/credit pair whose other side this file never uses: banks list debits (card
		// purchases) far more than credits, so it is read as debits.
		if stats[col].negatives == 0 && lay.flag < 0 {
			for _, nb := range []int{col - 1, col + 1} {
				if nb >= 0 && nb < len(stats) && lay.roles[nb] == roleNone && stats[nb].nonEmpty == 0 && presentInRows(data, nb) {
					lay.debitOnly = true
					break
				}
			}
		}
	}
	// A running balance among the rest: kept only when it runs.
	amounts := make([]*decimal.Decimal, len(data))
	for i := range data {
		var sum *decimal.Decimal
		for k, col := range cands {
			if !used[k] || vals[k][i] == nil {
				continue
			}
			v := *vals[k][i]
			switch col {
			case lay.debit:
				v = v.Abs().Neg()
			case lay.credit:
				v = v.Abs()
			}
			if sum == nil {
				sum = &v
			} else {
				s := sum.Add(v)
				sum = &s
			}
		}
		amounts[i] = sum
	}
	best, bestScore := -1, 0.0
	for k, col := range cands {
		if used[k] {
			continue
		}
		if score := runScore(amounts, vals[k]); score > 0.5 && score > bestScore {
			best, bestScore = col, score
		}
	}
	if best >= 0 {
		lay.balance = best
		lay.roles[best] = roleBalance
	}
}

// presentInRows reports whether every data row has the column (as an empty cell): a column
// the export writes, as opposed to a ragged row's end.
func presentInRows(data []Row, col int) bool {
	for i := range data {
		if col >= len(data[i].Cells) {
			return false
		}
	}
	return len(data) > 0
}

// runScore is the share of consecutive rows whose balances follow from each other and the
// amounts, in the better of the two directions (oldest or newest first).
func runScore(amounts, bal []*decimal.Decimal) float64 {
	fw, bw, pairs := 0, 0, 0
	for i := 1; i < len(bal); i++ {
		if bal[i] == nil || bal[i-1] == nil || amounts[i] == nil || amounts[i-1] == nil {
			continue
		}
		pairs++
		// A balance repeated on consecutive rows is a day balance, which follows either way.
		same := bal[i].Equal(*bal[i-1])
		if same || bal[i-1].Add(*amounts[i]).Equal(*bal[i]) {
			fw++
		}
		if same || bal[i].Add(*amounts[i-1]).Equal(*bal[i-1]) {
			bw++
		}
	}
	if pairs == 0 {
		return 0
	}
	return float64(max(fw, bw)) / float64(pairs)
}

// provisionalMark decides the decimal mark from the candidate columns, for inference only.
func provisionalMark(data []Row, cols []int) byte {
	point, comma := 0, 0
	for i := range data {
		for _, col := range cols {
			n, ok := scanNumber(cellText(cell(data[i].Cells, col)))
			if !ok {
				continue
			}
			switch n.evidence() {
			case evPoint:
				point++
			case evComma:
				comma++
			}
		}
	}
	if comma > point {
		return ','
	}
	return '.'
}

// abnAmroSignature recognises ABN AMRO's tab-separated export, which has no header: account,
// currency, yyyymmdd booking date, balance before, balance after, yyyymmdd value date, amount,
// description.
func abnAmroSignature(lay *layout, stats []colStats, nd int) {
	if lay.ncols != 8 || nd == 0 || lay.date != 2 || lay.valueDate != 5 || lay.amount != 6 || lay.currency != 1 {
		return
	}
	if stats[3].numbers != nd || stats[4].numbers != nd || stats[0].accountLike != nd {
		return
	}
	if lay.balance != 4 {
		return
	}
	lay.layoutName, lay.bankName = "abnamro-tab", "ABN AMRO"
}
