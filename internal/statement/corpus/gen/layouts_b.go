package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// nlSEPA is a Dutch current account: two-line column headers (Boek- / datum, Rente- / datum),
// Bedrag af / Bedrag bij columns with 1.234,56 amounts, SEPA descriptions whose counterparty,
// IBAN, mandate and reference (Kenmerk) are on lines 2 to 4.
func nlSEPA(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	kinds := []kind{
		{"salary", 1, 250000, 420000, true, func(r *rand.Rand, t *txn) {
			ref := "SAL" + digits(r, 8)
			t.desc = []string{"SEPA Overboeking", "Naam: Polder Logistiek B.V.", "IBAN: NL20RABO0" + digits(r, 9), "Omschrijving: Salaris " + t.date.Format("01-2006") + " Kenmerk: " + ref}
			t.ref = ref
		}},
		{"in", 1, 1500, 40000, true, func(r *rand.Rand, t *txn) {
			ref := digits(r, 16)
			t.desc = []string{"SEPA Overboeking", "Naam: J. de Vries", "IBAN: NL02ABNA0" + digits(r, 9), "Kenmerk: " + ref}
			t.ref = ref
		}},
		{"incasso", 3, 1500, 140000, false, func(r *rand.Rand, t *txn) {
			c := pick(r, []string{"Vattenfall Klantenservice N.V.", "Zilveren Kruis Zorgverzekeringen", "Gemeente Utrecht Belastingen", "KPN B.V.", "Woonstichting De Key"})
			ref := "2023-" + digits(r, 2) + "-" + digits(r, 6)
			t.desc = []string{"SEPA Incasso algemeen doorlopend", "Naam: " + c, "IBAN: NL" + digits(r, 2) + "DEUT0" + digits(r, 9) + " Machtiging: " + digits(r, 9), "Kenmerk: " + ref}
			t.ref = ref
		}},
		{"pin", 5, 150, 12000, false, func(r *rand.Rand, t *txn) {
			ref := "CT" + digits(r, 6)
			t.desc = []string{"BEA, Betaalpas", pick(r, []string{"Albert Heijn 1234", "Jumbo Utrecht", "NS Utrecht Centraal", "HEMA Hoog Catharijne"}) + ",PAS" + digits(r, 3), "NR:" + ref + ", " + t.date.Format("02.01.06") + "/" + fmt.Sprintf("%02d:%02d", 8+r.IntN(12), r.IntN(60))}
			t.ref = ref
		}},
	}
	opening := decimal.New(50000+r.Int64N(400000), -2)
	s := &stmt{layout: layout, account: "NL91NZBK0417164300", currency: "EUR", start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, -2, kinds)
	s.finish(opening)
	df := func(t time.Time) string { return t.Format("02-01-2006") }
	d := &Doc{Lang: "nl", Font: "DejaVu Sans", Footer: "Noordzee Bank N.V., Amsterdam. KvK 33031431. Controleer uw afschrift; meld onjuistheden binnen 30 dagen."}
	d.Blocks = append(d.Blocks, Title{"Noordzee Bank"},
		Columns{[]string{"Dhr. P. Jansen", "Oudegracht 112", "3511 AX Utrecht"},
			[]string{"Rekeningafschrift", "Betaalrekening NL91 NZBK 0417 1643 00", "Periode " + df(start) + " t/m " + df(end), "Afschriftnummer " + fmt.Sprint(int(start.Month())), "Valuta EUR"}},
		Box{Rows: [][2]string{
			{"Beginsaldo per " + df(start), eu(opening)},
			{"Totaal bij", eu(sumOf(s.txns, true))},
			{"Totaal af", eu(sumOf(s.txns, false))},
			{"Eindsaldo per " + df(end), eu(*s.closing)},
		}, Side: []string{"Sparen met een vaste rente?", "Bekijk de actuele rentes in de app."}},
		Heading{"Af- en bijschrijvingen"})
	t := Table{Head: [][]string{{"Boek-", "Rente-", "Omschrijving", "Bedrag af", "Bedrag bij"}, {"datum", "datum", "", "", ""}}, Align: "llLrr"}
	for _, x := range s.txns {
		af, bij := "", ""
		if x.amount.IsNegative() {
			af = eu(x.amount)
		} else {
			bij = eu(x.amount)
		}
		t.Rows = append(t.Rows, []string{x.date.Format("02-01"), x.date.Format("02-01"), strings.Join(x.desc, "\n"), af, bij})
	}
	d.Blocks = append(d.Blocks, t, Para{"Het tegoed op uw rekening valt onder het depositogarantiestelsel. Kijk voor meer informatie op www.dnb.nl.", true})
	s.doc = d
	return s
}

