package camt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/statementmatch/service/internal/statement"
)

// Caps on what one batch entry contributes, so a hostile entry with thousands of TxDtls still
// gives a readable transaction in bounded time.
const (
	maxJoined      = 10   // distinct references, names or accounts joined
	maxDescLines   = 50   // distinct description lines
	maxDescription = 4096 // bytes of description
)

// entry is the Ntry being read.
type entry struct {
	offset              int64
	line                int
	path                string
	raw                 string
	amt, ccy, cdi, rvsl string
	sts                 string
	bookg, val          string
	svcRef, ntryRef     string
	addtl               []string
	txs                 []txDetails
}

// txDetails is one NtryDtls/TxDtls of the entry.
type txDetails struct {
	e2e, cdtrRef, svcRef, txID string
	dbtrNm, dbtrAcct           string
	cdtrNm, cdtrAcct           string
	ustrd, addtlRmt, addtlTx   []string
}

func (e *entry) reset(offset int64, line int, path string) {
	txs := e.txs[:0]
	*e = entry{offset: offset, line: line, path: path, txs: txs}
}

// endEntry turns the entry just closed into a transaction, or a problem, or a count of entries
// that did not move the account.
func (p *parser) endEntry() {
	e, s := &p.ent, p.sec
	pos := statement.Position{Line: e.line, Path: e.path}
	problem := func(format string, args ...any) {
		pr := statement.Problem{Pos: pos, Message: fmt.Sprintf(format, args...)}
		p.st.Problems = append(p.st.Problems, pr)
		if p.unreadable == nil {
			p.unreadable = &pr
		}
	}
	booked := true
	switch strings.ToUpper(e.sts) {
	case "", "BOOK":
	case "PDNG":
		p.pending++
		booked = false
	case "FUTR":
		p.future++
		booked = false
	case "INFO":
		p.info++
		booked = false
	default:
		problem("Ntry/Sts %q is not BOOK, PDNG, FUTR or INFO, so whether the entry was booked is unknown", e.sts)
		booked = false
	}
	amount, msg := parseAmount(e.amt)
	if msg != "" {
		if booked {
			problem("Ntry/Amt %s", msg)
		}
		return
	}
	switch strings.ToUpper(e.cdi) {
	case "CRDT":
	case "DBIT":
		amount = amount.Neg()
	default:
		if booked {
			problem("Ntry/CdtDbtInd %q is neither CRDT nor DBIT", e.cdi)
		}
		return
	}
	if !booked {
		// Kept so declared totals that count every entry of a report can still be checked.
		s.unbooked = append(s.unbooked, amount)
		return
	}
	date, ok := parseDate(e.bookg)
	if !ok && e.bookg != "" {
		problem("Ntry/BookgDt %q is not a date", e.bookg)
		return
	}
	valDate, ok := parseDate(e.val)
	if !ok && e.val != "" {
		problem("Ntry/ValDt %q is not a date", e.val)
		return
	}
	if date.IsZero() {
		// BookgDt is optional in the schema; the value date is the next best day.
		date = valDate
	}
	if date.IsZero() {
		problem("Ntry has neither BookgDt nor ValDt")
		return
	}
	t := statement.Transaction{
		Date:      date,
		ValueDate: valDate,
		Amount:    amount,
		Currency:  e.ccy,
		Type:      statement.Credit,
		Raw:       strings.TrimSpace(e.raw),
		Pos:       pos,
	}
	if strings.EqualFold(e.cdi, "DBIT") {
		// Set from CdtDbtInd rather than left to the sign, so a zero-amount debit stays a debit.
		// RvslInd changes nothing here: a reversal's CdtDbtInd already states its direction.
		t.Type = statement.Debit
	}
	if v := strings.ToLower(e.rvsl); v == "true" || v == "1" {
		p.reversals++
	}
	if len(e.txs) > 1 {
		p.batches++
	}
	e.describe(&t)
	p.st.Transactions = append(p.st.Transactions, t)
	s.sec.Count++
}

