package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/statementmatch/service/internal/statement"
)

// Limits of the object model. A bank statement has a few thousand objects; these bounds keep
// a hostile file from making pdfcpu allocate for millions of claimed ones.
const (
	// maxObjects bounds xref entries and objects per object stream.
	maxObjects = 1 << 19
	// maxObjectStreams bounds how many object and xref streams a file may have: each is
	// decompressed by pdfcpu while reading, so together they share the decompression budget.
	maxObjectStreams = 4096
	// minObjectStreamBytes is the least decompressed size allowed to one object stream.
	minObjectStreamBytes = 64 << 10
	// readTimeout bounds pdfcpu's reading of the object graph, as a last line of defence
	// behind the size limits.
	readTimeout = 60 * time.Second
)

// document is an opened PDF: pdfcpu's cross-reference table with every object loaded (and
// decrypted), and the findings about how it was opened.
type document struct {
	xref *model.XRefTable
	// ctx bounds the parsing of objects from object streams, which happens on first use.
	ctx       context.Context
	cancel    context.CancelFunc
	lazyErr   error // the first failure to parse an object from an object stream
	encrypted bool
	// repaired: a stream's /Length was rewritten before reading, or the file was mended
	// (openDocument).
	repaired bool
}

// openDocument opens data and walks its page tree. A file whose end is intact (its last
// startxref points to a cross-reference section, and %%EOF follows) is read by pdfcpu as it
// is. When that reading fails, finds no catalog or pages, or loses the encryption the file
// declares (its content would be read still encrypted), and for any file whose end is not
// intact, the file is mended and read again: with the %%EOF it may lack, then through a
// cross-reference table rebuilt by scanning the file (rebuildXRef), as poppler and pdfium
// do, and last, for a damaged file, as pdfcpu mends it itself (slow on large files, so it
// comes last). The first reading with pages that keeps the declared encryption is taken,
// marked repaired unless it is the intact file's own; failing that, one with pages. A wrong
// password or a limit ends the attempts; when none has pages, the first failure is reported.
// Reading, mending included, is bounded by readTimeout.
func openDocument(data []byte, opts statement.Options) (*document, []page, error) {
	c, cancel := context.WithTimeout(context.Background(), readTimeout)
	asIs := func() ([]byte, error) { return data, nil }
	readings := []func() ([]byte, error){
		func() ([]byte, error) { return withEOF(data), nil },
		func() ([]byte, error) { return rebuildXRef(c, data, &budget{left: opts.MaxDecompressedBytes}) },
	}
	whole := intact(data)
	if whole {
		readings = append([]func() ([]byte, error){asIs}, readings...)
	} else {
		readings = append(readings, asIs)
	}
	encrypted := declaresEncryption(data)
	var fallback *document
	var fallbackPages []page
	var firstErr, mendErr error
	for i, reading := range readings {
		d, err := safely(reading)
		if errors.Is(err, context.DeadlineExceeded) {
			cancel()
			return nil, nil, openError(data, opts.Password, err)
		}
		if err != nil {
			mendErr = err
		}
		if d == nil {
			continue
		}
		doc, pages, err := readPages(c, d, opts)
		if err == nil {
			doc.repaired = doc.repaired || !whole || i > 0
			if doc.encrypted || !encrypted {
				doc.cancel = cancel
				return doc, pages, nil
			}
			if fallback == nil {
				fallback, fallbackPages = doc, pages
			}
			continue
		}
		if !repairable(err) {
			cancel()
			return nil, nil, openError(d, opts.Password, err)
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if fallback != nil {
		fallback.cancel = cancel
		return fallback, fallbackPages, nil
	}
	cancel()
	if firstErr == nil {
		firstErr = mendErr
	}
	if errors.Is(mendErr, errNoCatalog) && !declaresEncryption(data) {
		return nil, nil, errf(statement.ErrCorrupt, statement.Position{},
			"the PDF is damaged or truncated: its cross-reference table cannot be used and %s (%s)", errNoCatalog, shortErr(firstErr))
	}
	return nil, nil, openError(data, opts.Password, firstErr)
}

// withEOF returns data with the %%EOF marker it lacks after its last startxref (a download
// that lost its last bytes, a producer that stopped short), or nil when it has one. pdfcpu
// then finds the cross-reference section where the file says, which is better than a rebuild
// for an encrypted file whose objects are in object streams: the scan cannot list those.
func withEOF(data []byte) []byte {
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 || bytes.Contains(data[i:], []byte("%%EOF")) {
		return nil
	}
	return append(bytes.Clone(data), "\n%%EOF\n"...)
}

// safely runs a mending function, a panic counting as a failure.
func safely(mend func() ([]byte, error)) (fixed []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			fixed, err = nil, fmt.Errorf("%w: %v", errReaderPanic, r)
		}
	}()
	return mend()
}