// brExtrato is a Brazilian current-account extract: dd/mm dates, decimal commas, debits with a
// trailing minus, SALDO ANTERIOR and SALDO DO DIA lines that are balances, not transactions, and
// "R$ 1.234,56" in the summary.
func brExtrato(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	kinds := []kind{
		{"pix-in", 2, 5000, 250000, true, func(r *rand.Rand, t *txn) {
			t.desc = []string{"PIX TRANSF " + pick(r, []string{"JOAO SILVA", "ANA SOUZA", "MARCOS LIMA"}) + " " + t.date.Format("02/01")}
			t.ref = digits(r, 6)
		}},
		{"ted", 1, 300000, 900000, true, func(r *rand.Rand, t *txn) {
			t.desc = []string{"TED 001.4321.EMPRESA ALFA LTDA"}
			t.ref = digits(r, 6)
		}},
		{"deb", 6, 990, 60000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{pick(r, []string{"PAG BOLETO ENEL SP", "RSHOP-SUPERMERC-" + t.date.Format("02/01"), "PIX QRS PADARIA PAO", "TAR PACOTE SERVIÇOS", "DA SABESP 12345678", "CARTÃO ELO FATURA"})}
			t.ref = digits(r, 6)
		}},
	}
	opening := decimal.New(100000+r.Int64N(500000), -2)
	s := &stmt{layout: layout, account: "1234 56789-0", currency: "BRL", start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, -2, kinds)
	s.finish(opening)
	val := func(d decimal.Decimal) string {
		if d.IsNegative() {
			return eu(d) + "-"
		}
		return eu(d)
	}
	d := &Doc{Lang: "pt-BR", Font: "DejaVu Sans", Footer: "Banco Atlântico S.A. SAC 0800 555 0100. Ouvidoria 0800 555 0200."}
	d.Blocks = append(d.Blocks, Title{"Banco Atlântico"},
		Columns{[]string{"Extrato de conta corrente", "MARIA APARECIDA SANTOS", "Agência 1234  Conta 56789-0"},
			[]string{"Período: " + start.Format("02/01/2006") + " a " + end.Format("02/01/2006"), "Emitido em " + end.AddDate(0, 0, 1).Format("02/01/2006")}},
		Box{Title: "Resumo", Rows: [][2]string{
			{"Saldo anterior", "R$ " + eu(opening)},
			{"Entradas", "R$ " + eu(sumOf(s.txns, true))},
			{"Saídas", "R$ " + eu(sumOf(s.txns, false)) + "-"},
			{"Saldo final", "R$ " + eu(*s.closing)},
		}, Side: []string{"Invista no CDB Atlântico:", "liquidez diária e 100% do CDI."}},
		Heading{"Lançamentos"})
	t := Table{Head: [][]string{{"Data", "Lançamento", "Documento", "Valor (R$)", "Saldo (R$)"}}, Align: "lLlrr"}
	t.Rows = append(t.Rows, []string{start.AddDate(0, 0, -1).Format("02/01"), "SALDO ANTERIOR", "", "", eu(opening)})
	for i, x := range s.txns {
		t.Rows = append(t.Rows, []string{x.date.Format("02/01"), x.desc[0], x.ref, val(x.amount), ""})
		if i == len(s.txns)-1 || !s.txns[i+1].date.Equal(x.date) {
			t.Rows = append(t.Rows, []string{x.date.Format("02/01"), "SALDO DO DIA", "", "", val(x.bal)})
		}
	}
	d.Blocks = append(d.Blocks, t, Para{"Os saldos acima são baseados nas informações disponíveis até esse instante e poderão ser alterados a qualquer momento em função de novos lançamentos.", true})
	s.doc = d
	return s
}

