package tabular

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

func TestFindPeriod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		line       string
		order      dateOrder
		start, end string // "" when no period is found
	}{
		{"a US checking period in words", "July 1, 2022 through July 31, 2022", orderMDY, "2022-07-01", "2022-07-31"},
		{"a period whose first date has no year", "Statement Period February 1 - April 30, 2022", orderMDY, "2022-02-01", "2022-04-30"},
		{"a period over the turn of the year without the first year", "Statement period December 15 - January 14, 2023", orderMDY, "2022-12-15", "2023-01-14"},
		{"UK ordinal days", "12th Feb 2022 to 11th Mar 2022", orderDMY, "2022-02-12", "2022-03-11"},
		{"numeric dates with a dash", "Kontoauszug 01.07.2022 - 31.07.2022", orderDMY, "2022-07-01", "2022-07-31"},
		{"a Dutch period", "Periode: 1 juli 2022 tot 31 juli 2022", orderDMY, "2022-07-01", "2022-07-31"},
		{"ISO dates", "Period: 2022-07-01 to 2022-07-31", orderDMY, "2022-07-01", "2022-07-31"},
		{"dates out of order are no period", "from 31/07/2022 to 01/07/2022", orderDMY, "", ""},
		{"two dates without a period word are no period", "21/11/2015 19/02/2016 36", orderDMY, "", ""},
		{"dates years apart are no period", "Customer since 01/01/2001 to 31/07/2022", orderDMY, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, e, ok := findPeriod([]string{tc.line}, tc.order)
			if tc.start == "" {
				require.False(t, ok, "found %s - %s", s, e)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.start, s.String())
			require.Equal(t, tc.end, e.String())
		})
	}
}

// TestRowsWithoutAYear reads tables whose rows print only day and month (US, UK and Brazilian
// statements do), the year coming from the statement period in the preamble or in the text
// around the table.
func TestRowsWithoutAYear(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rows    string // ';' between cells, '\n' between rows
		context []string
		want    []string // date|amount
	}{
		{
			name: "month/day rows in a period stated in words above the table",
			rows: "Statement period;July 1, 2022 through July 31, 2022\nDate;Description;Amount\n07/02;Coffee;-3.50\n07/15;Salary;2000.00",
			want: []string{"2022-07-02|-3.50", "2022-07-15|2000.00"},
		},
		{
			name: "a period over the turn of the year gives December rows the earlier year",
			rows: "Statement period: December 15, 2022 - January 14, 2023\nDate;Description;Amount\n12/20;Rent;-900.00\n01/05;Refund;12.00",
			want: []string{"2022-12-20|-900.00", "2023-01-05|12.00"},
		},
		{
			name:    "UK day and month name rows",
			rows:    "Date;Description;Paid out;Paid in\n14th Feb;Card payment;10.00;\n2nd Mar;Salary;;500.00",
			context: []string{"Your statement", "12th Feb 2022 to 11th Mar 2022"},
			want:    []string{"2022-02-14|-10.00", "2022-03-02|500.00"},
		},
		{
			name:    "day-month abbreviations and a dotted day and month",
			rows:    "Datum;Omschrijving;Bedrag\n05-Dec;Huur;-500,00\n14.12.;Salaris;1.500,00",
			context: []string{"Periode 01-12-2022 t/m 31-12-2022"},
			want:    []string{"2022-12-05|-500.00", "2022-12-14|1500.00"},
		},
		{
			name:    "no period, only a statement date: the rows are of the year up to it",
			rows:    "Date;Description;Withdrawal;Deposit;Balance\n28 Dec;Shop;10.00;;990.00\n05 Jan;Salary;;500.00;1,490.00",
			context: []string{"DBS Bank Ltd", "Statement Date 31 Jan 2023", "Account opened 14 Jun 2017"},
			want:    []string{"2022-12-28|-10.00", "2023-01-05|500.00"},
		},
		{
			name:    "a transaction just before the period keeps the earlier year",
			rows:    "Date;Description;Amount\nDec 30;Late posting;-5.00\nJan 03;Shop;-7.00",
			context: []string{"Statement period January 1, 2023 to January 31, 2023"},
			want:    []string{"2022-12-30|-5.00", "2023-01-03|-7.00"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := rowsOf(tc.rows)
			st, err := Extract(Table{Format: statement.FormatPDF, Rows: rows, Context: tc.context}, statement.Options{})
			require.NoError(t, err)
			var got []string
			for _, tx := range st.Transactions {
				got = append(got, tx.Date.String()+"|"+tx.Amount.StringFixed(2))
			}
			require.Equal(t, tc.want, got)
			require.Empty(t, st.Problems)
		})
	}
}

