// Package pdf reads bank statements from PDFs that have a text layer. It opens the file with
// pdfcpu (object model, filters, decryption with the empty user password), mending what pdfcpu
// cannot read as viewers do (repair.go rebuilds the cross-reference table), interprets each
// page's content stream to place every glyph on the page (text operators BT/ET, Tf, Td, TD, Tm,
// T*, TL, Tc, Tw, Tz, Ts, Tj, TJ, ' and ", with q/Q and cm for the CTM, and form XObjects),
// decodes text through ToUnicode CMaps and simple-font encodings, and rebuilds the statement's
// table from the positions: words into lines by baseline, lines into cells by gaps, cells into
// columns found from the header row and the alignment of amounts over the whole document. The
// table is then read like a spreadsheet.
//
// Scanned statements (images only) fail with statement.ErrNoTextLayer: there is no OCR.
package pdf

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// Parse reads a bank statement PDF that has a text layer. Statement.Dialect starts with what
// this package found ("pdf;pages=3;fonts=type1-winansi;columns=5"), followed by what package
// tabular found about the table. Transactions have Pos.Page and Pos.Line (the line's index on
// its page, from the top) and Raw, the rebuilt line: its text in the table's columns with
// " | " between them, empty columns included, and the lines of a wrapped description after a
// newline. Problems of the extraction itself (an undecodable content stream) come first in
// Statement.Problems.
//
// Failures: ErrNotAStatement without a %PDF- header, ErrPasswordRequired when a user password is
// needed and opts.Password is empty (ErrPasswordIncorrect when it does not open the file),
// ErrNoTextLayer when no page has text, ErrCorrupt for a file that cannot be read even through
// a rebuilt cross-reference table (Statement.Dialect says "repaired" when one was needed),
// ErrResourceLimit past the page, operator, word or Options.MaxDecompressedBytes limits; and
// those of tabular.Extract for the table.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	return parse(data, opts, maxHeldLines)
}

// Stream reads a PDF as Parse does, for a caller that stores the transactions as they pass:
// the table's rows are held and the transactions built from them again at each reading, not
// held. A statement read with OCR is held whole.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return stream(data, opts, maxHeldLines)
}

// parse is Parse holding up to held bytes of lines as read before it packs them (pageStore).
func parse(data []byte, opts statement.Options, held int) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	ex, g, scanned, err := readGrid(data, opts, held)
	if err != nil || scanned != nil {
		return scanned, err
	}
	st, err := tabular.Extract(g.tableOf(), opts)
	if err != nil {
		return nil, err
	}
	g.complete(st, ex)
	return st, nil
}

// stream is Stream as parse is Parse.
func stream(data []byte, opts statement.Options, held int) (*statement.Stream, error) {
	opts = opts.WithDefaults()
	ex, g, scanned, err := readGrid(data, opts, held)
	if err != nil {
		return nil, err
	}
	if scanned != nil {
		return statement.Held(scanned), nil
	}
	s, err := tabular.Stream(g.tableOf(), opts)
	if err != nil {
		return nil, err
	}
	g.complete(s.Statement, ex)
	return s, nil
}

// readGrid extracts the text of data and rebuilds its table, what parse and stream share; a
// statement with pages to read with OCR is read whole instead (scanned).
func readGrid(data []byte, opts statement.Options, held int) (ex *extraction, g *grid, scanned *statement.Statement, err error) {
	if ex, err = extract(data, opts, held); err != nil {
		return nil, nil, nil, err
	}
	if opts.OCR != nil && len(ex.textless) > 0 {
		scanned, err = parseScanned(data, ex, opts)
		return nil, nil, scanned, err
	}
	g = buildGrid(ex.pages)
	g.frames = ex.frames
	return ex, g, nil, nil
}

// tableOf hands the grid's rows over as the table the table reader reads.
func (g *grid) tableOf() tabular.Table {
	return tabular.Table{Format: statement.FormatPDF, Rows: g.handOver(), Context: g.outside, Card: g.card}
}