// readPages reads data with pdfcpu and walks its page tree.
func readPages(c context.Context, data []byte, opts statement.Options) (*document, []page, error) {
	doc, err := read(c, data, opts)
	if err != nil {
		return nil, nil, err
	}
	pages, err := doc.pages(opts.MaxDepth)
	if err != nil {
		return nil, nil, err
	}
	return doc, pages, nil
}

// intact reports whether data ends as an intact PDF does: its last startxref points to an
// xref table or an "N G obj" (an xref stream), and %%EOF follows. pdfcpu mends other files
// its own way, slowly and not always right (an encrypted file's content left encrypted).
func intact(data []byte) bool {
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 || !bytes.Contains(data[i:], []byte("%%EOF")) {
		return false
	}
	v, _, ok := readUint(data, skipSpace(data, i+len("startxref")))
	if !ok || v < 0 || v >= int64(len(data)) {
		return false
	}
	h := int64(max(0, bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-"))))
	for _, at := range []int64{v, v + h} {
		if at >= int64(len(data)) {
			continue
		}
		rest := data[skipSpace(data, int(at)):]
		if bytes.HasPrefix(rest, []byte("xref")) {
			return true
		}
		if k := bytes.Index(rest[:min(len(rest), 32)], []byte("obj")); k > 0 {
			if h, ok := objHeaderAt(rest, k); ok && h.start == 0 {
				return true
			}
		}
	}
	return false
}

// errReaderPanic marks a panic inside pdfcpu, contained by read.
var errReaderPanic = errors.New("reader failure")

// repairable reports whether a failure to open may be mended by rebuilding the
// cross-reference table: not a wrong password, and no limit.
func repairable(err error) bool {
	var se *statement.Error
	if errors.As(err, &se) {
		return errors.Is(err, statement.ErrCorrupt)
	}
	return !errors.Is(err, pdfcpu.ErrWrongPassword) && !errors.Is(err, filter.ErrDecodeLimitExceeded) &&
		!errors.Is(err, context.DeadlineExceeded)
}

// declaresEncryption reports whether a trailer of data names an encryption dictionary.
func declaresEncryption(data []byte) bool {
	key := []byte("/Encrypt")
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			return false
		}
		i += j + len(key)
		k := skipSpace(data, i)
		if k < len(data) && (data[k] == '<' || (data[k] >= '0' && data[k] <= '9')) {
			return true
		}
	}
}