func TestRowsWithoutAYearNeedAPeriod(t *testing.T) {
	t.Parallel()
	rows := []Row{
		{Cells: []string{"Date", "Description", "Amount"}, Pos: statement.Position{Line: 1}},
		{Cells: []string{"07/02", "Coffee", "-3.50"}, Pos: statement.Position{Line: 2}},
		{Cells: []string{"07/15", "Salary", "2000.00"}, Pos: statement.Position{Line: 3}},
	}
	_, err := Extract(Table{Format: statement.FormatPDF, Rows: rows}, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNoTransactions, "a row without a year is never given one by guess")
}

// TestBankLayouts reads layouts of real statements as the PDF reader hands them over.
func TestBankLayouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		rows          string
		card          bool
		want          []string // date|amount
		open, close   string
		wantProblemRe string // a problem expected, by a word of its message
	}{
		{
			name: "Dutch af and bij columns with balances written after their labels",
			rows: "Beginsaldo 1.000,00;Eindsaldo 1.345,67\nBoekdatum;Omschrijving;Bedrag af;Bedrag bij\n02-03-2023;Jansen BV;;500,00\n05-03-2023;Energie NV;154,33;",
			want: []string{"2023-03-02|500.00", "2023-03-05|-154.33"}, open: "1000.00", close: "1345.67",
		},
		{
			name: "a card statement: plain amounts are charges, CR a payment, balances owed are negative",
			rows: "Previous Balance;500.00\nNew Balance;245.10\nTrans Date;Description;Amount\n06/02/2023;AMAZON;45.10\n10/02/2023;PAYMENT THANK YOU;500.00 CR\n20/02/2023;SHELL;200.00",
			card: true,
			want: []string{"2023-02-06|-45.10", "2023-02-10|500.00", "2023-02-20|-200.00"}, open: "-500.00", close: "-245.10",
		},
		{
			name: "Indian withdrawal and deposit columns with lakh grouping and Dr/Cr balances",
			rows: "Date;Narration;Withdrawal Amt.;Deposit Amt.;Closing Balance\n02/04/22;NEFT ACME;;1,50,000.00;2,73,456.78 Cr\n05/04/22;UPI SWIGGY;2,73,500.00;;-43.22 Dr",
			want: []string{"2022-04-02|150000.00", "2022-04-05|-273500.00"},
		},
		{
			name: "M-Pesa's completion time is the date, paid in and withdrawn the money",
			rows: "Receipt No.;Completion Time;Details;Transaction Status;Paid In;Withdrawn;Balance\nQAB12CD;2023-01-05 14:22:10;Customer Transfer to 0712;Completed;;1,500.00;3,500.00\nQAB12CE;2023-01-06 09:01:00;Funds received from 0722;Completed;2,000.00;;5,500.00",
			want: []string{"2023-01-05|-1500.00", "2023-01-06|2000.00"},
		},
		{
			name: "a withdrawn column written negative: the one positive value in it is a reversal",
			rows: "Date;Details;Paid In;Withdrawn;Balance\n2023-01-05;Transfer;;-1,500.00;3,500.00\n2023-01-06;Charge;;-56.00;3,444.00\n" +
				"2023-01-07;Charge reversed;;56.00;3,500.00\n2023-01-08;Pay Bill;;-200.00;3,300.00",
			want: []string{"2023-01-05|-1500.00", "2023-01-06|-56.00", "2023-01-07|56.00", "2023-01-08|-200.00"},
		},
		{
			name: "a withdrawn column written positive: the one negative value in it is a reversal",
			rows: "Date;Details;Paid In;Withdrawn;Balance\n2023-01-05;Transfer;;1,500.00;3,500.00\n2023-01-06;Charge;;56.00;3,444.00\n" +
				"2023-01-07;Charge reversed;;-56.00;3,500.00\n2023-01-08;Pay Bill;;200.00;3,300.00",
			want: []string{"2023-01-05|-1500.00", "2023-01-06|-56.00", "2023-01-07|56.00", "2023-01-08|-200.00"},
		},
		{
			name: "German S and H amounts, dates without a year, balances after their day",
			rows: "Zeitraum 01.03.2023 - 31.03.2023\nalter Kontostand vom 28.02.2023;2.110,88 H\nBuchungstag;Wert;Vorgang;Betrag EUR\n" +
				"02.03.;02.03.;Kartenzahlung;73,39 S\n06.03.;06.03.;Gehalt;1.500,00 H\nneuer Kontostand vom;31.03.2023 3.537,49 H;;",
			want: []string{"2023-03-02|-73.39", "2023-03-06|1500.00"}, open: "2110.88", close: "3537.49",
		},
		{
			name: "US M/D dates that only the period tells apart, a balance only at the end of each day",
			rows: "Statement period;July 1, 2022 - July 31, 2022\nBeginning balance on 7/1;$1,000.00\n" +
				"Date;Check Number;Description;Deposits/Credits;Withdrawals/Debits;Ending daily balance\n" +
				"7/1;;Payroll;500.00;;\n7/1;;Coffee;;5.00;1,495.00\n7/3;1234;Check;;100.00;1,395.00\n7/5;;Shop;;20.00;\n7/5;;Shop 2;;30.00;1,345.00",
			want: []string{"2022-07-01|500.00", "2022-07-01|-5.00", "2022-07-03|-100.00", "2022-07-05|-20.00", "2022-07-05|-30.00"},
		},
		{
			name: "South African amounts: credits marked Cr, debits plain, balances with Cr, dates without a year",
			rows: "Statement Period : 01 January 2023 to 31 January 2023\nDate;Description;Amount;Balance\n" +
				"03 Jan;Salary ACME;15,000.00Cr;15,500.00Cr\n05 Jan;POS Purchase Checkers;234.56;15,265.44Cr\n09 Jan;Fee;5.00;15,260.44Cr",
			want: []string{"2023-01-03|15000.00", "2023-01-05|-234.56", "2023-01-09|-5.00"},
		},
		{
			name: "unsigned amounts take their signs from the running balance that explains each of them",
			rows: "Opening balance;1,000.00\nDate;Description;Amount;Balance\n01/03/2023;Shop;50.00;950.00\n" +
				"15/03/2023;Salary;500.00;1,450.00\n20/03/2023;Rent;400.00;1,050.00",
			want: []string{"2023-03-01|-50.00", "2023-03-15|500.00", "2023-03-20|-400.00"},
		},
		{
			name: "a Persian statement with Jalali dates, withdrawals and deposits",
			rows: "تاریخ;شرح;برداشت;واریز;مانده\n1401/07/03;واریز حقوق;;15,000,000;20,000,000\n1401/07/10;خرید کارتی;2,500,000;;17,500,000",
			want: []string{"2022-09-25|15000000.00", "2022-10-02|-2500000.00"},
		},
		{
			name: "a PDF header naming a balance no row has is a reason to review",
			rows: "Date;Description;Debits;Credits;Balance\n01/03/2023;Shop A;120.00;;\n05/03/2023;Shop B;731.91;;",
			want: []string{"2023-03-01|-120.00", "2023-03-05|-731.91"}, wantProblemRe: "holds no balance",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := rowsOf(tc.rows)
			st, err := Extract(Table{Format: statement.FormatPDF, Rows: rows, Card: tc.card}, statement.Options{})
			require.NoError(t, err)
			var got []string
			for _, tx := range st.Transactions {
				got = append(got, tx.Date.String()+"|"+tx.Amount.StringFixed(2))
			}
			require.Equal(t, tc.want, got)
			if tc.open != "" {
				statement.Finish(st)
				require.NotNil(t, st.OpeningBalance)
				require.NotNil(t, st.ClosingBalance)
				require.Equal(t, tc.open, st.OpeningBalance.StringFixed(2))
				require.Equal(t, tc.close, st.ClosingBalance.StringFixed(2))
			}
			var msgs []string
			for _, p := range st.Problems {
				if p.Code != statement.ReviewAmbiguousDateOrder {
					msgs = append(msgs, p.Message)
				}
			}
			if tc.wantProblemRe == "" {
				require.Empty(t, msgs)
			} else {
				require.Len(t, msgs, 1)
				require.Contains(t, msgs[0], tc.wantProblemRe)
			}
		})
	}
}

