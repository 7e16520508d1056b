package excel

import (
	"bytes"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
)

const raiffeisenXLS = "testdata/corpus/abarbatei__bankreader__Extras_de_cont_12345678_20012018_31012018.xls"

func readCorpus(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// sampleBIFF is a workbook exercising every cell record the reader knows.
func sampleBIFF() []byte {
	// The fourth string crosses into a CONTINUE record, which switches to UTF-16 mid-string.
	sst := exceltest.BiffRec(recSST, exceltest.U32(4), exceltest.U32(4), exceltest.XLStr("Date", false), exceltest.XLStr("Amount", false), exceltest.XLStr("Zürich café", true),
		exceltest.U16(len([]rune("Payment ąč"))), []byte{0}, []byte("Payme"))
	sst = append(sst, exceltest.BiffRec(recCONTINUE, []byte{1}, utf16le("nt ąč"))...)
	globals := [][]byte{
		exceltest.BiffRec(recCODEPAGE, exceltest.U16(1200)),
		exceltest.BiffRec(recFORMAT, exceltest.U16(164), exceltest.XLStr("dd.mm.yyyy", false)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(0), make([]byte, 16)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(14), make([]byte, 16)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(164), make([]byte, 16)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(20), make([]byte, 16)),
		sst,
	}
	chart := append(exceltest.BiffRec(recBOF, exceltest.U16(biff8), exceltest.U16(0x0020), make([]byte, 12)), append(exceltest.BiffRec(recNUMBER, exceltest.CellHdr(0, 9, 0), exceltest.F64(99)), exceltest.BiffRec(recEOF)...)...)
	sheet := [][]byte{
		exceltest.BiffRec(recLABELSST, exceltest.CellHdr(0, 0, 0), exceltest.U32(0)),
		exceltest.BiffRec(recLABELSST, exceltest.CellHdr(0, 1, 0), exceltest.U32(1)),
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(0, 2, 0), exceltest.XLStr("Text", false)),
		// Cells out of row order, as BIFF row blocks allow.
		exceltest.BiffRec(recNUMBER, exceltest.CellHdr(2, 1, 0), exceltest.F64(-1234.56)),
		exceltest.BiffRec(recRK, exceltest.CellHdr(1, 0, 1), exceltest.RKInt(43101, false)),
		exceltest.BiffRec(recRK, exceltest.CellHdr(1, 1, 0), exceltest.RKInt(12345, true)),
		exceltest.BiffRec(recLABELSST, exceltest.CellHdr(1, 2, 0), exceltest.U32(2)),
		exceltest.BiffRec(recNUMBER, exceltest.CellHdr(2, 0, 2), exceltest.F64(43132)),
		exceltest.BiffRec(recLABELSST, exceltest.CellHdr(2, 2, 0), exceltest.U32(3)),
		exceltest.BiffRec(recMULRK, exceltest.U16(3), exceltest.U16(0), exceltest.U16(1), exceltest.RKInt(43133, false), exceltest.U16(0), exceltest.RKInt(-5, false), exceltest.U16(0), exceltest.RKInt(1, true), exceltest.U16(2)),
		exceltest.BiffRec(recFORMULA, exceltest.CellHdr(4, 0, 3), exceltest.F64(0.5625), exceltest.U16(0), exceltest.U32(0), exceltest.U16(0)),
		exceltest.BiffRec(recFORMULA, exceltest.CellHdr(4, 1, 0), []byte{0, 0, 0, 0, 0, 0, 0xFF, 0xFF}, exceltest.U16(0), exceltest.U32(0), exceltest.U16(0)),
		exceltest.BiffRec(0x04BC, make([]byte, 8)), // SHRFMLA between a FORMULA and its STRING
		exceltest.BiffRec(recSTRING, exceltest.XLStr("from formula", false)),
		exceltest.BiffRec(recFORMULA, exceltest.CellHdr(4, 2, 0), []byte{1, 0, 1, 0, 0, 0, 0xFF, 0xFF}, exceltest.U16(0), exceltest.U32(0), exceltest.U16(0)),
		exceltest.BiffRec(recFORMULA, exceltest.CellHdr(4, 3, 0), []byte{2, 0, 0x2A, 0, 0, 0, 0xFF, 0xFF}, exceltest.U16(0), exceltest.U32(0), exceltest.U16(0)),
		exceltest.BiffRec(recBOOLERR, exceltest.CellHdr(5, 0, 0), []byte{0, 0}),
		exceltest.BiffRec(recBOOLERR, exceltest.CellHdr(5, 1, 0), []byte{0x07, 1}),
		exceltest.BiffRec(recNUMBER, exceltest.CellHdr(5, 2, 0), exceltest.F64(0.1+0.2)),
		exceltest.BiffRec(recLABELSST, exceltest.CellHdr(6, 0, 0), exceltest.U32(9)), // no such shared string
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(6, 1, 0), exceltest.XLStr("ok", false)),
		chart,
		exceltest.BiffRec(recMERGEDCELLS, exceltest.U16(1), exceltest.U16(7), exceltest.U16(8), exceltest.U16(0), exceltest.U16(0)),
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(7, 0, 0), exceltest.XLStr("merged", false)),
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(8, 1, 0), exceltest.XLStr("below", false)),
	}
	return exceltest.BiffBook(globals, []string{"Extras"}, [][][]byte{sheet})
}