// ccStatement is a credit-card statement: purchases are plain amounts (debits to the holder),
// payments and credits carry CR, dates "Mar 02" with the year in the period, a previous balance
// / new balance summary, minimum payment and an interest table. The key's balances are the
// holder's: the amount owed is negative.
//
// With uk, it is a British card: "02 Mar" dates, payments in parentheses, pounds.
func ccStatement(r *rand.Rand, layout string, start, end time.Time, n int, uk bool) *stmt {
	kinds := []kind{
		{"payment", 1, 20000, 150000, true, func(r *rand.Rand, t *txn) {
			t.desc = []string{"PAYMENT THANK YOU - WEB"}
			t.ref = digits(r, 23)
		}},
		{"purchase", 8, 399, 38000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{pick(r, []string{"UBER *TRIP HELP.UBER.COM CA", "WHOLEFDS MKT #10234 SEATTLE WA", "DELTA AIR 0062345678901 ATLANTA GA", "SPOTIFY USA 877-7781161 NY", "THE HOME DEPOT #4710 RENTON WA", "SQ *BLUE BOTTLE COFFEE SEATTLE WA"})}
			t.ref = digits(r, 23)
		}},
	}
	owed := decimal.New(40000+r.Int64N(200000), -2)
	opening := owed.Neg()
	s := &stmt{layout: layout, account: "XXXX XXXX XXXX 4321", currency: "USD", start: start, end: end}
	cur, md := "$", func(t time.Time) string { return t.Format("Jan 02") }
	if uk {
		s.currency, s.account, cur = "GBP", "5432 **** **** 8765", "£"
		md = func(t time.Time) string { return t.Format("02 Jan") }
	}
	// The holder's balance starts negative; genTxns keeps it above a floor, so draw against
	// a shifted balance and shift back.
	shift := decimal.New(1000000, -2)
	s.txns = genTxns(r, start, end, n, opening.Add(shift), -2, kinds)
	for i := range s.txns {
		s.txns[i].bal = s.txns[i].bal.Sub(shift)
	}
	s.finish(opening)
	newBal := s.closing.Neg()
	d := &Doc{Lang: "en-US", Letter: true, Font: "DejaVu Sans", Footer: "Meridian Card Services, P.O. Box 6294, Carol Stream, IL 60197. Make your payment by the due date to avoid a late fee."}
	if uk {
		d = &Doc{Lang: "en-GB", Font: "DejaVu Sans", Footer: "Albion Card Services Ltd, Northampton NN4 7SG. Authorised and regulated by the Financial Conduct Authority."}
		d.Blocks = append(d.Blocks, Title{"Albion Classic Credit Card"},
			Columns{[]string{"Ms Fiona Grant", "9 Marchmont Crescent", "Edinburgh EH9 1HN"},
				[]string{"Card number 5432 **** **** 8765", "Statement date " + ordinal(end.Day()) + " " + end.Format("January 2006"), "Period " + start.Format("2 January") + " to " + end.Format("2 January 2006"), "Payment due " + end.AddDate(0, 0, 25).Format("2 January 2006")}})
	} else {
		d.Blocks = append(d.Blocks, Title{"Meridian Platinum Rewards Card"},
			Columns{[]string{"JANE R DOE", "2201 WESTLAKE AVE APT 5", "SEATTLE WA 98121"},
				[]string{"Account Number XXXX XXXX XXXX 4321", "Statement Period " + start.Format("January 2") + " - " + end.Format("January 2, 2006"), "Payment Due Date " + end.AddDate(0, 0, 25).Format("01/02/06")}})
	}
	d.Blocks = append(d.Blocks,
		Box{Title: "Account Summary", Rows: [][2]string{
			{"Previous Balance", cur + us(owed)},
			{"Payments and Credits", "-" + cur + us(sumOf(s.txns, true))},
			{"Purchases", "+" + cur + us(sumOf(s.txns, false))},
			{"Fees Charged", "+" + cur + "0.00"},
			{"New Balance", cur + us(newBal)},
			{"Minimum Payment Due", cur + "35.00"},
			{"Credit Limit", cur + "12,000.00"},
			{"Available Credit", cur + us(decimal.New(1200000, -2).Sub(newBal))},
		}, Side: []string{"Late Payment Warning: If we do not receive", "your minimum payment by the date listed", "above, you may have to pay a late fee of", "up to " + cur + "40.00."}},
		Heading{"Transactions"})
	t := Table{Head: [][]string{{"Trans", "Post", "Description", "Reference Number", "Amount"}, {"Date", "Date", "", "", ""}}, Align: "llLrr"}
	for _, x := range s.txns {
		a := us(x.amount)
		switch {
		case x.amount.IsPositive() && uk:
			a = "(" + a + ")"
		case x.amount.IsPositive():
			a += " CR"
		}
		// The key's date is the posting date, the day the charge was booked to the account
		// (as every other statement's booking date); the purchase was made up to two days
		// before.
		trans := x.date.AddDate(0, 0, -r.IntN(3))
		if trans.Before(start) {
			trans = start
		}
		t.Rows = append(t.Rows, []string{md(trans), md(x.date), x.desc[0], x.ref, a})
	}
	d.Blocks = append(d.Blocks, t, Heading{"Interest Charge Calculation"},
		Para{"Your Annual Percentage Rate (APR) is the annual interest rate on your account.", true},
		Table{Head: [][]string{{"Type of Balance", "Annual Percentage Rate (APR)", "Balance Subject to Interest Rate", "Interest Charge"}}, Align: "lrrr",
			Rows: [][]string{{"Purchases", "21.99% (v)", "$0.00", "$0.00"}, {"Cash Advances", "28.49% (v)", "$0.00", "$0.00"}}})
	s.doc = d
	return s
}