func TestJalaliDates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"1401/01/01", "2022-03-21"}, // Nowruz
		{"1401/07/01", "2022-09-23"},
		{"1401/07/30", "2022-10-22"},
		{"1402/12/29", "2024-03-19"},
		{"1399/12/30", "2021-03-20"}, // a leap year's last day
		{"1400/12/30", ""},           // a common year has no Esfand 30
		{"1401/07/31", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			rd, ok := scanDate(tc.in)
			require.True(t, ok)
			d, ok := rd.resolve(orderDMY)
			if tc.want == "" {
				require.False(t, ok, "got %s", d)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.want, d.String())
		})
	}
}

// TestSummaryTotalsAreChecked reads a summary box's money in and money out and checks them
// against the rows: a row read wrong or missed shows even where no balance is printed.
func TestSummaryTotalsAreChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		summary  string
		mismatch bool
	}{
		{"totals that agree", "Money in;500.00\nMoney out;30.00", false},
		{"money out that disagrees", "Money in;500.00\nMoney out;35.00", true},
		{"total credits written after the label", "Total credits 499.00;", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.summary + "\nDate;Description;Paid out;Paid in\n01/03/2023;Shop;10.00;\n02/03/2023;Shop;20.00;\n03/03/2023;Salary;;500.00"
			rows := rowsOf(src)
			st, err := Extract(Table{Format: statement.FormatPDF, Rows: rows}, statement.Options{})
			require.NoError(t, err)
			statement.Finish(st)
			found := false
			for _, r := range st.Review {
				if r.Code == statement.ReviewControlTotalMismatch {
					found = true
				}
			}
			require.Equal(t, tc.mismatch, found, "review: %v", st.Review)
		})
	}
}

