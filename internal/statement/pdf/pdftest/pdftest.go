// Package pdftest generates bank statement PDFs for tests and benchmarks: a bank's layout of a
// transaction table over any number of pages, with the fonts, encodings and encryption the PDF
// reader must handle, and the transactions it wrote to compare a parse with. It does not import
// package pdf, whose tests use it.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/stretchr/testify/require"
)

// Spec describes a generated statement PDF. Amounts are in cents so the generator's balances
// are exact. The zero value of a field means its default, where one is given.
type Spec struct {
	Pages       int    // pages of transactions; 3 by default
	RowsPerPage int    // transactions per page; 20 by default
	UTF8Font    string // path of a TTF: text in a Type0/Identity-H font with ToUnicode
	UserPass    string // encrypt with this user password ("" with Protect: empty password)
	Protect     bool
	NoCompress  bool
	CP1250      bool   // a core font with a /Differences encoding (Polish text)
	Opening     int64  // the opening balance in cents; 100000 by default
	DateFormat  string // Go layout of the date column; 02/01/2006 by default
	Signed      bool   // one signed Amount column instead of Debit and Credit
	HeaderOnce  bool   // the table header only on the first page
}

// Tx is one generated transaction.
type Tx struct {
	Date    time.Time
	Desc    string
	Wrap    string // second line of the description, "" when it fits one line
	Amount  int64  // cents, credit positive
	Balance int64  // cents, the running balance after the transaction
}

var descriptions = []string{
	"CARD PAYMENT TESCO STORES 2041",
	"SALARY ACME LTD MARCH",
	"DIRECT DEBIT BRITISH GAS",
	"TRANSFER TO J SMITH",
	"ATM WITHDRAWAL HIGH STREET",
	"STANDING ORDER RENT FLAT 2",
	"INTEREST PAID",
	"REFUND AMAZON MARKETPLACE",
}

// Transactions returns n transactions from 1 March 2024, four a day, after an opening balance
// (cents): two debits to one credit, some over a thousand, every fourth with a wrapped
// description.
func Transactions(n int, opening int64) []Tx {
	txs := make([]Tx, n)
	bal := opening
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range txs {
		amt := int64((i*7919)%50000 + 123)
		if i%3 != 1 {
			amt = -amt
		}
		if i%5 == 0 {
			amt *= 11 // some amounts over a thousand, with a thousands separator
		}
		bal += amt
		tx := Tx{
			Date:    start.AddDate(0, 0, i/4),
			Desc:    descriptions[i%len(descriptions)],
			Amount:  amt,
			Balance: bal,
		}
		if i%4 == 2 {
			tx.Wrap = fmt.Sprintf("REF %06d CONTINUED TEXT", i)
		}
		txs[i] = tx
	}
	return txs
}

// Money formats cents as 1,234.56 (negative with a leading minus), as the statements show
// amounts.
func Money(c int64) string {
	neg := c < 0
	if neg {
		c = -c
	}
	s := fmt.Sprintf("%d", c/100)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := fmt.Sprintf("%s.%02d", b.String(), c%100)
	if neg {
		out = "-" + out
	}
	return out
}

