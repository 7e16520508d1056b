package expected

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

// zipOf returns a ZIP archive of the named files.
func zipOf(files map[string]string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, content := range files {
		f, err := w.Create(name)
		if err != nil {
			panic(err)
		}
		if _, err := f.Write([]byte(content)); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// xlsxOf writes a workbook with excelize: each sheet's rows from its top-left cell, a
// time.Time cell formatted as a date (excelize gives it a date number format).
func xlsxOf(t testing.TB, sheets []string, rows map[string][][]any) []byte {
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range sheets {
		if i == 0 {
			require.NoError(t, f.SetSheetName("Sheet1", name))
		} else {
			_, err := f.NewSheet(name)
			require.NoError(t, err)
		}
		for r, row := range rows[name] {
			for c, v := range row {
				if v == nil {
					continue
				}
				cell, err := excelize.CoordinatesToCellName(c+1, r+1)
				require.NoError(t, err)
				require.NoError(t, f.SetCellValue(name, cell, v))
			}
		}
	}
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}

func TestReadXLSX(t *testing.T) {
	due := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		sheets []string
		rows   map[string][][]any
		want   []string
	}{
		{"numeric cells are exact, text cells are read like CSV cells, date cells give due dates",
			[]string{"Invoices", "Other"},
			map[string][][]any{
				"Invoices": {
					{"Invoice Number", "Amount", "Currency", "Due Date", "Name"},
					{"INV-1", 1250.5, "EUR", due, "Acme"},
					{"INV-2", 0.1 + 0.2, "eur", nil, nil},
					{"INV-3", -1234.56, nil, "2024-12-31", nil},
					{"INV-4", 100, nil, nil, nil},
					{"INV-5", "1.250,50 EUR", nil, nil, nil},
					{10023, 12.345, nil, nil, nil},
					{"INV-7", 0.07, nil, nil, nil},
				},
				"Other": {{"junk", "more junk"}, {1, 2}},
			},
			[]string{
				"2|INV-1|1250.5|EUR|2024-03-05|Acme",
				"3|INV-2|0.3|EUR||",
				"4|INV-3|1234.56||2024-12-31|",
				"5|INV-4|100|||",
				"6|INV-5|1250.5|EUR||",
				"7|10023|12.345|||",
				"8|INV-7|0.07|||",
			}},
		{"rows are the sheet's row numbers, with blank rows skipped and the header anywhere",
			[]string{"Sheet"},
			map[string][][]any{"Sheet": {
				nil,
				{nil, nil},
				{nil, "ref", "sum"},
				{nil, "A", 1},
				nil,
				{nil, "B", 2},
			}},
			[]string{"4|A|1|||", "6|B|2|||"}},
		{"an empty first sheet is passed over for the next",
			[]string{"Cover", "Data"},
			map[string][][]any{"Data": {{"reference", "total"}, {"A", 3}}},
			[]string{"2|A|3|||"}},
		{"a header-only sheet is an empty list",
			[]string{"Data", "More"},
			map[string][][]any{"Data": {{"reference", "amount"}}, "More": {{"reference", "amount"}, {"A", 1}}},
			[]string{}},
		{"text amounts decide the decimal mark; numeric cells do not",
			[]string{"Data"},
			map[string][][]any{"Data": {{"reference", "amount"}, {"A", 1250.5}, {"B", "1,250"}, {"C", "12,5"}}},
			[]string{"2|A|1250.5|||", "3|B|1.25|||", "4|C|12.5|||"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := xlsxOf(t, tt.sheets, tt.rows)
			rows, err := Read(data, statement.Options{})
			require.NoError(t, err)
			require.NotNil(t, rows)
			require.Equal(t, tt.want, brief(rows))
			require.NoError(t, Check(data, statement.Options{}))
		})
	}
	t.Run("1250.5 is exactly 1250.5, with no float in between", func(t *testing.T) {
		data := xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1250.5}, {"B", 0.1 + 0.2}}})
		rows, err := Read(data, statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "1250.5", rows[0].Amount.String())
		require.Equal(t, int32(-1), rows[0].Amount.Exponent())
		require.Equal(t, "0.3", rows[1].Amount.String())
	})
}

