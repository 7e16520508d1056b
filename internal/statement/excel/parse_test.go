package excel

import (
	"archive/zip"
	"bytes"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

// germanStatement is a statement as a German bank's Excel export lays it out: a preamble with
// the account and balances, then dates as date-formatted serials and amounts as numbers.
func germanStatement(t testing.TB) []byte {
	return xlsxFile(t, func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Umsätze"))
		date := style(t, f, 0, "dd.mm.yyyy")
		money := style(t, f, 4, "")
		setRows(t, f, "Umsätze", [][]any{
			{"Kontoauszug"},
			{"IBAN:", "DE89370400440532013000"},
			{"Währung:", "EUR"},
			{"Anfangssaldo:", excelize.Cell{StyleID: money, Value: 1000.5}},
			{"Endsaldo:", excelize.Cell{StyleID: money, Value: 1865.25}},
			{},
			{"Buchungstag", "Valuta", "Verwendungszweck", "Betrag", "Saldo"},
			{excelize.Cell{StyleID: date, Value: 45292}, excelize.Cell{StyleID: date, Value: 45293}, "Gehalt Januar", excelize.Cell{StyleID: money, Value: 2500}, excelize.Cell{StyleID: money, Value: 3500.5}},
			{excelize.Cell{StyleID: date, Value: 45294}, excelize.Cell{StyleID: date, Value: 45294}, "Miete", excelize.Cell{StyleID: money, Value: -1200}, excelize.Cell{StyleID: money, Value: 2300.5}},
			{excelize.Cell{StyleID: date, Value: 45300}, excelize.Cell{StyleID: date, Value: 45301}, "Supermarkt   Berlin", excelize.Cell{StyleID: money, Value: -435.25}, excelize.Cell{StyleID: money, Value: 1865.25}},
		})
	})
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestParseXLSXStatement(t *testing.T) {
	t.Parallel()
	st, err := Parse(germanStatement(t), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	require.Equal(t, statement.FormatXLSX, st.Format)
	require.Contains(t, st.Dialect, "xlsx;sheet=Umsätze;")
	require.Equal(t, "DE89370400440532013000", st.Account)
	require.Equal(t, "EUR", st.Currency)
	require.Len(t, st.Transactions, 3)
	first, last := st.Transactions[0], st.Transactions[2]
	require.Equal(t, "2024-01-01", first.Date.String())
	require.Equal(t, "2024-01-02", first.ValueDate.String())
	require.True(t, first.Amount.Equal(dec("2500")), first.Amount.String())
	require.Equal(t, "Gehalt Januar", first.Description)
	require.Equal(t, statement.Position{Sheet: "Umsätze", Line: 8}, first.Pos)
	require.Equal(t, "2024-01-09", last.Date.String())
	require.True(t, last.Amount.Equal(dec("-435.25")), last.Amount.String())
	require.Equal(t, "Supermarkt Berlin", last.Description)
	require.NotNil(t, last.Balance)
	require.True(t, last.Balance.Equal(dec("1865.25")))
	require.NotNil(t, st.OpeningBalance)
	require.True(t, st.OpeningBalance.Equal(dec("1000.5")))
	require.NotNil(t, st.ClosingBalance)
	require.True(t, st.ClosingBalance.Equal(dec("1865.25")))
	require.Empty(t, st.Review, "opening + transactions = closing, and the running balance follows")
}

// TestParseXLSXTextCells reads a sheet whose exporter wrote everything as text: day-first
// dates and decimal-comma amounts, which the table layer decides on from all rows.
func TestParseXLSXTextCells(t *testing.T) {
	t.Parallel()
	data := xlsxFile(t, func(f *excelize.File) {
		setRows(t, f, "Sheet1", [][]any{
			{"Datum", "Omschrijving", "Bedrag"},
			{"02.01.2024", "Albert Heijn", "-1.234,56"},
			{"15.01.2024", "Salaris", "2.500,00"},
			{"31.01.2024", "Rente", "0,07"},
		})
	})
	st, err := Parse(data, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	require.Contains(t, st.Dialect, "decimal=comma")
	require.Contains(t, st.Dialect, "dates=DMY")
	require.Len(t, st.Transactions, 3)
	require.True(t, st.Transactions[0].Amount.Equal(dec("-1234.56")))
	require.True(t, st.Transactions[1].Amount.Equal(dec("2500")))
	require.Equal(t, "2024-01-31", st.Transactions[2].Date.String())
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	docx := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("word/document.xml")
		_, _ = w.Write([]byte(`<w:document/>`))
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}()
	tests := []struct {
		name string
		data []byte
		kind error
	}{
		{"garbage", []byte("hello, world"), statement.ErrNotAStatement},
		{"an empty file", nil, statement.ErrNotAStatement},
		{"a zip that is no workbook", docx, statement.ErrNotAStatement},
		{"a truncated zip", germanStatement(t)[:100], statement.ErrCorrupt},
		{"a workbook without any statement", xlsxFile(t, func(f *excelize.File) {
			setRows(t, f, "Sheet1", [][]any{{"Shopping list"}, {"milk", "eggs"}})
		}), statement.ErrNotAStatement},
		{"an empty workbook", xlsxFile(t, func(*excelize.File) {}), statement.ErrNoTransactions},
		{"a binary workbook (.xlsb)", rawBook{extra: map[string]string{"xl/workbook.bin": "\x00"}}.withPart("_rels/.rels",
			`<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>`).build(t), statement.ErrNotAStatement},
		{"a DTD in a part", oneSheet(`<row r="1"><c><v>1</v></c></row>`).withPart("xl/workbook.xml", `<!DOCTYPE x [<!ENTITY a "a">]><workbook/>`).build(t), statement.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse(tt.data, statement.Options{})
			require.ErrorIs(t, err, tt.kind)
			require.Nil(t, st)
		})
	}
}

// TestParseTypedCells checks that number and date cells reach the table layer as typed: amounts
// stored as 1.234 are 1.234 (not 1234 read with a thousands dot), whatever the text cells of
// the sheet suggest about the decimal mark.
func TestParseTypedCells(t *testing.T) {
	t.Parallel()
	data := xlsxFile(t, func(f *excelize.File) {
		date := style(t, f, 14, "")
		setRows(t, f, "Sheet1", [][]any{
			{"Kurs vom", "01.02.2024"},
			{"Datum", "Text", "Betrag"},
			{excelize.Cell{StyleID: date, Value: 45323}, "A", 1.234},
			{excelize.Cell{StyleID: date, Value: 45324}, "B", -2.345},
			{excelize.Cell{StyleID: date, Value: 45325}, "C", 3.456},
		})
	})
	st, err := Parse(data, statement.Options{})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 3)
	require.True(t, st.Transactions[0].Amount.Equal(dec("1.234")), st.Transactions[0].Amount.String())
	require.True(t, st.Transactions[1].Amount.Equal(dec("-2.345")))
	require.Equal(t, "2024-02-01", st.Transactions[0].Date.String())
}

// TestParseReaderProblems checks that cells the reader could not read reach the statement as
// Problems, with their sheet and row.
func TestParseReaderProblems(t *testing.T) {
	t.Parallel()
	b := oneSheet(`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c></row>` +
		`<row r="2"><c t="inlineStr"><is><t>2024-01-02</t></is></c><c><v>5</v></c></row>` +
		`<row r="3"><c t="inlineStr"><is><t>2024-01-03</t></is></c><c><v>6</v></c><c t="s"><v>99</v></c></row>`)
	b.sst = []string{`<t>Date</t>`, `<t>Amount</t>`}
	st, err := Parse(b.build(t), statement.Options{})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 2)
	require.Len(t, st.Problems, 1)
	require.Equal(t, statement.Position{Sheet: "Sheet1", Line: 3}, st.Problems[0].Pos)
	require.Contains(t, st.Problems[0].Message, "shared string \"99\"")
}