// complete adds to the statement the table reader made what the PDF says beside its table:
// the format, the bank named around the table, what the extraction found (the dialect's
// prefix: "pdf;pages=3;fonts=type1-winansi;columns=5") and its problems, first.
func (g *grid) complete(st *statement.Statement, ex *extraction) {
	st.Format = statement.FormatPDF
	if bic, name := bankOf(g.outside); bic != "" {
		st.BankID = bic
		if name != "" {
			st.BankName = name
		}
	}
	prefix := ex.dialect()
	if len(g.columns) > 0 {
		prefix += fmt.Sprintf(";columns=%d", len(g.columns))
	}
	if g.skipped > 0 {
		prefix += fmt.Sprintf(";skipped=%d", g.skipped)
	}
	if st.Dialect != "" {
		prefix += ";" + st.Dialect
	}
	st.Dialect = prefix
	st.Problems = append(ex.problems, st.Problems...)
}

// extraction is the text of a document: its lines, page by page, and what was learnt on the
// way.
type extraction struct {
	pages *pageStore
	// sizes are the pages' sizes in points (the media box); textless the numbers of the
	// pages without text, which OCR may read.
	sizes [][2]float64
	// frames are the pages' media boxes where their words stand (see document.mediaFrame).
	frames    [][4]float64
	textless  []int
	problems  []statement.Problem
	fontKinds []string
	encrypted bool
	repaired  bool
}

// extract opens data and returns its text lines with positions.
func extract(data []byte, opts statement.Options, held int) (ex *extraction, err error) {
	head := data[:min(len(data), 1024)]
	if !bytes.Contains(head, []byte("%PDF-")) {
		return nil, errf(statement.ErrNotAStatement, statement.Position{}, "no %%PDF- header in the first 1024 bytes")
	}
	defer func() {
		if r := recover(); r != nil {
			ex, err = nil, errf(statement.ErrInternal, statement.Position{}, "text extraction failed: %v", r)
		}
	}()
	return extractText(data, opts, held)
}

// extractText opens data and reads the text of every page.
func extractText(data []byte, opts statement.Options, held int) (*extraction, error) {
	doc, pages, err := openDocument(data, opts)
	if err != nil {
		return nil, err
	}
	defer doc.close()
	p := &parser{
		doc:    doc,
		opts:   opts,
		budget: &budget{left: opts.MaxDecompressedBytes},
		fonts:  map[int]*font{},
		kinds:  map[string]bool{},
	}
	ex := &extraction{pages: newPageStore(held), encrypted: doc.encrypted, repaired: doc.repaired}
	words := 0
	for i, pg := range pages {
		ws, err := p.readPage(pg, i+1)
		if err != nil {
			return nil, err
		}
		words += len(ws)
		ex.pages.add(buildLines(ws, i+1))
		ex.sizes = append(ex.sizes, doc.mediaSize(pg))
		ex.frames = append(ex.frames, doc.mediaFrame(pg))
		if len(ws) == 0 {
			ex.textless = append(ex.textless, i+1)
		}
	}
	ex.problems = p.problems
	for k := range p.kinds {
		ex.fontKinds = append(ex.fontKinds, k)
	}
	sort.Strings(ex.fontKinds)
	if words == 0 && opts.OCR == nil {
		return nil, errf(statement.ErrNoTextLayer, statement.Position{},
			"none of the %d pages has text (a scanned statement needs OCR first)", len(pages))
	}
	return ex, nil
}

// dialect describes what was read, e.g. "pdf;pages=3;fonts=type1-winansi;encrypted".
func (ex *extraction) dialect() string {
	parts := []string{"pdf", fmt.Sprintf("pages=%d", ex.pages.len())}
	if len(ex.fontKinds) > 0 {
		parts = append(parts, "fonts="+strings.Join(ex.fontKinds, ","))
	}
	if ex.encrypted {
		parts = append(parts, "encrypted")
	}
	if ex.repaired {
		parts = append(parts, "repaired")
	}
	return strings.Join(parts, ";")
}

// dropOblique leaves out the words that do not run level (rs[i] is ws[i]'s reading) when they
// are fewer than half the words of the page: a watermark set across the page ("DUPLICATE",
// "COPY") or a note up its margin, whose letters would otherwise fall between the rows as lines
// of their own. A page whose text is mostly oblique (drawn rotated as a whole) keeps it all.
func dropOblique(ws []run, rs []reading) []run {
	n := 0
	for _, r := range rs {
		if r.oblique {
			n++
		}
	}
	if n == 0 || 2*n > len(ws) {
		return ws
	}
	out := ws[:0]
	for i, w := range ws {
		if !rs[i].oblique {
			out = append(out, w)
		}
	}
	return out
}