// read reads data into pdfcpu's object model. pdfcpu reads relaxed (it repairs what it can)
// and within limits derived from opts; a panic inside pdfcpu on hostile input is contained
// and reported as errReaderPanic. Errors other than *statement.Error are pdfcpu's, for
// openError to classify.
func read(c context.Context, data []byte, opts statement.Options) (doc *document, err error) {
	fixed, clamped := clampStreamLengths(data)
	streams := bytes.Count(data, []byte("ObjStm")) + bytes.Count(data, []byte("/XRef"))
	if streams > maxObjectStreams {
		return nil, statement.Errorf(statement.FormatPDF, statement.ErrResourceLimit, statement.Position{},
			"%d object streams, more than the %d allowed", streams, maxObjectStreams)
	}
	perStream := opts.MaxDecompressedBytes / int64(max(streams, 1))
	perStream = max(perStream, minObjectStreamBytes)

	conf := &model.Configuration{
		UserPW:         opts.Password,
		OwnerPW:        opts.Password,
		Reader15:       true,
		ValidationMode: model.ValidationRelaxed,
		Cmd:            model.EXTRACTCONTENT,
		Limits: model.ResourceLimits{
			MaxStreamBytes:       int64(len(data)) + 1,
			MaxDecodeBytes:       perStream,
			MaxImagePixels:       1 << 20,
			MaxImageBytes:        1 << 20,
			MaxObjectCount:       min(maxObjects, max(4096, len(data))),
			MaxObjectStreamCount: min(maxObjects, max(4096, len(data))),
			MaxObjectStreamFirst: min(16<<20, int64(len(data))+1),
			MaxXRefEntries:       min(maxObjects, max(4096, len(data))),
			MaxRecursionDepth:    opts.MaxDepth,
		},
	}

	if opts.Password != "" {
		// pdfcpu refuses to extract content, opened with a user password, when the file's
		// permission bits deny copying, as many banks' statements do. The account holder reads
		// their own statement, as every viewer lets them: read it as for validation, which
		// needs no permission.
		conf.Cmd = model.VALIDATE
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: %v", errReaderPanic, r)
		}
	}()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(fixed), conf)
	if err != nil {
		return nil, err
	}
	if ctx == nil || ctx.XRefTable == nil || ctx.XRefTable.Root == nil {
		return nil, statement.Errorf(statement.FormatPDF, statement.ErrCorrupt, statement.Position{},
			"the PDF has no document catalog (/Root)")
	}
	return &document{xref: ctx.XRefTable, ctx: c, encrypted: ctx.XRefTable.Encrypt != nil, repaired: clamped}, nil
}

// Messages of the password failures, which tell the client what to do.
const (
	MessagePasswordRequired  = "this PDF is protected by a password: send it in the `password` field"
	MessagePasswordIncorrect = "the password does not open this PDF: check it and send it again"
)

// openError classifies a failure of pdfcpu's reader (password is the one tried, never shown). pdfcpu has sentinels only for a wrong
// password and exceeded decode limits; anything else is a damaged file, except that a file
// declaring /Encrypt which could not be opened is reported as encrypted, the more useful
// message for a person holding a password-protected statement.
func openError(data []byte, password string, err error) error {
	var se *statement.Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, pdfcpu.ErrWrongPassword) && password == "":
		return statement.Errorf(statement.FormatPDF, statement.ErrPasswordRequired, statement.Position{}, MessagePasswordRequired)
	case errors.Is(err, pdfcpu.ErrWrongPassword):
		return statement.Errorf(statement.FormatPDF, statement.ErrPasswordIncorrect, statement.Position{}, MessagePasswordIncorrect)
	case errors.Is(err, filter.ErrDecodeLimitExceeded):
		return statement.Errorf(statement.FormatPDF, statement.ErrResourceLimit, statement.Position{},
			"an object stream decompresses to more than the limit")
	case errors.Is(err, context.DeadlineExceeded):
		return statement.Errorf(statement.FormatPDF, statement.ErrResourceLimit, statement.Position{},
			"reading the PDF structure took longer than %s", readTimeout)
	case declaresEncryption(data):
		return statement.Errorf(statement.FormatPDF, statement.ErrEncrypted, statement.Position{},
			"the PDF is encrypted and cannot be opened without a password (%s)", shortErr(err))
	case errors.Is(err, errReaderPanic):
		return statement.Errorf(statement.FormatPDF, statement.ErrCorrupt, statement.Position{},
			"the PDF structure cannot be read (%s)", shortErr(err))
	}
	return statement.Errorf(statement.FormatPDF, statement.ErrCorrupt, statement.Position{},
		"the PDF structure cannot be read (%s)", shortErr(err))
}

