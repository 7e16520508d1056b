package csv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// want is what a quirk test expects of a parse; empty fields are not checked.
type want struct {
	amounts  []string
	dates    []string
	descs    []string
	refs     []string
	payees   []string
	dialect  []string
	problems []statement.ReviewCode
	account  string
	currency string
	opening  string
	closing  string
	bank     string
}

func checkWant(t *testing.T, st *statement.Statement, w want) {
	t.Helper()
	checkConsistent(t, st)
	var amounts, dates, descs, refs, payees []string
	for _, x := range st.Transactions {
		amounts = append(amounts, x.Amount.String())
		dates = append(dates, x.Date.String())
		descs = append(descs, x.Description)
		refs = append(refs, x.Reference)
		payees = append(payees, x.CounterpartyName)
	}
	if w.amounts != nil {
		require.Equal(t, w.amounts, amounts, "amounts")
	}
	if w.dates != nil {
		require.Equal(t, w.dates, dates, "dates")
	}
	if w.descs != nil {
		require.Equal(t, w.descs, descs, "descriptions")
	}
	if w.refs != nil {
		require.Equal(t, w.refs, refs, "references")
	}
	if w.payees != nil {
		require.Equal(t, w.payees, payees, "counterparties")
	}
	parts := strings.Split(st.Dialect, ";")
	for _, d := range w.dialect {
		require.Contains(t, parts, d, st.Dialect)
	}
	var codes []statement.ReviewCode
	for _, p := range st.Problems {
		code := p.Code
		if code == "" {
			code = statement.ReviewUnreadableRows
		}
		codes = append(codes, code)
	}
	require.Equal(t, w.problems, codes, "problems: %+v", st.Problems)
	if w.account != "" {
		require.Equal(t, w.account, st.Account)
	}
	if w.currency != "" {
		require.Equal(t, w.currency, st.Currency)
	}
	if w.opening != "" {
		require.Equal(t, w.opening, decString(st.OpeningBalance), "opening")
	}
	if w.closing != "" {
		require.Equal(t, w.closing, decString(st.ClosingBalance), "closing")
	}
	if w.bank != "" {
		require.Equal(t, w.bank, st.BankName)
	}
}

