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
			name:    "a transaction just before the period keeps the earlier year",
			rows:    "Date;Description;Amount\nDec 30;Late posting;-5.00\nJan 03;Shop;-7.00",
			context: []string{"Statement period January 1, 2023 to January 31, 2023"},
			want:    []string{"2022-12-30|-5.00", "2023-01-03|-7.00"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rows []Row
			for i, line := range strings.Split(tc.rows, "\n") {
				rows = append(rows, Row{Cells: strings.Split(line, ";"), Pos: statement.Position{Line: i + 1}})
			}
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