// mobileMoney is an M-Pesa-like statement: a summary by transaction type, then the detailed
// statement newest first with Receipt No., Completion Time "2023-01-05 14:22:10", Details,
// Transaction Status, Paid In, Withdrawn (negative) and Balance. It prints no opening or
// closing balance.
func mobileMoney(r *rand.Rand, layout string, start, end time.Time, n int) *stmt {
	kinds := []kind{
		{"received", 2, 50000, 1500000, true, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Funds received from - 2547******" + digits(r, 3) + " " + pick(r, []string{"JOHN KAMAU", "MARY WANJIRU", "PETER OTIENO"})}
		}},
		{"deposit", 1, 100000, 2000000, true, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Deposit of Funds at Agent Till " + digits(r, 6) + " - Quickmart Ltd"}
		}},
		{"send", 3, 5000, 600000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Customer Transfer to - 2547******" + digits(r, 3) + " " + pick(r, []string{"GRACE AKINYI", "DAVID MWANGI"})}
		}},
		{"paybill", 3, 10000, 450000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Pay Bill Online to " + pick(r, []string{"888880 - KPLC PREPAID Acc. 37181234567", "247247 - Equity Paybill Account Acc. 0712345678", "320320 - SAFARICOM HOME Acc. 998877"})}
		}},
		{"till", 3, 3000, 250000, false, func(r *rand.Rand, t *txn) {
			t.desc = []string{"Merchant Payment to " + digits(r, 7) + " - " + pick(r, []string{"NAIVAS SUPERMARKET", "JAVA HOUSE", "TOTAL ENERGIES"})}
		}},
	}
	opening := decimal.New(300000+r.Int64N(2000000), -2)
	s := &stmt{layout: layout, account: "0722000123", currency: "KES", start: start, end: end}
	base := genTxns(r, start, end, n, opening, -2, kinds)
	// A time of day for each; transfers carry a separate charge line at the same time.
	var txns []txn
	bal := opening
	for _, t := range base {
		t.date = t.date.Add(time.Duration(7*3600+r.IntN(14*3600)) * time.Second)
		t.ref = "R" + strings.ToUpper(t.date.Format("Jan"))[:1] + alnum(r, 8)
		bal = bal.Add(t.amount)
		t.bal = bal
		txns = append(txns, t)
		if t.kind == "send" {
			fee := decimal.New(int64(7+r.IntN(100)), -0).Neg()
			bal = bal.Add(fee)
			txns = append(txns, txn{date: t.date, desc: []string{"Customer Transfer of Funds Charge"}, ref: t.ref, amount: fee, bal: bal, kind: "charge"})
		}
	}
	// Newest first, as the provider prints it.
	for i, j := 0, len(txns)-1; i < j; i, j = i+1, j-1 {
		txns[i], txns[j] = txns[j], txns[i]
	}
	s.txns = txns
	sums := map[string][2]decimal.Decimal{}
	for _, t := range txns {
		v := sums[t.kind]
		if t.amount.IsPositive() {
			v[0] = v[0].Add(t.amount)
		} else {
			v[1] = v[1].Add(t.amount.Abs())
		}
		sums[t.kind] = v
	}
	d := &Doc{Lang: "en-KE", Font: "DejaVu Sans", Footer: "Disclaimer: This record is produced for your information only. For any queries call 100 or visit any customer care shop."}
	d.Blocks = append(d.Blocks, Title{"M-PESA STATEMENT"},
		Columns{[]string{"Customer Name: ALICE WAIRIMU NJOROGE", "Mobile Number: 0722 000 123", "Email Address: alice.w@example.com"},
			[]string{"Statement Period: " + start.Format("02 Jan 2006") + " - " + end.Format("02 Jan 2006"), "Request Date: " + end.AddDate(0, 0, 1).Format("02 Jan 2006")}},
		Heading{"SUMMARY"})
	st := Table{Head: [][]string{{"TRANSACTION TYPE", "PAID IN", "PAID OUT"}}, Align: "lrr"}
	var tin, tout decimal.Decimal
	for _, k := range []struct{ key, label string }{{"send", "SEND MONEY"}, {"received", "RECEIVED MONEY"}, {"deposit", "AGENT DEPOSIT"}, {"paybill", "LIPA NA M-PESA (PAYBILL)"}, {"till", "LIPA NA M-PESA (BUY GOODS)"}, {"charge", "OTHERS"}} {
		v := sums[k.key]
		st.Rows = append(st.Rows, []string{k.label, us(v[0]), us(v[1])})
		tin, tout = tin.Add(v[0]), tout.Add(v[1])
	}
	st.Rows = append(st.Rows, []string{"TOTAL:", us(tin), us(tout)})
	t := Table{Head: [][]string{{"Receipt No.", "Completion Time", "Details", "Transaction Status", "Paid In", "Withdrawn", "Balance"}}, Align: "lLLcrrr"}
	for _, x := range txns {
		in, out := "", ""
		if x.amount.IsPositive() {
			in = us(x.amount)
		} else {
			out = "-" + us(x.amount)
		}
		t.Rows = append(t.Rows, []string{x.ref, x.date.Format("2006-01-02 15:04:05"), strings.Join(x.desc, "\n"), "Completed", in, out, us(x.bal)})
	}
	d.Blocks = append(d.Blocks, st, Heading{"DETAILED STATEMENT"}, t)
	s.doc = d
	return s
}