// describe fills the text fields of t from the entry and its TxDtls. One entry is one
// transaction; where its TxDtls differ (a batch), their distinct values are joined with "; ".
//   - Reference: per TxDtls the Refs/EndToEndId unless NOTPROVIDED, else the first
//     RmtInf/Strd/CdtrRefInf/Ref; when no TxDtls has one, the entry's AcctSvcrRef, else its
//     NtryRef, else the first TxDtls' Refs/AcctSvcrRef or Refs/TxId.
//   - Counterparty: for a credit the debtor (RltdPties/Dbtr/Nm or Dbtr/Pty/Nm, DbtrAcct/Id), for a
//     debit the creditor (Cdtr, CdtrAcct).
//   - Description: AddtlNtryInf, then per TxDtls its RmtInf/Ustrd lines, else its
//     Strd/AddtlRmtInf, else its AddtlTxInf; repeated lines once.
func (e *entry) describe(t *statement.Transaction) {
	var refs, names, accts, desc joiner
	for _, l := range e.addtl {
		desc.add(l, maxDescLines)
	}
	credit := t.Type == statement.Credit
	for i := range e.txs {
		tx := &e.txs[i]
		ref := tx.e2e
		if ref == "" || isNotProvided(ref) {
			ref = tx.cdtrRef
		}
		refs.add(ref, maxJoined)
		if credit {
			names.add(tx.dbtrNm, maxJoined)
			accts.add(tx.dbtrAcct, maxJoined)
		} else {
			names.add(tx.cdtrNm, maxJoined)
			accts.add(tx.cdtrAcct, maxJoined)
		}
		lines := tx.ustrd
		if len(lines) == 0 {
			lines = tx.addtlRmt
		}
		if len(lines) == 0 {
			lines = tx.addtlTx
		}
		for _, l := range lines {
			desc.add(l, maxDescLines)
		}
	}
	t.Reference = refs.join("; ")
	if t.Reference == "" {
		t.Reference = e.svcRef
	}
	if t.Reference == "" {
		t.Reference = e.ntryRef
	}
	if t.Reference == "" && len(e.txs) > 0 {
		t.Reference = e.txs[0].svcRef
		if t.Reference == "" {
			t.Reference = e.txs[0].txID
		}
	}
	t.CounterpartyName = names.join("; ")
	t.CounterpartyAccount = accts.join("; ")
	t.Description = truncate(desc.join(" "), maxDescription)
}

// isNotProvided reports the placeholder ISO 20022 puts in EndToEndId when the payer gave none.
func isNotProvided(s string) bool {
	return strings.EqualFold(s, "NOTPROVIDED") || strings.EqualFold(s, "NOT PROVIDED")
}

// joiner collects distinct non-empty values, at most a cap of them, and counts the rest.
type joiner struct {
	vals []string
	more map[string]struct{}
}

func (j *joiner) add(v string, limit int) {
	if v == "" {
		return
	}
	for _, w := range j.vals {
		if w == v {
			return
		}
	}
	if len(j.vals) < limit {
		j.vals = append(j.vals, v)
		return
	}
	if j.more == nil {
		j.more = map[string]struct{}{}
	}
	j.more[v] = struct{}{}
}

func (j *joiner) join(sep string) string {
	s := strings.Join(j.vals, sep)
	if len(j.more) > 0 {
		s += fmt.Sprintf("%s(and %d more)", sep, len(j.more))
	}
	return s
}

// section is the Stmt, Rpt or Ntfctn being read.
type section struct {
	sec      statement.Section
	path     string
	ntries   int
	creDt    string
	frDt     string
	toDt     string
	account  string
	acctCcy  string
	bic      string
	bal      balance // the Bal being read
	opbd     *balance
	prcd     *balance
	clbd     *balance
	itbd     *balance // the last interim booked balance, the closing of an intraday report
	firstCcy string   // of the first Bal, for sections without Acct/Ccy
	summ     summary
	unbooked []decimal.Decimal // signed amounts of entries that were not booked
}

// balance is one Bal as read.
type balance struct {
	index, line         int
	code, amt, ccy, cdi string
	date                string
}

// summary is TxsSummry as read.
type summary struct {
	count, sum, net, netCdi string
	cdtCount, cdtSum        string
	dbtCount, dbtSum        string
}

func (p *parser) startSection(local string) {
	p.sections++
	line, _ := p.dec.InputPos()
	s := &section{path: "/" + p.docName + "/" + p.msgName + "/" + local + "[" + strconv.Itoa(p.sections) + "]"}
	s.sec.First = p.txCount()
	s.sec.Pos = statement.Position{Line: line, Path: s.path}
	p.sec = s
}