func TestRefInText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"SEPA Overboeking IBAN: NL20INGB0001234567 Naam: Jansen BV Omschrijving: Factuur 2023-0042", "Factuur 2023-0042"},
		{"SEPA Overboeking Naam: Jansen BV Betalingskenmerk: 1234 5678 9012", "1234 5678 9012"},
		{"FASTER PAYMENT J DOE REF: INV-1043", "INV-1043"},
		{"SEPA-Gutschrift EREF+ RE2023-77 KREF+ NOTPROVIDED", "RE2023-77"},
		{"BY TRANSFER NEFT UTR: N123456789 ACME", "N123456789"},
		{"CARD PAYMENT TESCO STORES", ""},
		{"Reference: NOTPROVIDED", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, refInText(tc.in))
		})
	}
}

// rowsOf makes a table's rows from text: rows on lines, cells between semicolons.
func rowsOf(src string) []Row {
	var rows []Row
	for i, line := range strings.Split(src, "\n") {
		rows = append(rows, Row{Cells: strings.Split(line, ";"), Pos: statement.Position{Line: i + 1}})
	}
	return rows
}

// TestDatePairInOneCell: a booking and a value date printed so close that a layout reader took
// their two columns for one ("Txn Date Value Date": "03-04-2023 05-04-2023") give the
// transaction its date and its value date; two dates of different shapes, or a date and a
// word, are no pair.
func TestDatePairInOneCell(t *testing.T) {
	t.Parallel()
	rows := "Txn Date Value Date;Description;Debit;Credit;Balance\n" +
		"03-04-2023 05-04-2023;UPI IRCTC;4,471.39;;16,437.36\n" +
		"04-04-2023 04-04-2023;NEFT SALARY;;21,643.92;38,081.28"
	st, err := Extract(Table{Format: statement.FormatPDF, Rows: rowsOf(rows)}, statement.Options{}.WithDefaults())
	require.NoError(t, err)
	require.Len(t, st.Transactions, 2)
	require.Equal(t, "2023-04-03", st.Transactions[0].Date.String())
	require.Equal(t, "2023-04-05", st.Transactions[0].ValueDate.String())
	require.Equal(t, "-4471.39", st.Transactions[0].Amount.String())
	require.Equal(t, "2023-04-04", st.Transactions[1].ValueDate.String())

	for _, tc := range []struct {
		in   string
		pair bool
	}{
		{"03-04-2023 05-04-2023", true},
		{"  03/04/2023   05/04/2023 ", true},
		{"2023-04-03 2023-04-05", true},
		{"03-04-2023 05/04/2023", false},
		{"03-04-2023 UPI", false},
		{"03-04-2023", false},
		{"03-04-2023 05-04-2023 06-04-2023", false},
	} {
		_, _, ok := datePair(tc.in)
		require.Equal(t, tc.pair, ok, tc.in)
	}
}