// rtlStatement is a right-to-left statement. fa: Persian, Jalali dates (month Dey 1401, which
// runs 22 December 2022 to 20 January 2023) and Persian digits, amounts in rials with no
// decimals. ar: Arabic, Gregorian dd/mm/yyyy dates in Arabic-Indic digits, riyals with halalas.
func rtlStatement(r *rand.Rand, layout string, fa bool, n int) *stmt {
	var start, end time.Time
	exp := int32(-2)
	if fa {
		start, end, exp = day(2022, 12, 22), day(2023, 1, 20), 0
	} else {
		start, end = day(2023, 3, 1), day(2023, 3, 31)
	}
	// Amount ranges: rials for fa (no minor unit), halalas for ar.
	rng := [3][2]int64{{900000, 1500000}, {50000, 900000}, {1000, 400000}}
	if fa {
		rng = [3][2]int64{{900000000, 1500000000}, {5000000, 90000000}, {1000000, 40000000}}
	}
	kinds := []kind{
		{"salary", 1, rng[0][0], rng[0][1], true, func(r *rand.Rand, t *txn) {
			t.desc = []string{map[bool]string{true: "واریز حقوق", false: "إيداع راتب"}[fa]}
		}},
		{"in", 1, rng[1][0], rng[1][1], true, func(r *rand.Rand, t *txn) {
			t.desc = []string{map[bool]string{true: "انتقال پایا از حساب دیگر", false: "حوالة واردة"}[fa]}
		}},
		{"card", 5, rng[2][0], rng[2][1], false, func(r *rand.Rand, t *txn) {
			if fa {
				t.desc = []string{pick(r, []string{"خرید کارتی - فروشگاه رفاه", "خرید اینترنتی - دیجی کالا", "برداشت از خودپرداز", "پرداخت قبض برق"})}
			} else {
				t.desc = []string{pick(r, []string{"شراء - مدى - بنده", "سحب نقدي - صراف آلي", "سداد فاتورة الكهرباء", "شراء عبر الإنترنت - نون"})}
			}
		}},
	}
	opening := decimal.New(200000000+r.Int64N(500000000), 0)
	if !fa {
		opening = decimal.New(500000+r.Int64N(1000000), -2)
	}
	s := &stmt{layout: layout, start: start, end: end}
	s.txns = genTxns(r, start, end, n, opening, exp, kinds)
	for i := range s.txns {
		s.txns[i].ref = digits(r, 8)
	}
	s.finish(opening)
	var dig []rune
	var places int32
	if fa {
		dig = []rune("۰۱۲۳۴۵۶۷۸۹")
		s.currency, s.account = "IRR", "0102345678901"
	} else {
		dig = []rune("٠١٢٣٤٥٦٧٨٩")
		s.currency, s.account, places = "SAR", "SA4420000001234567891234", 2
	}
	loc := func(x string) string {
		var b strings.Builder
		for _, c := range x {
			if c >= '0' && c <= '9' {
				b.WriteRune(dig[c-'0'])
			} else {
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	num := func(x decimal.Decimal) string { return loc(group(x, places, "٬", "٫", false)) }
	date := func(t time.Time) string {
		if fa {
			return loc(fmt.Sprintf("1401/10/%02d", int(t.Sub(start).Hours()/24)+1))
		}
		return loc(t.Format("02/01/2006"))
	}
	d := &Doc{Lang: "fa", RTL: true, Font: "Noto Naskh Arabic"}
	var head []string
	var title, acct, from, to, open, close string
	if fa {
		title, acct, from, to, open, close = "بانک پارس نمونه", "شماره حساب: ", "صورتحساب از تاریخ ", " تا تاریخ ", "مانده ابتدای دوره", "مانده پایان دوره"
		head = []string{"ردیف", "تاریخ", "شرح", "شماره پیگیری", "برداشت", "واریز", "مانده"}
		d.Footer = "این صورتحساب به صورت سیستمی صادر شده و نیاز به مهر و امضا ندارد."
	} else {
		d.Lang = "ar"
		title, acct, from, to, open, close = "بنك الواحة الوطني", "رقم الحساب: ", "كشف حساب من ", " إلى ", "الرصيد الافتتاحي", "الرصيد الختامي"
		head = []string{"م", "التاريخ", "البيان", "المرجع", "مدين", "دائن", "الرصيد"}
		d.Footer = "هذا كشف حساب صادر آلياً ولا يحتاج إلى توقيع."
	}
	d.Blocks = append(d.Blocks, Title{title},
		Columns{[]string{acct + loc(s.account), from + date(start) + to + date(end)}, nil},
		Box{Rows: [][2]string{{open, num(opening)}, {close, num(*s.closing)}}})
	t := Table{Head: [][]string{head}, Align: "llLlrrr"}
	for i, x := range s.txns {
		dr, cr := "", ""
		if x.amount.IsNegative() {
			dr = num(x.amount)
		} else {
			cr = num(x.amount)
		}
		t.Rows = append(t.Rows, []string{loc(fmt.Sprint(i + 1)), date(x.date), x.desc[0], loc(x.ref), dr, cr, num(x.bal)})
	}
	d.Blocks = append(d.Blocks, t)
	s.doc = d
	return s
}