func TestReadXLSXRefuses(t *testing.T) {
	tests := []struct {
		name   string
		data   func(t testing.TB) []byte
		opts   statement.Options
		kind   error
		msg    string
		header bool
	}{
		{"a sheet without a reference column is refused naming its header row",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {nil, {"Date", "Amount"}, {"x", 1}}})
			}, statement.Options{}, ErrInvalid,
			`no reference column: the header row (row 2) has none of reference, ref, invoice, invoice_number, payment_reference (its columns are "Date", "Amount")`,
			true},
		{"a bad amount cell is refused naming its sheet row",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}, nil, {"B", "n/a"}}})
			}, statement.Options{}, ErrInvalid, `row 4: amount "n/a" is not a decimal number`, false},
		{"a workbook with only empty sheets is refused as empty",
			func(t testing.TB) []byte { return xlsxOf(t, []string{"S", "T"}, nil) },
			statement.Options{}, ErrInvalid, "the file is empty", true},
		{"more rows than the limit make the file too large",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}, {"B", 2}, {"C", 3}}})
			}, statement.Options{MaxRows: 2}, ErrTooLarge, "the file has more than 2 rows, the limit", false},
		{"a workbook expanding past the decompressed size limit is too large",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}}})
			}, statement.Options{MaxDecompressedBytes: 1000}, ErrTooLarge,
			"the file is too large: the workbook expands to more than 1000 bytes", true},
		{"an encrypted workbook is refused as encrypted",
			func(t testing.TB) []byte {
				return cfbFile(map[string][]byte{"EncryptionInfo": {1, 2, 3, 4}, "EncryptedPackage": {5, 6, 7, 8}},
					[]string{"EncryptionInfo", "EncryptedPackage"})
			}, statement.Options{}, ErrInvalid, "the workbook is encrypted: save it without a password", true},
		{"a Word document is refused as not CSV or Excel",
			func(t testing.TB) []byte {
				return cfbFile(map[string][]byte{"WordDocument": {1, 2, 3, 4}}, []string{"WordDocument"})
			}, statement.Options{}, ErrInvalid,
			"not a CSV or Excel file: an OLE2 compound file that is not an Excel workbook (a Word document)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			_, err := Read(data, tt.opts)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, tt.kind)
			require.Equal(t, tt.msg, err.Error())
			if tt.header {
				require.Equal(t, err, Check(data, tt.opts))
			} else {
				require.NoError(t, Check(data, tt.opts))
			}
		})
	}
}

func TestReadXLS(t *testing.T) {
	t.Run("an xls workbook is read with exact numbers and date cells", func(t *testing.T) {
		sst := biffRec(recSST, u32(3), u32(3), xlStr("Invoice", false), xlStr("Amount", false), xlStr("Société", true))
		globals := [][]byte{
			biffRec(recCODEPAGE, u16(1200)),
			biffRec(recXF, u16(0), u16(0), make([]byte, 16)),
			biffRec(recXF, u16(0), u16(14), make([]byte, 16)), // a date format
			sst,
		}
		sheet := [][]byte{
			biffRec(recLABELSST, cellHdr(0, 0, 0), u32(0)),
			biffRec(recLABELSST, cellHdr(0, 1, 0), u32(1)),
			biffRec(recLABEL, cellHdr(0, 2, 0), xlStr("Due Date", false)),
			biffRec(recLABEL, cellHdr(0, 3, 0), xlStr("Name", false)),
			biffRec(recLABEL, cellHdr(1, 0, 0), xlStr("INV-1", false)),
			biffRec(recNUMBER, cellHdr(1, 1, 0), f64(1250.5)),
			biffRec(recNUMBER, cellHdr(1, 2, 1), f64(45356)), // 2024-03-05
			biffRec(recLABELSST, cellHdr(1, 3, 0), u32(2)),
			biffRec(recLABEL, cellHdr(3, 0, 0), xlStr("INV-2", false)),
			biffRec(recNUMBER, cellHdr(3, 1, 0), f64(0.1+0.2)),
			biffRec(recRK, cellHdr(4, 0, 0), rkInt(4711, false)),
			biffRec(recRK, cellHdr(4, 1, 0), rkInt(-12345, true)),
		}
		data := cfbFile(map[string][]byte{"Workbook": biffBook(globals, []string{"Invoices"}, [][][]byte{sheet})}, []string{"Workbook"})
		rows, err := Read(data, statement.Options{})
		require.NoError(t, err)
		require.Equal(t, []string{
			"2|INV-1|1250.5||2024-03-05|Société",
			"4|INV-2|0.3|||",
			"5|4711|123.45|||",
		}, brief(rows))
		require.NoError(t, Check(data, statement.Options{}))
	})
	t.Run("a bank statement xls is refused for its missing reference column", func(t *testing.T) {
		data, err := os.ReadFile("../statement/excel/testdata/corpus/abarbatei__bankreader__Extras_de_cont_12345678_20012018_31012018.xls")
		require.NoError(t, err)
		_, err = Read(data, statement.Options{})
		require.ErrorIs(t, err, ErrInvalid)
		require.Contains(t, err.Error(), "no reference column: the header row (row 1) has none of reference, ref, invoice, invoice_number, payment_reference")
		require.Equal(t, err, Check(data, statement.Options{}))
	})
}

// BIFF8 and OLE2 writers, after the excel package's test helpers: the xls reader is tested on
// workbooks made to order.

const (
	recEOF        = 0x000A
	recCODEPAGE   = 0x0042
	recBOUNDSHEET = 0x0085
	recXF         = 0x00E0
	recSST        = 0x00FC
	recLABELSST   = 0x00FD
	recNUMBER     = 0x0203
	recLABEL      = 0x0204
	recRK         = 0x027E
	recBOF        = 0x0809
	biff8         = 0x0600
)

func biffRec(typ uint16, data ...[]byte) []byte {
	body := bytes.Join(data, nil)
	out := binary.LittleEndian.AppendUint16(nil, typ)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(body)))
	return append(out, body...)
}

