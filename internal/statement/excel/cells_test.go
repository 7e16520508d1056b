package excel

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

// sheetLines reads one sheet (by its index in workbook order) as "line: cell|cell|..." rows.
// An xlsx sheet is read twice, held and streamed (read again from the file, as Stream reads
// it), and the two must agree.
func sheetLines(t testing.TB, data []byte, opts statement.Options, index int) ([]string, workbook, error) {
	t.Helper()
	lines, wb, err := readLines(t, data, opts, index, false)
	if _, ok := wb.(*xlsxBook); ok {
		streamed, _, serr := readLines(t, data, opts, index, true)
		require.Equal(t, fmt.Sprint(err), fmt.Sprint(serr), "a streamed sheet fails as a held one does")
		require.Equal(t, lines, streamed, "a streamed sheet reads as a held one does")
		require.Equal(t, streamed, func() []string { again, _, _ := readLines(t, data, opts, index, true); return again }(),
			"and again")
	}
	return lines, wb, err
}

func readLines(t testing.TB, data []byte, opts statement.Options, index int, stream bool) ([]string, workbook, error) {
	t.Helper()
	wb, err := openWorkbook(data, opts.WithDefaults())
	if err != nil {
		return nil, nil, err
	}
	if xb, ok := wb.(*xlsxBook); ok {
		xb.stream = stream
	}
	sh, err := wb.readSheetAt(index)
	if err != nil {
		return nil, wb, err
	}
	v, err := newView(sh, wb.format())
	if err != nil {
		return nil, wb, err
	}
	lines := viewLines(v)
	if stream {
		// A view is read more than once; the second reading is the sheet's again.
		require.Equal(t, lines, viewLines(v))
	}
	return lines, wb, nil
}