// shortErr keeps a reader's message short enough for a job's failure reason.
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// clampStreamLengths protects the reader from stream dictionaries whose /Length lies: pdfcpu
// allocates the declared length before reading, so a few streams claiming the whole file each
// would cost memory quadratic in the file size. Streams do not overlap, so in an intact file
// the declared lengths add up to less than the file. A direct /Length reaching past the end of
// the file, or past what the lengths before it leave, is rewritten in place to 0 (padded with
// spaces so no offset moves), which makes pdfcpu find the stream's end by its endstream
// keyword instead. So is a /Length that does not end where the endstream keyword stands: a
// line added to the stream by a mail gateway or an editor, which poppler reads up to
// endstream. Indirect lengths (/Length 12 0 R) whose object is stored plainly are checked the
// same way. The input is copied only when something is rewritten.
func clampStreamLengths(data []byte) ([]byte, bool) {
	out := data
	changed := false
	write := func(from, to int) {
		if !changed {
			out = bytes.Clone(data)
			changed = true
		}
		out[from] = '0'
		for i := from + 1; i < to; i++ {
			out[i] = ' '
		}
	}
	var sum int64
	limit := int64(len(data))
	indirect := map[int][]int{} // object number -> positions of the /Length keys naming it
	key := []byte("/Length")
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			break
		}
		pos := i + j
		i = pos + len(key)
		if i < len(data) && !isDelimOrSpace(data[i]) {
			continue // /Length1, /LengthX
		}
		n1s := skipSpace(data, i)
		n1, n1e, ok := readUint(data, n1s)
		if !ok {
			continue
		}
		if n2s := skipSpace(data, n1e); n2s > n1e {
			if _, n2e, ok := readUint(data, n2s); ok {
				if rs := skipSpace(data, n2e); rs > n2e && rs < len(data) && data[rs] == 'R' &&
					(rs+1 == len(data) || isDelimOrSpace(data[rs+1])) {
					if n1 >= 0 && n1 < 1<<31 && len(indirect) < maxObjects {
						indirect[int(n1)] = append(indirect[int(n1)], pos)
					}
					continue
				}
			}
		}
		if n1 < 0 || int64(pos)+n1 > limit || sum+n1 > limit || !lengthFits(data, pos, n1) {
			write(n1s, n1e)
			continue
		}
		sum += n1
	}
	if len(indirect) == 0 {
		return out, changed
	}
	// Find "N G obj <int>" for the referenced objects, in one pass over the file.
	obj := []byte("obj")
	for i := 0; ; {
		j := bytes.Index(data[i:], obj)
		if j < 0 {
			break
		}
		pos := i + j
		i = pos + len(obj)
		nr, ok := objNumberBefore(data, pos)
		if !ok {
			continue
		}
		if _, want := indirect[nr]; !want {
			continue
		}
		vs := skipSpace(data, i)
		v, ve, ok := readUint(data, vs)
		if !ok {
			continue
		}
		lying := v < 0
		for _, at := range indirect[nr] {
			if int64(at)+v > limit || sum+v > limit || !lengthFits(data, at, v) {
				lying = true
				break
			}
		}
		if lying {
			write(vs, ve)
			continue
		}
		sum += v * int64(len(indirect[nr]))
	}
	return out, changed
}

// maxDictBytes is how far after a /Length key its stream keyword is looked for.
const maxDictBytes = 4 << 10

// lengthFits reports whether the stream whose dictionary has the /Length key at pos ends, n
// bytes after its stream keyword's end of line, at an endstream keyword (white space between
// allowed). A /Length that is not in a stream's dictionary (an encryption dictionary's key
// length) fits.
func lengthFits(data []byte, pos int, n int64) bool {
	window := data[pos:min(len(data), pos+maxDictBytes)]
	k := bytes.Index(window, []byte("stream"))
	if k < 0 {
		return true
	}
	if e := bytes.Index(window[:k], []byte("endobj")); e >= 0 {
		return true
	}
	start := pos + k + len("stream")
	if start < len(data) && data[start] == '\r' {
		start++
	}
	if start < len(data) && data[start] == '\n' {
		start++
	}
	end := int64(start) + n
	if end > int64(len(data)) {
		return false
	}
	return bytes.HasPrefix(data[skipSpace(data, int(end)):], []byte("endstream"))
}