// TestQuirks covers, one row per case, the dialect quirks of the corpus's banks and those the
// parser promises beyond them.
func TestQuirks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want want
	}{
		{
			name: "a German export with a preamble of labelled balances reads them",
			in: "Kontonummer:;DE89370400440532013000\nZeitraum:;01.03.2024 - 31.03.2024\nAnfangssaldo:;1.000,00 EUR\n\n" +
				"Buchungstag;Valuta;Auftraggeber/Empfänger;Verwendungszweck;Betrag\n" +
				"01.03.2024;01.03.2024;REWE;Einkauf;-12,50\n02.03.2024;02.03.2024;Arbeitgeber GmbH;Gehalt März;2.500,00\n" +
				"Endsaldo:;;;;3.487,50\n",
			want: want{amounts: []string{"-12.50", "2500.00"}, dates: []string{"2024-03-01", "2024-03-02"},
				payees: []string{"REWE", "Arbeitgeber GmbH"}, account: "DE89370400440532013000", opening: "1000.00",
				closing: "3487.50", dialect: []string{"delim=semicolon", "header=5", "lang=de", "decimal=comma", "dates=DMY", "balances=stated"}},
		},
		{
			name: "Spanish, Czech and Polish balance labels are read",
			in:   "Saldo inicial;150,00\nFecha;Concepto;Importe\n03/04/2024;Compra;-50,00\n",
			want: want{amounts: []string{"-50.00"}, opening: "150.00", dialect: []string{"lang=es"}},
		},
		{
			name: "a Czech Počáteční zůstatek and Konečný zůstatek frame the rows",
			in:   "Počáteční zůstatek;1 000,00\nDatum;Popis;Částka\n01.02.2024;Nákup;-100,00\nKonečný zůstatek;900,00\n",
			want: want{amounts: []string{"-100.00"}, opening: "1000.00", closing: "900.00"},
		},
		{
			name: "parenthesised negatives and dollar signs",
			in:   "Date,Description,Amount\n2024-01-02,Coffee,($4.50)\n2024-01-03,Refund,$12.00\n",
			want: want{amounts: []string{"-4.50", "12.00"}, dialect: []string{"amount=signed", "dates=YMD"}},
		},
		{
			name: "trailing minus, leading plus and NBSP thousands",
			in:   "Datum;Text;Betrag\n05.01.2024;Miete;1\u00a0200,00-\n06.01.2024;Lohn;+3\u00a0000,00\n",
			want: want{amounts: []string{"-1200.00", "3000.00"}, dialect: []string{"decimal=comma"}},
		},
		{
			name: "Swiss apostrophe thousands with a decimal point",
			in:   "Datum;Buchungstext;Betrag CHF\n05.01.2024;Miete;-1'200.50\n06.01.2024;Lohn;5'000.00\n",
			want: want{amounts: []string{"-1200.50", "5000.00"}, currency: "CHF", dialect: []string{"decimal=point"}},
		},
		{
			name: "currency codes and symbols beside the amount",
			in:   "Date;Description;Amount\n2024-02-01;A;-12,50 EUR\n2024-02-02;B;€ 3,00\n",
			want: want{amounts: []string{"-12.50", "3.00"}, currency: "EUR"},
		},
		{
			name: "amounts that are all n,nnn stay ambiguous and are reviewed",
			in:   "Date,Description,Amount\n2024-02-01,Rent,\"-1,250\"\n2024-02-03,Pay,\"2,000\"\n",
			want: want{amounts: []string{"-1250", "2000"}, problems: []statement.ReviewCode{statement.ReviewAmbiguousDecimalMark}},
		},
		{
			name: "ambiguous n.nnn amounts in a German table read as thousands",
			in:   "Datum;Text;Betrag\n01.02.2024;Miete;-1.250\n03.02.2024;Lohn;2.000\n",
			want: want{amounts: []string{"-1250", "2000"}, problems: []statement.ReviewCode{statement.ReviewAmbiguousDecimalMark}},
		},
		{
			name: "one date with a day over 12 decides day-first for the whole file",
			in:   "Date,Description,Amount\n01/02/2024,A,-1.00\n13/02/2024,B,-2.00\n",
			want: want{dates: []string{"2024-02-01", "2024-02-13"}, dialect: []string{"dates=DMY"}},
		},
		{
			name: "one date with a second field over 12 decides month-first",
			in:   "Date,Description,Amount\n01/02/2024,A,-1.00\n02/13/2024,B,-2.00\n",
			want: want{dates: []string{"2024-01-02", "2024-02-13"}, dialect: []string{"dates=MDY"}},
		},
		{
			name: "open dates with a decimal comma are day-first without review",
			in:   "Datum;Tekst;Bedrag\n01-02-2024;A;-1,00\n03-02-2024;B;-2,50\n",
			want: want{dates: []string{"2024-02-01", "2024-02-03"}, dialect: []string{"dates=DMY"}},
		},
		{
			name: "open dates with a USD currency column are month-first",
			in:   "Date,Description,Amount,Currency\n01/02/2024,A,-1.00,USD\n03/02/2024,B,-2.50,USD\n",
			want: want{dates: []string{"2024-01-02", "2024-03-02"}, dialect: []string{"dates=MDY"}},
		},
		{
			name: "open dates with nothing to go by are read day-first and reviewed",
			in:   "Date,Description,Amount\n01/02/2024,A,-1.00\n03/02/2024,B,-2.50\n",
			want: want{dates: []string{"2024-02-01", "2024-02-03"}, problems: []statement.ReviewCode{statement.ReviewAmbiguousDateOrder}},
		},
		{
			name: "month names in German, French, Czech and English",
			in: "Datum;Text;Betrag\n3. März 2024;A;-1,00\n4 avr. 2024;B;-1,00\n5 ledna 2024;C;-1,00\n" +
				"6-Nov-24;D;-1,00\nDec 7, 2024;E;-1,00\n",
			want: want{dates: []string{"2024-03-03", "2024-04-04", "2024-01-05", "2024-11-06", "2024-12-07"}},
		},
		{
			name: "Monzo timestamps, ISO times and OFX dates",
			in: "Date,Description,Amount\n2018-02-25 12:34:56 +0000,A,-1\n2002-09-10T23:00:04,B,-2\n" +
				"20091224120000[0:GMT],C,-3\n20.01.2024 14:30:25.123,D,-4\n",
			want: want{dates: []string{"2018-02-25", "2002-09-10", "2009-12-24", "2024-01-20"}},
		},
		{
			name: "debit and credit columns, debits positive",
			in:   "Date,Details,Debit,Credit,Balance\n12/09/2017,Shop,12.00,,88.00\n13/09/2017,Salary,,100.00,188.00\n",
			want: want{amounts: []string{"-12.00", "100.00"}, opening: "100.00", closing: "188.00",
				dialect: []string{"amount=debit-credit", "balances=running"}},
		},
		{
			name: "debit column with negative numbers means the same",
			in:   "Datum;Omschrijving;Debet;Credit\n01-02-2024;A;-12,00;\n02-02-2024;B;;5,00\n",
			want: want{amounts: []string{"-12.00", "5.00"}},
		},
		{
			name: "D/C flag with unsigned amounts",
			in:   "Date;Text;Amount;D/C\n2024-03-01;A;12.00;D\n2024-03-02;B;20.00;C\n2024-03-03;C;0.00;D\n",
			want: want{amounts: []string{"-12.00", "20.00", "0.00"}, dialect: []string{"amount=flag"}},
		},
		{
			name: "Soll/Haben flag",
			in:   "Buchungstag;Umsatz;S/H;Buchungstext\n01.03.2024;12,00;S;A\n02.03.2024;20,00;H;B\n",
			want: want{amounts: []string{"-12.00", "20.00"}},
		},
		{
			name: "a row with an amount but no mark is a problem, not a guess",
			in:   "Date;Text;Amount;Dr/Cr\n2024-03-01;A;12.00;DR\n2024-03-02;B;20.00;?\n",
			want: want{amounts: []string{"-12.00"}, problems: []statement.ReviewCode{statement.ReviewUnreadableRows}},
		},
		{
			name: "OCBC-style continuation rows join the description",
			in: "Transaction date,Value date,Description,Withdrawals (SGD),Deposits (SGD)\n" +
				"18/04/2018,18/04/2018,DEBIT PURCHASE,6.66,\n,,UBER EATS\n17/04/2018,17/04/2018,SALARY,,100.00\n,,ACME PTE LTD\n\n",
			want: want{amounts: []string{"-6.66", "100.00"}, descs: []string{"DEBIT PURCHASE UBER EATS", "SALARY ACME PTE LTD"},
				currency: "SGD", bank: "OCBC Bank", dialect: []string{"order=newest-first"}},
		},
		{
			name: "newest-first running balances derive opening and closing from the right rows",
			in:   "Date,Description,Amount,Balance\n2024-01-03,C,-5.00,105.00\n2024-01-02,B,10.00,110.00\n2024-01-01,A,-20.00,100.00\n",
			want: want{opening: "120.00", closing: "105.00", dialect: []string{"order=newest-first", "balances=running"}},
		},
		{
			name: "a totals footer is skipped and a closing balance line is mined",
			in:   "Date;Description;Amount\n2024-01-01;A;-5,00\n2024-01-02;B;10,00\nTotal;;5,00\nClosing balance;;105,00\n",
			want: want{amounts: []string{"-5.00", "10.00"}, closing: "105.00"},
		},
		{
			name: "a shop called TOTAL stays a transaction",
			in:   "Date;Description;Amount\n2024-01-01;TOTAL;-50,00\n2024-01-02;Shop;-5,00\n",
			want: want{amounts: []string{"-50.00", "-5.00"}, descs: []string{"TOTAL", "Shop"}},
		},
		{
			name: "unreadable rows are problems and the rest is read",
			in:   "Date,Description,Amount\n2024-01-01,A,-5.00\n2024-13-45,B,-1.00\n2024-01-03,C,abc\n2024-01-04,D,7.00\n",
			want: want{amounts: []string{"-5.00", "7.00"}, problems: []statement.ReviewCode{statement.ReviewUnreadableRows, statement.ReviewUnreadableRows}},
		},
		{
			name: "an impossible date without an amount is a problem, not a title",
			in:   "Datum;Text;Betrag\n01.02.2024;A;-1,00\n31.02.2024;B;\n",
			want: want{amounts: []string{"-1.00"}, problems: []statement.ReviewCode{statement.ReviewUnreadableRows}},
		},
		{
			name: "an unlabelled total without a description is not given the date above it",
			in:   "Datum;Text;Betrag\n01.02.2024;A;-1,00\n02.02.2024;B;-2,00\n;;-3,00\n",
			want: want{amounts: []string{"-1.00", "-2.00"}, problems: []statement.ReviewCode{statement.ReviewUnreadableRows}},
		},
		{
			name: "a repeated header and a section title inside the data are skipped",
			in:   "Date;Text;Amount\n2024-01-01;A;-1,00\nCard 4111 xxxx;;\nDate;Text;Amount\n2024-01-02;B;-2,00\n",
			want: want{amounts: []string{"-1.00", "-2.00"}},
		},
		{
			name: "a date printed only on a day's first row is carried down",
			in:   "Date;Text;Amount\n2024-01-01;A;-1,00\n;B;-2,00\n2024-01-02;C;-3,00\n",
			want: want{dates: []string{"2024-01-01", "2024-01-01", "2024-01-02"}, dialect: []string{"filled=dates"}},
		},
		{
			name: "references by priority: end-to-end before bank reference, zeros are no reference",
			in:   "Date;Text;Amount;End-to-End-Referenz;Referenz\n2024-01-01;A;-1,00;E2E-1;R1\n2024-01-02;B;-2,00;;R2\n2024-01-03;C;-3,00;;000\n",
			want: want{refs: []string{"E2E-1", "R2", ""}},
		},
		{
			name: "Czech symbols: the variable symbol is the reference",
			in:   "Datum;Popis;Částka;VS;KS;SS\n01.01.2024;Nájem;-100,00;1234;0308;\n",
			want: want{refs: []string{"1234"}, currency: "", dialect: []string{"lang=cs"}},
		},
		{
			name: "comma plus space separators",
			in:   "Visa, 4514, 2020-02-20, , GOJEK SINGAPORE, -7.91, D\nVisa, 4514, 2020-02-21, , GRAB, -5.86, D\n",
			want: want{amounts: []string{"-7.91", "-5.86"}, dates: []string{"2020-02-20", "2020-02-21"}},
		},
		{
			name: "a quoted field spans lines",
			in:   "Date,Description,Amount\n2024-01-01,\"line one\nline two\",-1.00\n2024-01-02,B,-2.00\n",
			want: want{descs: []string{"line one line two", "B"}, amounts: []string{"-1.00", "-2.00"}},
		},
		{
			name: "stray and unterminated quotes are characters",
			in:   "Date,Description,Amount\n2024-01-01,5\" pipe,-1.00\n2024-01-02,\"quoted\"tail,-2.00\n2024-01-03,\"never closed,-3.00\n",
			want: want{descs: []string{"5\" pipe", "quotedtail", "\"never closed"}, amounts: []string{"-1.00", "-2.00", "-3.00"}},
		},
		{
			name: "escaped quotes inside quotes",
			in:   "Date,Description,Amount\n2024-01-01,\"the \"\"best\"\" shop\",-1.00\n",
			want: want{descs: []string{"the \"best\" shop"}},
		},
		{
			name: "tab, pipe and trailing delimiters",
			in:   "Date\tDescription\tAmount\t\n2024-01-01\tA\t-1.00\t\n",
			want: want{amounts: []string{"-1.00"}, dialect: []string{"delim=tab"}},
		},
		{
			name: "CR-only line endings",
			in:   "Date,Description,Amount\r2024-01-01,A,-1.00\r2024-01-02,B,2.00\r",
			want: want{amounts: []string{"-1.00", "2.00"}},
		},
		{
			name: "an Excel-escaped account number in the preamble",
			in:   "-\n=\"0234500012345678\";21/11/2015;19/02/2016;36\n\nDate de l'opération;Libellé;Montant;Devise\n19/02/2016;VIR;50,00;EUR\n",
			want: want{account: "0234500012345678", currency: "EUR", amounts: []string{"50.00"}},
		},
		{
			name: "the card holder's view is turned around when DEBIT/CREDIT contradict every sign",
			in: "2013/01/17,2013/01/16,DEBIT,SHOP A,30.00\n2013/01/18,2013/01/17,DEBIT,SHOP B,4.60\n" +
				"2013/01/19,2013/01/19,CREDIT,PAYMENT,-500.00\n",
			want: want{amounts: []string{"-30.00", "-4.60", "500.00"}, dialect: []string{"amount=inverted"}},
		},
		{
			name: "Monzo's layout names the bank",
			in: "Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,Notes and #tags\n" +
				"tx_1,01/02/2024,10:00:00,Card payment,Tesco,,Groceries,-10.50,GBP,-10.50,GBP,\n",
			want: want{amounts: []string{"-10.50"}, bank: "Monzo", payees: []string{"Tesco"}, refs: []string{"tx_1"}, dialect: []string{"layout=monzo"}},
		},
		{
			name: "Italian, Portuguese and Danish headers",
			in:   "Data;Descrizione;Importo\n01/02/2024;Spesa;-10,00\n",
			want: want{amounts: []string{"-10.00"}, dialect: []string{"lang=it"}},
		},
		{
			name: "Ukrainian headers with the account and currency in the preamble",
			in:   "Рахунок UA213223130000026007233566001 (UAH);;\nДата;Опис;Сума\n01.02.2024;Покупка;-10,00\n",
			want: want{account: "UA213223130000026007233566001", currency: "UAH", amounts: []string{"-10.00"}},
		},
		{
			name: "a header-only file is an empty statement",
			in:   "Date,Description,Amount\n",
			want: want{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseFinished(t, []byte(tc.in))
			require.NoError(t, err)
			checkWant(t, st, tc.want)
		})
	}
}

// TestNotAStatement covers files that are not statements: the error says why.
func TestNotAStatement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		kind     error
		msg      string
	}{
		{"empty", "", statement.ErrNotAStatement, "empty"},
		{"binary", "PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\x00\x00\x00\x00", statement.ErrNotAStatement, "not text"},
		{"prose", "Dear customer,\nthank you for banking with us.\n", statement.ErrNotAStatement, "no column of dates and amounts"},
		{"no amounts", "Date,Name\n2024-01-01,A\n2024-01-02,B\n", statement.ErrNotAStatement, "no column of dates and amounts"},
		{"nothing readable", "Date,Description,Amount\n2024-01-01,A,x\n2024-01-02,B,y\n", statement.ErrNoTransactions, "is not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.in), statement.Options{})
			require.ErrorIs(t, err, tc.kind)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestMaxRows(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Date,Description,Amount\n")
	for i := 0; i < 11; i++ {
		b.WriteString("2024-01-01,A,-1.00\n")
	}
	_, err := Parse([]byte(b.String()), statement.Options{MaxRows: 10})
	require.ErrorIs(t, err, statement.ErrTooManyRows)
	st, err := Parse([]byte(b.String()), statement.Options{MaxRows: 11})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 11)
}