// endBalance keeps the balances that open and close the section: OPBD (else PRCD, the previous
// statement's closing) and CLBD, and the last ITBD for intraday reports without CLBD. Available
// (OPAV, CLAV, FWAV), interim available (ITAV), expected (XPCD) and INFO balances are not the
// booked balance the entries move, so they are only listed in the Dialect.
func (p *parser) endBalance() {
	s := p.sec
	b := s.bal
	if b.code != "" && len(p.balCodes) < 16 && !contains(p.balCodes, b.code) {
		p.balCodes = append(p.balCodes, b.code)
	}
	if s.firstCcy == "" {
		s.firstCcy = b.ccy
	}
	keep := func(dst **balance) {
		if *dst == nil {
			c := b
			*dst = &c
		}
	}
	switch b.code {
	case "OPBD":
		keep(&s.opbd)
	case "PRCD":
		keep(&s.prcd)
	case "CLBD":
		keep(&s.clbd)
	case "ITBD":
		c := b
		s.itbd = &c
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// endSection completes the section: account, currency, balances, period and declared totals.
func (p *parser) endSection() {
	s := p.sec
	sec := &s.sec
	sec.Account = s.account
	txs := p.st.Transactions[sec.First-p.emitted : sec.First-p.emitted+sec.Count]
	sec.Currency = s.acctCcy
	if sec.Currency == "" {
		sec.Currency = s.firstCcy
	}
	if sec.Currency == "" && len(txs) > 0 {
		sec.Currency = txs[0].Currency
	}
	if p.bankBIC == "" {
		p.bankBIC = s.bic
	}
	if sec.Currency != "" {
		for i := range txs {
			if txs[i].Currency == "" {
				txs[i].Currency = sec.Currency
			}
		}
	}
	opening := s.opbd
	if opening == nil {
		opening = s.prcd
	}
	sec.OpeningBalance = p.balanceAmount(opening, "opening")
	// An intraday report (camt.052) often states no CLBD: its last interim booked balance is the
	// booked balance at the time of the report, which is what the report closes with.
	if s.clbd == nil && p.format == statement.FormatCAMT052 {
		s.clbd = s.itbd
	}
	sec.ClosingBalance = p.balanceAmount(s.clbd, "closing")
	p.period(s, txs)
	p.declared(s, txs)
	p.st.Sections = append(p.st.Sections, *sec)
	if p.emit != nil {
		p.flush()
	}
}

// txCount is how many transactions have been read: emitted or held.
func (p *parser) txCount() int { return p.emitted + len(p.st.Transactions) }

// flush gives the transactions held to emit and lets go of them; a caller that has had
// enough stops the reading (statement.ErrStopped).
func (p *parser) flush() {
	for i := range p.st.Transactions {
		if !p.stopped && !p.emit(&p.st.Transactions[i]) {
			p.stopped = true
		}
	}
	p.emitted += len(p.st.Transactions)
	clear(p.st.Transactions)
	p.st.Transactions = p.st.Transactions[:0]
}

// balanceAmount returns the signed amount of b, or nil with a problem when it cannot serve as
// the section's opening or closing balance.
func (p *parser) balanceAmount(b *balance, role string) *decimal.Decimal {
	if b == nil {
		return nil
	}
	s := p.sec
	pos := statement.Position{Line: b.line, Path: s.path + "/Bal[" + strconv.Itoa(b.index) + "]"}
	problem := func(format string, args ...any) *decimal.Decimal {
		p.st.Problems = append(p.st.Problems, statement.Problem{Code: statement.ReviewBalanceMismatch, Pos: pos,
			Message: fmt.Sprintf(format, args...)})
		return nil
	}
	amount, msg := parseAmount(b.amt)
	if msg != "" {
		return problem("Bal %s amount %s; it is not used as the %s balance", b.code, msg, role)
	}
	switch strings.ToUpper(b.cdi) {
	case "CRDT":
	case "DBIT":
		amount = amount.Neg()
	default:
		return problem("Bal %s CdtDbtInd %q is neither CRDT nor DBIT; it is not used as the %s balance", b.code, b.cdi, role)
	}
	if b.ccy != "" && s.sec.Currency != "" && !strings.EqualFold(b.ccy, s.sec.Currency) {
		return problem("Bal %s is in %s but the account is in %s; it is not used as the %s balance", b.code, b.ccy, s.sec.Currency, role)
	}
	return &amount
}

// period sets the section's period: FrToDt when stated; else from the earliest booking date (or
// the creation date) to the later of the closing balance's date and the latest booking date.
func (p *parser) period(s *section, txs []statement.Transaction) {
	sec := &s.sec
	sec.PeriodStart, _ = parseDate(s.frDt)
	sec.PeriodEnd, _ = parseDate(s.toDt)
	var first, last statement.Date
	for _, t := range txs {
		if first.IsZero() || t.Date.Compare(first) < 0 {
			first = t.Date
		}
		if last.IsZero() || t.Date.Compare(last) > 0 {
			last = t.Date
		}
	}
	created, ok := parseDate(s.creDt)
	if !ok {
		created, _ = parseDate(p.grpCreDt)
	}
	if sec.PeriodStart.IsZero() {
		sec.PeriodStart = first
		if first.IsZero() {
			sec.PeriodStart = created
		}
	}
	if sec.PeriodEnd.IsZero() {
		sec.PeriodEnd = last
		if s.clbd != nil && sec.ClosingBalance != nil {
			if d, ok := parseDate(s.clbd.date); ok && (last.IsZero() || d.Compare(last) > 0) {
				sec.PeriodEnd = d
			}
		}
		if sec.PeriodEnd.IsZero() {
			sec.PeriodEnd = created
		}
	}
}

// totals are the sums TxsSummry can declare.
type totals struct {
	count, credits, debits int
	net, gross, cdt, dbt   decimal.Decimal
}

func (t *totals) add(a decimal.Decimal) {
	t.count++
	t.net = t.net.Add(a)
	t.gross = t.gross.Add(a.Abs())
	if a.Sign() < 0 {
		t.debits++
		t.dbt = t.dbt.Sub(a)
	} else {
		t.credits++
		t.cdt = t.cdt.Add(a)
	}
}

// declared reads TxsSummry. Totals that statement.Finish checks (entry count, net, credit and
// debit sums) go into Section.Declared; the rest (TtlNtries/Sum, the credit and debit entry
// counts) are checked here. A report whose totals count its pending entries too (they match
// all entries but not the booked ones) is consistent, so then nothing is declared for Finish.
func (p *parser) declared(s *section, txs []statement.Transaction) {
	m := s.summ
	if m == (summary{}) {
		return
	}
	pos := statement.Position{Line: s.sec.Pos.Line, Path: s.path + "/TxsSummry"}
	problem := func(format string, args ...any) {
		p.st.Problems = append(p.st.Problems, statement.Problem{Code: statement.ReviewControlTotalMismatch, Pos: pos,
			Message: fmt.Sprintf(format, args...)})
	}
	count := func(field, v string) *int {
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || !isDigits(v) {
			problem("%s %q is not a number", field, v)
			return nil
		}
		return &n
	}
	sum := func(field, v string) *decimal.Decimal {
		if v == "" {
			return nil
		}
		d, msg := parseAmount(v)
		if msg != "" {
			problem("%s %s", field, msg)
			return nil
		}
		return &d
	}
	var d struct {
		count, cdtCount, dbtCount *int
		sum, net, cdt, dbt        *decimal.Decimal
	}
	d.count = count("TtlNtries/NbOfNtries", m.count)
	d.sum = sum("TtlNtries/Sum", m.sum)
	if d.net = sum("TtlNtries net amount", m.net); d.net != nil {
		switch strings.ToUpper(m.netCdi) {
		case "CRDT":
		case "DBIT":
			neg := d.net.Neg()
			d.net = &neg
		default:
			problem("the net total's CdtDbtInd %q is neither CRDT nor DBIT", m.netCdi)
			d.net = nil
		}
	}
	d.cdtCount = count("TtlCdtNtries/NbOfNtries", m.cdtCount)
	d.cdt = sum("TtlCdtNtries/Sum", m.cdtSum)
	d.dbtCount = count("TtlDbtNtries/NbOfNtries", m.dbtCount)
	d.dbt = sum("TtlDbtNtries/Sum", m.dbtSum)

	var booked totals
	for _, t := range txs {
		booked.add(t.Amount)
	}
	matches := func(t totals) bool {
		eqInt := func(a *int, b int) bool { return a == nil || *a == b }
		eqDec := func(a *decimal.Decimal, b decimal.Decimal) bool { return a == nil || a.Equal(b) }
		return eqInt(d.count, t.count) && eqInt(d.cdtCount, t.credits) && eqInt(d.dbtCount, t.debits) &&
			eqDec(d.sum, t.gross) && eqDec(d.net, t.net) && eqDec(d.cdt, t.cdt) && eqDec(d.dbt, t.dbt)
	}
	if len(s.unbooked) > 0 && !matches(booked) {
		all := booked
		for _, a := range s.unbooked {
			all.add(a)
		}
		if matches(all) {
			return
		}
	}
	if d.count != nil || d.net != nil || d.cdt != nil || d.dbt != nil {
		s.sec.Declared = &statement.ControlTotals{Count: d.count, Net: d.net, Credits: d.cdt, Debits: d.dbt}
	}
	if d.sum != nil && !d.sum.Equal(booked.gross) {
		problem("TtlNtries/Sum declares %s, the entries read sum to %s", amountText(*d.sum), amountText(booked.gross))
	}
	if d.cdtCount != nil && *d.cdtCount != booked.credits {
		problem("TtlCdtNtries/NbOfNtries declares %d credit entries, %d were read", *d.cdtCount, booked.credits)
	}
	if d.dbtCount != nil && *d.dbtCount != booked.debits {
		problem("TtlDbtNtries/NbOfNtries declares %d debit entries, %d were read", *d.dbtCount, booked.debits)
	}
}

// amountText writes d with the decimals it was stated with, whatever the process's settings.
func amountText(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}