// objNumberBefore parses "N G " before the obj keyword at pos.
func objNumberBefore(data []byte, pos int) (int, bool) {
	if pos == 0 || !isSpace(data[pos-1]) || (pos+3 < len(data) && !isDelimOrSpace(data[pos+3])) {
		return 0, false
	}
	k := pos - 1
	for k >= 0 && isSpace(data[k]) {
		k--
	}
	ge := k + 1
	for k >= 0 && data[k] >= '0' && data[k] <= '9' {
		k--
	}
	if k+1 == ge || k < 0 || !isSpace(data[k]) {
		return 0, false
	}
	for k >= 0 && isSpace(data[k]) {
		k--
	}
	ne := k + 1
	for k >= 0 && data[k] >= '0' && data[k] <= '9' {
		k--
	}
	if k+1 == ne || ne-(k+1) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range data[k+1 : ne] {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// readUint parses decimal digits at i; the value is -1 when it overflows 18 digits.
func readUint(data []byte, i int) (v int64, end int, ok bool) {
	end = i
	for end < len(data) && data[end] >= '0' && data[end] <= '9' {
		end++
	}
	if end == i || (end < len(data) && !isDelimOrSpace(data[end])) {
		return 0, end, false
	}
	if end-i > 18 {
		return -1, end, true
	}
	for _, c := range data[i:end] {
		v = v*10 + int64(c-'0')
	}
	return v, end, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// isSpace reports PDF whitespace (ISO 32000-1, 7.2.2).
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

// isDelim reports PDF delimiters (ISO 32000-1, 7.2.2).
func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isDelimOrSpace(c byte) bool { return isSpace(c) || isDelim(c) }

// close releases the document's reading context.
func (d *document) close() {
	if d.cancel != nil {
		d.cancel()
	}
}

// missing is the error for a document whose catalog or pages are missing: a limit met while
// parsing objects from object streams explains it better than "missing".
func (d *document) missing(what string) error {
	switch {
	case errors.Is(d.lazyErr, filter.ErrDecodeLimitExceeded):
		return errf(statement.ErrResourceLimit, statement.Position{}, "an object stream decompresses to more than the limit")
	case errors.Is(d.lazyErr, context.DeadlineExceeded):
		return errf(statement.ErrResourceLimit, statement.Position{}, "reading the PDF structure took longer than %s", readTimeout)
	case d.lazyErr != nil:
		return errf(statement.ErrCorrupt, statement.Position{}, "%s (an object stream cannot be read: %s)", what, shortErr(d.lazyErr))
	}
	return errf(statement.ErrCorrupt, statement.Position{}, "%s", what)
}

// maxRefHops bounds chains of references to references, which a hostile file can make cycle.
const maxRefHops = 16

// resolve follows indirect references to the object they name; nil when the object is
// missing, free, or the chain is too long (a cycle).
func (d *document) resolve(o types.Object) types.Object {
	for hops := 0; hops < maxRefHops; hops++ {
		ref, ok := o.(types.IndirectRef)
		if !ok {
			if p, isPtr := o.(*types.IndirectRef); isPtr && p != nil {
				ref, ok = *p, true
			}
		}
		if !ok {
			return o
		}
		e, found := d.xref.Find(ref.ObjectNumber.Value())
		if !found || e == nil || e.Free {
			return nil
		}
		o = e.Object
		if lazy, isLazy := o.(types.LazyObjectStreamObject); isLazy {
			o = d.decodeLazy(e, lazy)
		}
	}
	return nil
}

// decodeLazy parses an object stored in an object stream. pdfcpu's reader leaves such objects
// (in PDF 1.5 files: the catalog, the page tree, pages, fonts) as placeholders that it parses
// only when its own validation or dereference path asks for them; the object stream's content is
// decompressed once, within its share of the decode limit, and the parsed object replaces the
// placeholder. An object that does not parse is treated as missing (null), as viewers do.
func (d *document) decodeLazy(e *model.XRefTableEntry, lazy types.LazyObjectStreamObject) types.Object {
	o, err := lazy.DecodedObject(d.ctx)
	if err != nil {
		if d.lazyErr == nil {
			d.lazyErr = err
		}
		e.Object = nil
		return nil
	}
	e.Object = o
	return o
}

// refNumber returns the object number o refers to, or -1 for a direct object.
func refNumber(o types.Object) int {
	switch r := o.(type) {
	case types.IndirectRef:
		return r.ObjectNumber.Value()
	case *types.IndirectRef:
		if r != nil {
			return r.ObjectNumber.Value()
		}
	}
	return -1
}

func (d *document) dict(o types.Object) types.Dict {
	switch v := d.resolve(o).(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	}
	return nil
}

func (d *document) array(o types.Object) types.Array {
	if a, ok := d.resolve(o).(types.Array); ok {
		return a
	}
	return nil
}

func (d *document) name(o types.Object) string {
	if n, ok := d.resolve(o).(types.Name); ok {
		return n.Value()
	}
	return ""
}

func (d *document) number(o types.Object) (float64, bool) {
	switch v := d.resolve(o).(type) {
	case types.Integer:
		return float64(v.Value()), true
	case types.Float:
		return v.Value(), true
	}
	return 0, false
}

func (d *document) stream(o types.Object) (types.StreamDict, bool) {
	sd, ok := d.resolve(o).(types.StreamDict)
	return sd, ok
}

// page is one page to read: its content, the resources it inherits, its rotation.
type page struct {
	dict      types.Dict
	resources types.Dict
	rotate    int
}

// pages walks the page tree (/Root /Pages /Kids) depth first, with inherited /Resources and
// /Rotate. Nodes seen before (a /Kids cycle or a shared subtree) are skipped, depth is capped,
// and more than maxPages pages is a resource limit.
func (d *document) pages(maxDepth int) ([]page, error) {
	root := d.dict(*d.xref.Root)
	if root == nil {
		return nil, d.missing("the document catalog (/Root) is missing")
	}
	var out []page
	seen := map[int]bool{}
	var walk func(o types.Object, res types.Dict, rot, depth int) error
	walk = func(o types.Object, res types.Dict, rot, depth int) error {
		if depth > maxDepth {
			return statement.Errorf(statement.FormatPDF, statement.ErrResourceLimit, statement.Position{},
				"the page tree is nested deeper than %d", maxDepth)
		}
		if nr := refNumber(o); nr >= 0 {
			if seen[nr] {
				return nil
			}
			seen[nr] = true
		}
		node := d.dict(o)
		if node == nil {
			return nil
		}
		if r := d.dict(node["Resources"]); r != nil {
			res = r
		}
		if v, ok := d.number(node["Rotate"]); ok {
			rot = int(v)
		}
		kids, hasKids := node["Kids"]
		if t := d.name(node["Type"]); t == "Page" || (t == "" && !hasKids) {
			if len(out) >= maxPages {
				return statement.Errorf(statement.FormatPDF, statement.ErrResourceLimit, statement.Position{},
					"more than %d pages", maxPages)
			}
			out = append(out, page{dict: node, resources: res, rotate: ((rot % 360) + 360) % 360})
			return nil
		}
		for _, kid := range d.array(kids) {
			if err := walk(kid, res, rot, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root["Pages"], nil, 0, 0); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, d.missing("the PDF has no pages")
	}
	return out, nil
}

// errf is statement.Errorf for this format.
func errf(kind error, pos statement.Position, msg string, args ...any) error {
	return statement.Errorf(statement.FormatPDF, kind, pos, msg, args...)
}

// mediaSize is the page's size in points from its /MediaBox, inherited from the page tree when
// the page has none of its own; US Letter when no box is found.
func (d *document) mediaSize(p page) [2]float64 {
	v := d.mediaBox(p)
	w, h := math.Abs(v[2]-v[0]), math.Abs(v[3]-v[1])
	if p.rotate%180 != 0 {
		w, h = h, w
	}
	return [2]float64{w, h}
}

// mediaFrame is the page's media box in the display space of its words (see display): the
// least and greatest x and y of its corners, [x0, y0, x1, y1], y up.
func (d *document) mediaFrame(p page) [4]float64 {
	v := d.mediaBox(p)
	f := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, c := range [][2]float64{{v[0], v[1]}, {v[2], v[1]}, {v[0], v[3]}, {v[2], v[3]}} {
		x, y := display(p.rotate, c[0], c[1])
		f[0], f[1], f[2], f[3] = math.Min(f[0], x), math.Min(f[1], y), math.Max(f[2], x), math.Max(f[3], y)
	}
	return f
}

// mediaBox is the page's /MediaBox, inherited from the page tree when the page has none of its
// own; US Letter at the origin when no box is found.
func (d *document) mediaBox(p page) [4]float64 {
	for dict, depth := p.dict, 0; dict != nil && depth < 32; depth++ {
		if box := d.array(dict["MediaBox"]); len(box) == 4 {
			var v [4]float64
			ok := true
			for i := range v {
				v[i], ok = d.number(box[i])
				if !ok {
					break
				}
			}
			if ok {
				return v
			}
		}
		dict = d.dict(dict["Parent"])
	}
	return [4]float64{0, 0, 612, 792}
}