// Statement writes a statement PDF the way many banks lay one out: a preamble with the
// account, a table (date, description, debit, credit, balance) with its header repeated on
// each page, wrapped descriptions on a second line, an opening and a closing balance line,
// "continued" notes and page numbers in the footer. It returns the file and the transactions
// in it, Spec.Pages × Spec.RowsPerPage of them.
func Statement(t testing.TB, s Spec) ([]byte, []Tx) {
	t.Helper()
	if s.Pages == 0 {
		s.Pages = 3
	}
	if s.RowsPerPage == 0 {
		s.RowsPerPage = 20
	}
	if s.Opening == 0 {
		s.Opening = 100000
	}
	if s.DateFormat == "" {
		s.DateFormat = "02/01/2006"
	}
	txs := Transactions(s.Pages*s.RowsPerPage, s.Opening)
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC))
	pdf.SetCatalogSort(true)
	pdf.SetCompression(!s.NoCompress)
	pdf.SetAutoPageBreak(false, 15)
	if s.Protect {
		pdf.SetProtection(fpdf.CnProtectPrint, s.UserPass, "owner-secret")
	}
	family, tr := "Helvetica", func(s string) string { return s }
	if s.UTF8Font != "" {
		ttf, err := os.ReadFile(s.UTF8Font)
		require.NoError(t, err)
		pdf.AddUTF8FontFromBytes("DejaVu", "", ttf)
		pdf.AddUTF8FontFromBytes("DejaVu", "B", ttf)
		family = "DejaVu"
	}
	if s.CP1250 {
		// A TrueType font with a Windows-1250 /Differences encoding, as fpdf writes for
		// fonts made with its makefont tool. The font program is a stand-in: only the
		// encoding and widths matter for text extraction.
		def, prog := cp1250Font()
		pdf.AddFontFromBytes("ArialCE", "", def, prog)
		pdf.AddFontFromBytes("ArialCE", "B", def, prog)
		family = "ArialCE"
		tr = pdf.UnicodeTranslatorFromDescriptor("cp1250")
	}
	pdf.AliasNbPages("{nb}")
	pdf.SetFooterFunc(func() {
		pdf.SetY(-12)
		pdf.SetFont(family, "", 8)
		pdf.CellFormat(0, 5, fmt.Sprintf("Page %d of {nb}", pdf.PageNo()), "", 0, "C", false, 0, "")
	})
	type col struct {
		w     float64
		title string
		align string
	}
	cols := []col{{25, "Date", "L"}, {85, "Description", "L"}, {22, "Debit", "R"}, {22, "Credit", "R"}, {26, "Balance", "R"}}
	if s.Signed {
		cols = []col{{28, "Date", "L"}, {100, "Description", "L"}, {26, "Amount", "R"}, {26, "Balance", "R"}}
	}
	amounts := func(amount int64) []string {
		if s.Signed {
			return []string{Money(amount)}
		}
		if amount < 0 {
			return []string{Money(-amount), ""}
		}
		return []string{"", Money(amount)}
	}
	blank := make([]string, len(cols)-3)
	row := func(cells ...string) {
		for i, c := range cells {
			pdf.CellFormat(cols[i].w, 5, tr(c), "", 0, cols[i].align, false, 0, "")
		}
		pdf.Ln(5)
	}
	header := func() {
		pdf.SetFont(family, "B", 9)
		titles := make([]string, len(cols))
		for i, c := range cols {
			titles[i] = c.title
		}
		row(titles...)
		pdf.SetFont(family, "", 9)
	}
	k := 0
	for pg := 0; pg < s.Pages; pg++ {
		pdf.AddPage()
		pdf.SetFont(family, "B", 14)
		if pg == 0 {
			pdf.CellFormat(0, 8, "Example Bank plc", "", 1, "L", false, 0, "")
			pdf.SetFont(family, "", 10)
			holder := "Jane Doe"
			if s.CP1250 {
				holder = "Zażółć Gęślą Jaźń"
			}
			for _, l := range []string{
				"Statement of account",
				"Account holder: " + holder,
				"IBAN: GB33 BUKB 2020 1555 5555 55",
				"Statement period: 01/03/2024 to 31/03/2024",
				"Currency: GBP",
			} {
				pdf.CellFormat(0, 6, tr(l), "", 1, "L", false, 0, "")
			}
			pdf.Ln(4)
		} else {
			pdf.CellFormat(0, 8, "Example Bank plc - Statement of account (continued)", "", 1, "L", false, 0, "")
			pdf.Ln(2)
		}
		if pg == 0 || !s.HeaderOnce {
			header()
		} else {
			pdf.SetFont(family, "", 9)
		}
		if pg == 0 {
			row(append(append([]string{"", "Opening balance"}, blank...), Money(s.Opening))...)
		}
		for r := 0; r < s.RowsPerPage; r++ {
			tx := txs[k]
			k++
			desc := tx.Desc
			if s.CP1250 && k%2 == 0 {
				desc = "PRZELEW ŁÓDŹ ŻABKA"
				txs[k-1].Desc = desc
			}
			row(append(append([]string{tx.Date.Format(s.DateFormat), desc}, amounts(tx.Amount)...), Money(tx.Balance))...)
			if tx.Wrap != "" {
				row("", tx.Wrap)
			}
		}
		if pg == s.Pages-1 {
			row(append(append([]string{"", "Closing balance"}, blank...), Money(txs[len(txs)-1].Balance))...)
		} else {
			pdf.Ln(3)
			pdf.SetFont(family, "", 8)
			pdf.CellFormat(0, 5, "Continued on next page", "", 1, "R", false, 0, "")
		}
	}
	var buf bytes.Buffer
	require.NoError(t, pdf.Output(&buf))
	return buf.Bytes(), txs
}