func u16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func u32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func f64(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

func xlStr(s string, wide bool) []byte {
	units := utf16.Encode([]rune(s))
	out := u16(len(units))
	if !wide {
		out = append(out, 0)
		for _, u := range units {
			out = append(out, byte(u))
		}
		return out
	}
	out = append(out, 1)
	for _, u := range units {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

func shortStr(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := []byte{byte(len(units)), 1}
	for _, u := range units {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

func cellHdr(row, col, xf int) []byte { return bytes.Join([][]byte{u16(row), u16(col), u16(xf)}, nil) }

func rkInt(v int, x100 bool) []byte {
	rk := uint32(int32(v)<<2) | 2
	if x100 {
		rk |= 1
	}
	return u32(int(rk))
}

func biffBook(globals [][]byte, sheetNames []string, sheets [][][]byte) []byte {
	g := biffRec(recBOF, u16(biff8), u16(0x0005), make([]byte, 12))
	for _, r := range globals {
		g = append(g, r...)
	}
	bsLen := 0
	for _, n := range sheetNames {
		bsLen += len(biffRec(recBOUNDSHEET, u32(0), []byte{0, 0}, shortStr(n)))
	}
	eof := biffRec(recEOF)
	off := len(g) + bsLen + len(eof)
	var subs []byte
	for i, n := range sheetNames {
		g = append(g, biffRec(recBOUNDSHEET, u32(off+len(subs)), []byte{0, 0}, shortStr(n))...)
		subs = append(subs, biffRec(recBOF, u16(biff8), u16(0x0010), make([]byte, 12))...)
		for _, r := range sheets[i] {
			subs = append(subs, r...)
		}
		subs = append(subs, eof...)
	}
	g = append(g, eof...)
	return append(g, subs...)
}

// cfbFile wraps streams in a version 3 compound file: a FAT sector, a directory sector and the
// streams in regular sectors (each padded to 4096 bytes, the mini-stream cutoff).
func cfbFile(streams map[string][]byte, order []string) []byte {
	const sector = 512
	const (
		freeSect   = 0xFFFFFFFF
		endOfChain = 0xFFFFFFFE
		fatSect    = 0xFFFFFFFD
		noStream   = 0xFFFFFFFF
	)
	header := make([]byte, sector)
	copy(header, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	binary.LittleEndian.PutUint16(header[24:], 0x3E)
	binary.LittleEndian.PutUint16(header[26:], 3)
	binary.LittleEndian.PutUint16(header[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(header[30:], 9)
	binary.LittleEndian.PutUint16(header[32:], 6)
	binary.LittleEndian.PutUint32(header[44:], 1)
	binary.LittleEndian.PutUint32(header[48:], 1)
	binary.LittleEndian.PutUint32(header[56:], 4096)
	binary.LittleEndian.PutUint32(header[60:], endOfChain)
	binary.LittleEndian.PutUint32(header[68:], endOfChain)
	binary.LittleEndian.PutUint32(header[76:], 0)
	for i := 80; i < sector; i += 4 {
		binary.LittleEndian.PutUint32(header[i:], freeSect)
	}
	fat := make([]uint32, sector/4)
	for i := range fat {
		fat[i] = freeSect
	}
	fat[0], fat[1] = fatSect, endOfChain
	dir := make([]byte, 0, 4*128)
	entry := func(name string, typ byte, child, right uint32, start uint32, size int) []byte {
		e := make([]byte, 128)
		units := utf16.Encode([]rune(name))
		for i, u := range units {
			binary.LittleEndian.PutUint16(e[2*i:], u)
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*(len(units)+1)))
		e[66], e[67] = typ, 1
		binary.LittleEndian.PutUint32(e[68:], noStream)
		binary.LittleEndian.PutUint32(e[72:], right)
		binary.LittleEndian.PutUint32(e[76:], child)
		binary.LittleEndian.PutUint32(e[116:], start)
		binary.LittleEndian.PutUint32(e[120:], uint32(size))
		return e
	}
	dir = append(dir, entry("Root Entry", 5, 1, noStream, endOfChain, 0)...)
	var data []byte
	next := uint32(2)
	for i, name := range order {
		s := streams[name]
		padded := append([]byte(nil), s...)
		for len(padded) < 4096 || len(padded)%sector != 0 {
			padded = append(padded, 0)
		}
		n := uint32(len(padded) / sector)
		for k := uint32(0); k < n; k++ {
			fat[next+k] = next + k + 1
		}
		fat[next+n-1] = endOfChain
		right := uint32(noStream)
		if i+1 < len(order) {
			right = uint32(i + 2)
		}
		dir = append(dir, entry(name, 2, noStream, right, next, len(padded))...)
		data = append(data, padded...)
		next += n
	}
	for len(dir)%sector != 0 {
		dir = append(dir, make([]byte, 128)...)
	}
	out := append([]byte(nil), header...)
	for _, v := range fat {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, dir[:sector]...)
	return append(out, data...)
}