func utf16le(s string) []byte {
	var out []byte
	for _, r := range s {
		out = append(out, exceltest.U16(int(r))...)
	}
	return out
}

func TestXLSCells(t *testing.T) {
	t.Parallel()
	got, wb, err := sheetLines(t, xlsFile(sampleBIFF()), statement.Options{}, 0)
	require.NoError(t, err)
	name, hidden := wb.sheetInfo(0)
	require.Equal(t, "Extras", name)
	require.False(t, hidden)
	require.Equal(t, "xls;biff8;codepage=1200", wb.dialect())
	require.Equal(t, []string{
		"1: Date|Amount|Text",
		"2: 2018-01-01|123.45|Zürich café",
		"3: 2018-02-01|-1234.56|Payment ąč",
		"4: 2018-02-02|-5|0.01",
		"5: 13:30:00|from formula|TRUE|#N/A",
		"6: FALSE|#DIV/0!|0.3",
		"7: |ok",
		"8: merged",
		"9: merged|below",
	}, got)
	require.Len(t, wb.problemList(), 1)
	require.Equal(t, "cell A7 refers to shared string 9, which the workbook does not have", wb.problemList()[0].Message)
}

func TestXLSDate1904(t *testing.T) {
	t.Parallel()
	stream := exceltest.BiffBook([][]byte{
		exceltest.BiffRec(recDATEMODE, exceltest.U16(1)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(0), make([]byte, 16)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(14), make([]byte, 16)),
	}, []string{"S"}, [][][]byte{{
		exceltest.BiffRec(recRK, exceltest.CellHdr(0, 0, 1), exceltest.RKInt(41639, false)),
		exceltest.BiffRec(recRK, exceltest.CellHdr(0, 1, 0), exceltest.RKInt(41639, false)),
	}})
	got, wb, err := sheetLines(t, xlsFile(stream), statement.Options{}, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"1: 2018-01-01|41639"}, got)
	require.Contains(t, wb.dialect(), "date1904")
}

func TestXLSRaiffeisenTable(t *testing.T) {
	t.Parallel()
	got, wb, err := sheetLines(t, readCorpus(t, raiffeisenXLS), statement.Options{}, 0)
	require.NoError(t, err)
	require.Empty(t, wb.problemList())
	name, _ := wb.sheetInfo(0)
	require.Equal(t, "Pagina 1", name)
	require.Len(t, got, 17)
	require.Equal(t, "12: Cod IBAN:|RO69RZBR1234567890123456|Tip cont:|curent|Valuta:|LEI", got[7])
	require.Equal(t, "19: 22/01/2018|22/01/2018|100|||||||||Payment 1 |Card nr. XXXX XXXX XXXX 1234 |Data utilizarii cardului 18/01/2018", got[11])
	require.Equal(t, "21: 22/01/2018|22/01/2018|70.5|||||||||Payment 3 |Card nr. XXXX XXXX XXXX 1234 |Data utilizarii cardului 19/01/2018", got[13])
}

func TestXLSRowLimit(t *testing.T) {
	t.Parallel()
	var cells [][]byte
	for r := range 5 {
		cells = append(cells, exceltest.BiffRec(recRK, exceltest.CellHdr(r, 0, 0), exceltest.RKInt(r, false)))
	}
	data := xlsFile(exceltest.BiffBook(nil, []string{"S"}, [][][]byte{cells}))
	_, _, err := sheetLines(t, data, statement.Options{MaxRows: 4}, 0)
	require.ErrorIs(t, err, statement.ErrTooManyRows)
	_, _, err = sheetLines(t, data, statement.Options{MaxRows: 5}, 0)
	require.NoError(t, err)
}