// DejaVu is the path of a TrueType font of this machine (DejaVu Sans) for Spec.UTF8Font; ""
// when there is none.
func DejaVu() string {
	for _, p := range []string{
		"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
		"/usr/share/fonts/TTF/DejaVuSans.ttf",
		"/usr/share/fonts/dejavu/DejaVuSans.ttf",
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// cp1250Font is an fpdf font definition with Windows-1250 differences for the Polish letters.
func cp1250Font() (def, prog []byte) {
	cw := make([]string, 256)
	for i := range cw {
		cw[i] = "556"
	}
	cw[' '] = "278"
	def = []byte(`{"Tp":"TrueType","Name":"ArialCE","Desc":{"Ascent":728,"Descent":-210,"CapHeight":728,` +
		`"Flags":32,"FontBBox":{"Xmin":-665,"Ymin":-325,"Xmax":2028,"Ymax":1037},"ItalicAngle":0,"StemV":70,` +
		`"MissingWidth":750},"Up":-106,"Ut":73,"Cw":[` + strings.Join(cw, ",") + `],"Enc":"cp1250",` +
		`"Diff":"140 /Sacute 143 /Zacute 156 /sacute 159 /zacute 163 /Lslash 165 /Aogonek 175 /Zdotaccent ` +
		`179 /lslash 185 /aogonek 191 /zdotaccent 198 /Cacute 202 /Eogonek 209 /Nacute 230 /cacute 234 /eogonek 241 /nacute",` +
		`"File":"arialce.z","Size1":0,"Size2":0,"OriginalSize":4,"I":0,"N":0,"DiffN":0}`)
	return def, Deflate([]byte("font"))
}

// Deflate is data zlib-compressed, as a PDF's FlateDecode streams and fpdf's font files are.
func Deflate(data []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}

// Raw writes a PDF from object bodies (object i+1 is objs[i], the first the catalog) with a
// correct cross-reference table, so that tests can build
// exactly the broken structures they need. A body starting with "<<" and holding "\nstream\n"
// is written as is.
func Raw(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Compressed writes a PDF 1.5 from object bodies as Raw does, the way pdfTeX, qpdf
// --object-streams=generate and Acrobat's "reduced size" writers store them: every object
// that is not a stream goes into one object stream (/Type /ObjStm), and a cross-reference
// stream (/Type /XRef, /W [1 4 2]) replaces the xref table and trailer.
func Compressed(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	n := len(objs)
	stmNr, xrefNr := n+1, n+2
	type entry struct{ kind, f2, f3 int }
	entries := make([]entry, xrefNr+1)
	entries[0] = entry{0, 0, 65535}
	var prolog, body bytes.Buffer
	idx := 0
	for i, o := range objs {
		if strings.HasPrefix(o, "<<") && strings.Contains(o, "\nstream\n") {
			entries[i+1] = entry{1, b.Len(), 0}
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
			continue
		}
		fmt.Fprintf(&prolog, "%d %d ", i+1, body.Len())
		body.WriteString(o + "\n")
		entries[i+1] = entry{2, stmNr, idx}
		idx++
	}
	stm := Deflate(append(prolog.Bytes(), body.Bytes()...))
	entries[stmNr] = entry{1, b.Len(), 0}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n",
		stmNr, idx, prolog.Len(), len(stm), stm)
	xref := b.Len()
	entries[xrefNr] = entry{1, xref, 0}
	var rows []byte
	for _, e := range entries {
		rows = append(rows, byte(e.kind), byte(e.f2>>24), byte(e.f2>>16), byte(e.f2>>8), byte(e.f2), byte(e.f3>>8), byte(e.f3))
	}
	rows = Deflate(rows)
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n",
		xrefNr, xrefNr+1, len(rows), rows)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}