func viewLines(v *sheetView) []string {
	var out []string
	v.rows(func(line int, cells []string, _ []bool, _ bool) bool {
		out = append(out, itoa(line)+": "+strings.Join(cells, "|"))
		return true
	})
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestXLSXCells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  func(t testing.TB) []byte
		sheet string
		want  []string
	}{
		{
			name: "serial dates with built-in and custom date formats become ISO dates",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					iso, dmy := style(t, f, 14, ""), style(t, f, 0, "dd.mm.yyyy")
					setRows(t, f, "Sheet1", [][]any{
						{"Date", "Value date", "Amount"},
						{excelize.Cell{StyleID: iso, Value: 43101}, excelize.Cell{StyleID: dmy, Value: 43132}, -12.5},
						{excelize.Cell{StyleID: iso, Value: 43465}, excelize.Cell{StyleID: dmy, Value: 43466.75}, 100},
					})
				})
			},
			want: []string{"1: Date|Value date|Amount", "2: 2018-01-01|2018-02-01|-12.5", "3: 2018-12-31|2019-01-01|100"},
		},
		{
			name: "a date-formatted column next to a plain number column of the same values",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					d := style(t, f, 0, "yyyy-mm-dd")
					setRows(t, f, "Sheet1", [][]any{
						{"Booked", "Serial", "Amount"},
						{excelize.Cell{StyleID: d, Value: 45000}, 45000, 1.5},
						{excelize.Cell{StyleID: d, Value: 45001}, 45001, 2},
					})
				})
			},
			want: []string{"1: Booked|Serial|Amount", "2: 2023-03-15|45000|1.5", "3: 2023-03-16|45001|2"},
		},
		{
			name: "text amounts stay text for the table layer",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					setRows(t, f, "Sheet1", [][]any{
						{"Datum", "Betrag"},
						{"31.01.2018", "1.234,56"},
						{"01.02.2018", "-0,50 EUR"},
					})
				})
			},
			want: []string{"1: Datum|Betrag", "2: 31.01.2018|1.234,56", "3: 01.02.2018|-0,50 EUR"},
		},
		{
			name: "a preamble above the header and empty rows keep their line numbers",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					must(t, f.SetCellValue("Sheet1", "A1", "Account statement"))
					must(t, f.SetCellValue("Sheet1", "A2", "IBAN"))
					must(t, f.SetCellValue("Sheet1", "B2", "DE89370400440532013000"))
					must(t, f.SetSheetRow("Sheet1", "A5", &[]any{"Date", "Text", "Amount"}))
					must(t, f.SetSheetRow("Sheet1", "A6", &[]any{"2024-01-02", "Coffee", -3.2}))
					must(t, f.SetSheetRow("Sheet1", "A8", &[]any{"2024-01-03", "Salary", 2500}))
				})
			},
			want: []string{"1: Account statement", "2: IBAN|DE89370400440532013000", "5: Date|Text|Amount", "6: 2024-01-02|Coffee|-3.2", "8: 2024-01-03|Salary|2500"},
		},
		{
			name:  "of two sheets, the one with the transactions is chosen",
			sheet: "Transactions",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					setRows(t, f, "Sheet1", [][]any{{"Summary"}, {"Account", "12345"}, {"Closing balance", 250}})
					_, err := f.NewSheet("Transactions")
					must(t, err)
					setRows(t, f, "Transactions", [][]any{
						{"Date", "Amount"}, {"02/01/2024", 10}, {"03/01/2024", -5},
					})
				})
			},
			want: []string{"1: Date|Amount", "2: 02/01/2024|10", "3: 03/01/2024|-5"},
		},
		{
			name: "the 1904 date system counts from 1904-01-01",
			data: func(t testing.TB) []byte {
				return rawBook{
					date1904: true,
					xfFmts:   []int{0, 14},
					sheets: []rawSheet{{name: "Sheet1", xml: sheetXML(
						`<row r="1"><c r="A1" s="1"><v>0</v></c><c r="B1"><v>1</v></c></row>` +
							`<row r="2"><c r="A2" s="1"><v>41639</v></c><c r="B2"><v>2</v></c></row>`)}},
				}.build(t)
			},
			want: []string{"1: 1904-01-01|1", "2: 2018-01-01|2"},
		},
		{
			name: "the 1900 leap-year bug: serial 59 is 28 Feb, 60 the nonexistent 29 Feb, 61 is 1 Mar",
			data: func(t testing.TB) []byte {
				return rawBook{xfFmts: []int{0, 14}, sheets: []rawSheet{{name: "S", xml: sheetXML(
					`<row r="1"><c r="A1" s="1"><v>1</v></c><c r="B1" s="1"><v>59</v></c><c r="C1" s="1"><v>60</v></c><c r="D1" s="1"><v>61</v></c></row>`)}}}.build(t)
			},
			want: []string{"1: 1900-01-01|1900-02-28|1900-02-29|1900-03-01"},
		},
		{
			name: "formulas show their cached values: numbers, strings, booleans, errors; uncalculated ones are empty",
			data: func(t testing.TB) []byte {
				return rawBook{xfFmts: []int{0, 14}, sheets: []rawSheet{{name: "S", xml: sheetXML(
					`<row r="1"><c r="A1" s="1"><f>DATE(2024,2,29)</f><v>45351</v></c><c r="B1"><f>0.1+0.2</f><v>0.30000000000000004</v></c>` +
						`<c r="C1" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="D1" t="b"><f>TRUE()</f><v>1</v></c>` +
						`<c r="E1" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="F1"><f>A1+1</f></c><c r="G1"><v>7</v></c></row>`)}}}.build(t)
			},
			want: []string{"1: 2024-02-29|0.3|ab|TRUE|#DIV/0!|7"},
		},
		{
			name: "shared strings with rich text runs and phonetic readings, inline strings, escapes",
			data: func(t testing.TB) []byte {
				b := oneSheet(
					`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>inline &amp; more</t></is></c>` +
						`<c r="D1" t="s"><v>2</v></c><c r="E1" t="s"><v>3</v></c></row>`)
				b.sst = []string{
					`<t>plain</t>`,
					`<r><rPr><b/></rPr><t>rich </t></r><r><t xml:space="preserve">text</t></r><rPh sb="0" eb="1"><t>ふりがな</t></rPh><phoneticPr fontId="1"/>`,
					`<t>line_x000D_&#10;two _x005F_x0041_</t>`,
					`<t><![CDATA[<cdata>]]></t>`,
				}
				return b.build(t)
			},
			want: []string{"1: plain|rich text|inline & more|line\r\ntwo _x0041_|<cdata>"},
		},
		{
			name: "numbers are plain decimals with every digit Excel shows",
			data: func(t testing.TB) []byte {
				return oneSheet(`<row r="1"><c r="A1"><v>1234.5678</v></c><c r="B1"><v>1.5E-3</v></c><c r="C1"><v>-1.2345678901234567E+19</v></c>` +
					`<c r="D1"><v>12345678901234</v></c><c r="E1"><v>99.999999999999986</v></c><c r="F1"><v>0</v></c></row>`).build(t)
			},
			want: []string{"1: 1234.5678|0.0015|-12345678901234600000|12345678901234|100|0"},
		},
		{
			name: "a vertical merge shows its value on every row it covers, a horizontal one only once",
			data: func(t testing.TB) []byte {
				return xlsxFile(t, func(f *excelize.File) {
					setRows(t, f, "Sheet1", [][]any{
						{"Date", "Description", nil, nil, "Amount"},
						{"2024-03-01", "Rent", nil, nil, -900},
						{nil, "Groceries", nil, nil, -45.1},
						{nil, "Refund", nil, nil, 12},
					})
					must(t, f.MergeCell("Sheet1", "B1", "D1"))
					must(t, f.MergeCell("Sheet1", "A2", "A4"))
					must(t, f.MergeCell("Sheet1", "B2", "D2"))
				})
			},
			want: []string{"1: Date|Description|Amount", "2: 2024-03-01|Rent|-900", "3: 2024-03-01|Groceries|-45.1", "4: 2024-03-01|Refund|12"},
		},
		{
			name: "prefixed SpreadsheetML (x:row, x:c) as the .NET Open XML SDK writes it",
			data: func(t testing.TB) []byte {
				return rawBook{sheets: []rawSheet{{name: "S", xml: `<?xml version="1.0"?><x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>` +
					`<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>Date</x:t></x:is></x:c><x:c r="B1"><x:v>5</x:v></x:c></x:row>` +
					`</x:sheetData></x:worksheet>`}}}.build(t)
			},
			want: []string{"1: Date|5"},
		},
		{
			name: "cells without references follow each other; spacer columns are dropped",
			data: func(t testing.TB) []byte {
				return oneSheet(`<row><c t="inlineStr"><is><t>a</t></is></c><c/><c><v>1</v></c></row>` +
					`<row><c t="inlineStr"><is><t>b</t></is></c><c r="E2"><v>2</v></c></row>`).build(t)
			},
			want: []string{"1: a|1", "2: b||2"},
		},
		{
			name:  "a hidden sheet is considered only after the visible ones",
			sheet: "Visible",
			data: func(t testing.TB) []byte {
				rows := `<row r="1"><c t="inlineStr"><is><t>Date</t></is></c><c t="inlineStr"><is><t>Amount</t></is></c></row>` +
					`<row r="2"><c t="inlineStr"><is><t>2024-01-01</t></is></c><c><v>1</v></c></row><row r="3"><c t="inlineStr"><is><t>2024-01-02</t></is></c><c><v>2</v></c></row>`
				return rawBook{sheets: []rawSheet{{name: "Hidden", state: "hidden", xml: sheetXML(rows)}, {name: "Visible", xml: sheetXML(rows)}}}.build(t)
			},
			want: []string{"1: Date|Amount", "2: 2024-01-01|1", "3: 2024-01-02|2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := tt.data(t)
			index := 0
			if tt.sheet != "" {
				// The sheet Parse chooses, and its rows.
				st, err := Parse(data, statement.Options{})
				require.NoError(t, err)
				require.Contains(t, st.Dialect, ";sheet="+tt.sheet+";")
				index = 1
			}
			got, _, err := sheetLines(t, data, statement.Options{}, index)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestXLSXTooManyRows(t *testing.T) {
	t.Parallel()
	data := xlsxFile(t, func(f *excelize.File) {
		for i := 1; i <= 11; i++ {
			must(t, f.SetSheetRow("Sheet1", "A"+itoa(i), &[]any{"2024-01-01", i}))
		}
	})
	_, _, err := sheetLines(t, data, statement.Options{MaxRows: 10}, 0)
	require.ErrorIs(t, err, statement.ErrTooManyRows)
	got, _, err := sheetLines(t, data, statement.Options{MaxRows: 11}, 0)
	require.NoError(t, err)
	require.Len(t, got, 11)
}

func TestXLSXProblems(t *testing.T) {
	t.Parallel()
	data := oneSheet(`<row r="1"><c r="A1" t="s"><v>7</v></c><c r="B1"><v>1</v></c><c r="ZZZZ1"><v>2</v></c></row>` +
		`<row r="x"><c r="A2"><v>3</v></c></row>`).build(t)
	got, wb, err := sheetLines(t, data, statement.Options{}, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"1: |1", "2: 3"}, got)
	var msgs []string
	for _, p := range wb.problemList() {
		msgs = append(msgs, p.Pos.String()+": "+p.Message)
	}
	require.Equal(t, []string{
		`sheet Sheet1, line 1: cell A1 refers to shared string "7", which xl/sharedStrings.xml does not have`,
		`sheet Sheet1, line 1: cell reference "ZZZZ1" is not a cell; the cell is skipped`,
		`sheet Sheet1, line 2: row number "x" is not a row number`,
	}, msgs)
}

// TestXLSXHostile feeds every prefix of a workbook and thousands of byte-flipped copies to the
// parser: each must end in a result or an error, promptly, without a panic.
func TestXLSXHostile(t *testing.T) {
	t.Parallel()
	base := germanStatement(t)
	for n := range len(base) {
		_, _ = Parse(base[:n], statement.Options{})
	}
	rng := rand.New(rand.NewSource(2))
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 3000 && time.Now().Before(deadline); i++ {
		m := append([]byte(nil), base...)
		for range 1 + rng.Intn(16) {
			m[rng.Intn(len(m))] = byte(rng.Intn(256))
		}
		_, _ = Parse(m, statement.Options{})
	}
}

// TestXLSXHugeCells checks the bounds on single cells and rows: a 10 MB cell text, a row of
// 16,384 cells, a cell at column XFD of every row, a million empty rows.
func TestXLSXHugeCells(t *testing.T) {
	t.Parallel()
	huge := oneSheet(`<row r="1"><c t="inlineStr"><is><t>` + strings.Repeat("x", 10<<20) + `</t></is></c></row>`).build(t)
	_, err := Parse(huge, statement.Options{})
	require.ErrorIs(t, err, statement.ErrResourceLimit)

	var wide strings.Builder
	wide.WriteString(`<row r="1">`)
	for range maxColumns {
		wide.WriteString(`<c><v>1</v></c>`)
	}
	wide.WriteString(`</row><row r="2"><c><v>2</v></c></row>`)
	got, _, err := sheetLines(t, oneSheet(wide.String()).build(t), statement.Options{}, 0)
	require.NoError(t, err)
	require.Len(t, got, 2)

	var far strings.Builder
	for r := 1; r <= 2000; r++ {
		fmt.Fprintf(&far, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="XFD%d"><v>1</v></c></row>`, r, r, r, r)
	}
	got, _, err = sheetLines(t, oneSheet(far.String()).build(t), statement.Options{}, 0)
	require.NoError(t, err)
	require.Equal(t, "2000: 2000|1", got[1999], "the empty columns between A and XFD are dropped")

	empty := oneSheet(strings.Repeat(`<row/>`, 1_000_000)).build(t)
	start := time.Now()
	_, err = Parse(empty, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNoTransactions)
	require.Less(t, time.Since(start), 10*time.Second)
}