func TestOLE2Kinds(t *testing.T) {
	t.Parallel()
	raif := readCorpus(t, raiffeisenXLS)
	encrypted := xlsxFile(t, func(f *excelize.File) { must(t, f.SetCellValue("Sheet1", "A1", "secret")) })
	{
		f, err := excelize.OpenReader(bytes.NewReader(encrypted))
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, f.Write(&buf, excelize.Options{Password: "pw"}))
		encrypted = buf.Bytes()
	}
	// The Raiffeisen file with its INTERFACEHDR record (right after the globals' BOF) turned
	// into FILEPASS, the record of a password-protected BIFF8 workbook.
	filepass := append([]byte(nil), raif...)
	bof := bytes.Index(filepass, []byte{0x09, 0x08, 0x10, 0x00, 0x00, 0x06, 0x05, 0x00})
	require.Positive(t, bof)
	filepass[bof+20] = 0x2F
	filepass[bof+21] = 0x00
	// The Raiffeisen file with its Workbook stream renamed WordDocument.
	word := append([]byte(nil), raif...)
	name := bytes.Index(word, utf16le("Workbook"))
	require.Positive(t, name)
	copy(word[name:], utf16le("WordDocument\x00"))
	word[name+64] = 26
	tests := []struct {
		name string
		data []byte
		kind error
		msg  string
	}{
		{"an encrypted OOXML workbook", encrypted, statement.ErrEncrypted, "xlsx: the workbook is encrypted with a password; save it without one: file is encrypted or password-protected"},
		{"a BIFF8 workbook with FILEPASS", filepass, statement.ErrEncrypted, "xls: the workbook is encrypted with a password; save it without one: file is encrypted or password-protected"},
		{"a Word document", word, statement.ErrNotAStatement, "xls: an OLE2 compound file that is not an Excel workbook (a Word document): not a supported bank statement"},
		{"an OLE2 header and nothing else", raif[:512], statement.ErrCorrupt, ""},
		{"an OLE2 magic followed by garbage", append(append([]byte(nil), magicOLE2...), bytes.Repeat([]byte{7}, 600)...), statement.ErrCorrupt, ""},
		{"a BIFF2 stream", xlsFile(exceltest.BiffRec(0x0009, exceltest.U16(2), exceltest.U16(0x10))), statement.ErrNotAStatement, ""},
		{"a workbook stream without EOF", xlsFile(exceltest.BiffRec(recBOF, exceltest.U16(biff8), exceltest.U16(5), make([]byte, 12))), statement.ErrCorrupt, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.data, statement.Options{})
			require.ErrorIs(t, err, tt.kind)
			if tt.msg != "" {
				require.EqualError(t, err, tt.msg)
			}
		})
	}
}

// TestXLSHostile feeds every prefix of the real file and thousands of byte-flipped copies to the
// reader: each must end in a result or an error, promptly, without a panic.
func TestXLSHostile(t *testing.T) {
	t.Parallel()
	raif := readCorpus(t, raiffeisenXLS)
	sample := xlsFile(sampleBIFF())
	for _, base := range [][]byte{raif, sample} {
		for n := 0; n < len(base); n += 1 + n/2000 {
			_, _ = Parse(base[:n], statement.Options{})
		}
		rng := rand.New(rand.NewSource(1))
		deadline := time.Now().Add(5 * time.Second)
		for i := 0; i < 3000 && time.Now().Before(deadline); i++ {
			m := append([]byte(nil), base...)
			for range 1 + rng.Intn(16) {
				// Flip bytes mostly inside the workbook stream, where the records are.
				m[rng.Intn(len(m))] = byte(rng.Intn(256))
			}
			_, _ = Parse(m, statement.Options{})
		}
	}
}

// TestBIFF5 reads an Excel 5.0/95 workbook ("Book" stream): 8-bit strings in the code page its
// CODEPAGE record names (here Windows-1250, Central European), LABEL cells, a BIFF5 FORMAT.
func TestBIFF5(t *testing.T) {
	t.Parallel()
	byteStr := func(s []byte, lenBytes int) []byte {
		if lenBytes == 1 {
			return append([]byte{byte(len(s))}, s...)
		}
		return append(exceltest.U16(len(s)), s...)
	}
	bof := func(dt int) []byte {
		return exceltest.BiffRec(recBOF, exceltest.U16(biff5), exceltest.U16(dt), make([]byte, 4))
	}
	globals := bytes.Join([][]byte{
		bof(0x0005),
		exceltest.BiffRec(recCODEPAGE, exceltest.U16(1250)),
		exceltest.BiffRec(recFORMAT, exceltest.U16(164), byteStr([]byte("dd.mm.yyyy"), 1)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(0), make([]byte, 12)),
		exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(164), make([]byte, 12)),
	}, nil)
	name := byteStr([]byte("V\xfdpis"), 1) // "Výpis" in Windows-1250
	boundLen := len(exceltest.BiffRec(recBOUNDSHEET, exceltest.U32(0), []byte{0, 0}, name))
	eof := exceltest.BiffRec(recEOF)
	offset := len(globals) + boundLen + len(eof)
	stream := bytes.Join([][]byte{
		globals,
		exceltest.BiffRec(recBOUNDSHEET, exceltest.U32(offset), []byte{0, 0}, name),
		eof,
		bof(0x0010),
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(0, 0, 0), byteStr([]byte("Datum"), 2)),
		exceltest.BiffRec(recLABEL, exceltest.CellHdr(0, 1, 0), byteStr([]byte("\xc8\xe1stka"), 2)), // "Částka"
		exceltest.BiffRec(recNUMBER, exceltest.CellHdr(1, 0, 1), exceltest.F64(45000)),
		exceltest.BiffRec(recNUMBER, exceltest.CellHdr(1, 1, 0), exceltest.F64(-99.9)),
		eof,
	}, nil)
	data := exceltest.CFBFile(map[string][]byte{"Book": stream}, []string{"Book"})
	got, wb, err := sheetLines(t, data, statement.Options{}, 0)
	require.NoError(t, err)
	require.Equal(t, "xls;biff5;codepage=1250", wb.dialect())
	name0, _ := wb.sheetInfo(0)
	require.Equal(t, "Výpis", name0)
	require.Equal(t, []string{"1: Datum|Částka", "2: 2023-03-15|-99.9"}, got)
}
