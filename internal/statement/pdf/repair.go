package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Rebuilding the cross-reference table, as poppler's XRef::constructXRef and pdfium's
// CPDF_Parser::RebuildCrossRef do when a file's own table is unusable: offsets shifted by a
// mail gateway or a careless editor, a table or xref stream cut off by a truncated download, a
// startxref pointing elsewhere, a trailer whose /Root names a missing object. The file is
// scanned for "N G obj" headers (the last definition of an object number wins, as it does in
// an incremental update), for the objects listed in object streams, and for trailer
// dictionaries (classic trailers and xref stream dictionaries). The result is appended to the
// file as a new cross-reference stream, so pdfcpu reads the repaired file through its ordinary
// path, decryption included.

// scannedObject is where an object's latest definition is.
type scannedObject struct {
	offset int32 // of "N G obj"; for a compressed object, unused
	gen    int32
	stream int32 // the object stream holding it, or -1 for an object stored directly
	index  int32 // its index in that object stream
}

// Bounds of the scan, besides maxObjects and maxObjectStreams.
const (
	// maxHeadBytes bounds how much of an object is examined for its dictionary, and of a
	// trailer.
	maxHeadBytes = 64 << 10
	// maxTrailers is how many of the last trailers are read: one per incremental update.
	maxTrailers = 64
)

var catalogType = regexp.MustCompile(`/Type\s*/Catalog\b`)

// objHeader is an "N G obj" header found by the scan.
type objHeader struct {
	num, gen   int32
	start, end int32 // of the header, end just past "obj"
}

// scanObjHeaders finds every "N G obj" in data, in file order.
func scanObjHeaders(data []byte) []objHeader {
	var out []objHeader
	key := []byte("obj")
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			return out
		}
		pos := i + j
		i = pos + len(key)
		if i < len(data) && !isDelimOrSpace(data[i]) {
			continue
		}
		if h, ok := objHeaderAt(data, pos); ok {
			out = append(out, h)
			if len(out) > maxObjects {
				return out
			}
		}
	}
}

// objHeaderAt parses "N G " backwards from the obj keyword at pos.
func objHeaderAt(data []byte, pos int) (objHeader, bool) {
	k := pos - 1
	if k < 0 || !isSpace(data[k]) {
		return objHeader{}, false
	}
	for k >= 0 && isSpace(data[k]) {
		k--
	}
	ge := k + 1
	for k >= 0 && data[k] >= '0' && data[k] <= '9' {
		k--
	}
	gs := k + 1
	if gs == ge || ge-gs > 5 || k < 0 || !isSpace(data[k]) {
		return objHeader{}, false
	}
	for k >= 0 && isSpace(data[k]) {
		k--
	}
	ne := k + 1
	for k >= 0 && data[k] >= '0' && data[k] <= '9' {
		k--
	}
	ns := k + 1
	if ns == ne || ne-ns > 7 || (k >= 0 && !isDelimOrSpace(data[k])) {
		return objHeader{}, false
	}
	num, _ := strconv.Atoi(string(data[ns:ne]))
	gen, _ := strconv.Atoi(string(data[gs:ge]))
	if num <= 0 || num >= maxObjects || pos+3 > math.MaxInt32 {
		return objHeader{}, false
	}
	return objHeader{num: int32(num), gen: int32(gen), start: int32(ns), end: int32(pos + 3)}, true
}

// parseDictAt parses the dictionary that starts at data[i] (after spaces) and ends before
// data[end], reading at most maxHeadBytes.
func parseDictAt(c context.Context, data []byte, i, end int) types.Dict {
	i = skipSpace(data, i)
	if i+2 > end || data[i] != '<' || data[i+1] != '<' {
		return nil
	}
	s := string(data[i:min(end, i+maxHeadBytes)])
	o, err := model.ParseObjectContext(c, &s, 0)
	if err != nil {
		return nil
	}
	d, _ := o.(types.Dict)
	return d
}

// streamData returns the bytes after the stream keyword that ends the dictionary of an object
// whose body is data[from:to], or nil when the object is not a stream.
func streamData(data []byte, from, to int) []byte {
	body := data[from:to]
	k := bytes.Index(body, []byte("stream"))
	if k < 0 {
		return nil
	}
	k += len("stream")
	if k < len(body) && body[k] == '\r' {
		k++
	}
	if k < len(body) && body[k] == '\n' {
		k++
	}
	return body[k:]
}

// rebuiltXRef is what the scan found.
type rebuiltXRef struct {
	objects  map[int]scannedObject
	trailers []types.Dict // trailer and xref stream dictionaries, in file order
	catalogs []int        // objects whose dictionary says /Type /Catalog, in file order
	streams  int          // object streams read
}

// errNoCatalog is a rebuild's failure when no object of the file is a catalog.
var errNoCatalog = errors.New("no document catalog (/Type /Catalog) was found in the file")

// rebuildXRef scans data (from its %PDF- header on, so junk before it is dropped) and returns
// the file with a new cross-reference stream appended; errNoCatalog when the scan finds no
// catalog. Object streams are decompressed within b.
func rebuildXRef(c context.Context, data []byte, b *budget) ([]byte, error) {
	if h := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-")); h > 0 {
		data = data[h:]
	}
	if len(data) > math.MaxInt32 {
		return nil, errors.New("the file is too large to rebuild")
	}
	r := &rebuiltXRef{objects: map[int]scannedObject{}}
	headers := scanObjHeaders(data)
	trailerPos := scanTrailers(data)
	ti := 0
	trailer := func() {
		end := len(data)
		if ti+1 < len(trailerPos) {
			end = trailerPos[ti+1]
		}
		if d := parseDictAt(c, data, trailerPos[ti]+len("trailer"), end); d != nil {
			r.trailers = append(r.trailers, d)
		}
		ti++
	}
	for hi, h := range headers {
		if err := c.Err(); err != nil {
			return nil, err
		}
		for ti < len(trailerPos) && trailerPos[ti] < int(h.start) {
			trailer()
		}
		end := len(data)
		if hi+1 < len(headers) {
			end = int(headers[hi+1].start)
		}
		r.objects[int(h.num)] = scannedObject{offset: h.start, gen: h.gen, stream: -1}
		head := data[h.end:min(end, int(h.end)+maxHeadBytes)]
		if k := bytes.Index(head, []byte("stream")); k >= 0 {
			head = head[:k]
		}
		switch {
		case catalogType.Match(head):
			r.catalogs = append(r.catalogs, int(h.num))
		case bytes.Contains(head, []byte("/XRef")):
			if d := parseDictAt(c, data, int(h.end), end); d != nil && d.Type() != nil && *d.Type() == "XRef" {
				r.trailers = append(r.trailers, d)
			}
		case bytes.Contains(head, []byte("/ObjStm")) && r.streams < maxObjectStreams:
			r.streams++
			r.objectStream(c, data, h, end, b)
		}
	}
	for ti < len(trailerPos) {
		trailer()
	}
	if fixed := r.write(data); fixed != nil {
		return fixed, nil
	}
	return nil, errNoCatalog
}

// scanTrailers finds the positions of the last maxTrailers trailer keywords.
func scanTrailers(data []byte) []int {
	var out []int
	key := []byte("trailer")
	for i := 0; ; {
		j := bytes.Index(data[i:], key)
		if j < 0 {
			return out
		}
		if len(out) == 2*maxTrailers {
			out = append(out[:0], out[maxTrailers:]...)
		}
		pos := i + j
		i = pos + len(key)
		if (pos == 0 || isSpace(data[pos-1])) && (i == len(data) || isDelimOrSpace(data[i])) {
			out = append(out, pos)
		}
	}
}

// objectStream records the objects an object stream holds. Only streams that pdfcpu could
// read without a password (Flate without a predictor, as every producer writes them) are
// listed; in an encrypted file the stream is encrypted and its header does not parse, so its
// objects are left out.
func (r *rebuiltXRef) objectStream(c context.Context, data []byte, h objHeader, end int, b *budget) {
	d := parseDictAt(c, data, int(h.end), end)
	if d == nil || d.Type() == nil || *d.Type() != "ObjStm" {
		return
	}
	first, n := d.IntEntry("First"), d.IntEntry("N")
	if first == nil || n == nil || *first <= 0 || *n <= 0 || *n > maxObjects {
		return
	}
	switch f := d["Filter"].(type) {
	case types.Name:
		if f != "FlateDecode" {
			return
		}
	case types.Array:
		if len(f) != 1 || f[0] != types.Name("FlateDecode") {
			return
		}
	case nil:
	default:
		return
	}
	if dp, ok := d["DecodeParms"].(types.Dict); ok && predictor(dp) > 1 {
		return
	}
	raw := streamData(data, int(h.end), end)
	if raw == nil {
		return
	}
	var rd io.Reader = &limitedReader{r: bytes.NewReader(raw), b: b}
	if _, ok := d["Filter"]; ok {
		rd = &limitedReader{r: &inflater{src: bytes.NewReader(raw), b: &budget{}}, b: b}
	}
	content, _ := io.ReadAll(rd)
	if len(content) < *first {
		return
	}
	fields := bytes.Fields(content[:*first])
	if len(fields)%2 != 0 {
		return
	}
	pairs := min(len(fields)/2, *n)
	for i := range pairs {
		num, err1 := strconv.Atoi(string(fields[2*i]))
		off, err2 := strconv.Atoi(string(fields[2*i+1]))
		if err1 != nil || err2 != nil || num <= 0 || num >= maxObjects || off < 0 || *first+off > len(content) {
			return
		}
		to := len(content)
		if i+1 < pairs {
			if next, err := strconv.Atoi(string(fields[2*i+3])); err == nil && *first+next <= len(content) && next >= off {
				to = *first + next
			}
		}
		text := content[*first+off : to]
		r.objects[num] = scannedObject{stream: h.num, index: int32(i)}
		if catalogType.Match(text[:min(len(text), maxHeadBytes)]) {
			r.catalogs = append(r.catalogs, num)
		}
	}
}

// write appends the cross-reference stream to data: W [1 4 4], one subsection per run of
// consecutive object numbers, and a trailer whose /Root is the last trailer's /Root that names
// a catalog found by the scan (else the last catalog found, else the last /Root naming an
// object that exists), with /Encrypt, /ID and /Info from the last trailer that has them. It
// returns nil when there is no catalog to name.
func (r *rebuiltXRef) write(data []byte) []byte {
	isCatalog := map[int]bool{}
	for _, n := range r.catalogs {
		isCatalog[n] = true
	}
	root, named := -1, -1 // a catalog named by a trailer; any object named by a trailer
	var encrypt, id, info types.Object
	for _, t := range r.trailers {
		if ref, ok := t["Root"].(types.IndirectRef); ok {
			if isCatalog[ref.ObjectNumber.Value()] {
				root = ref.ObjectNumber.Value()
			} else if _, found := r.objects[ref.ObjectNumber.Value()]; found {
				named = ref.ObjectNumber.Value()
			}
		}
		if e, ok := t["Encrypt"]; ok {
			encrypt, id = e, t["ID"]
		}
		if i, ok := t["Info"].(types.IndirectRef); ok {
			if _, found := r.objects[i.ObjectNumber.Value()]; found {
				info = i
			}
		}
	}
	switch {
	case root >= 0:
	case len(r.catalogs) > 0:
		root = r.catalogs[len(r.catalogs)-1]
	case named >= 0:
		root = named // a catalog without /Type
	default:
		return nil
	}
	if ref, ok := encrypt.(types.IndirectRef); ok {
		if _, found := r.objects[ref.ObjectNumber.Value()]; !found {
			encrypt = nil
		}
	}

	nums := make([]int, 0, len(r.objects)+2)
	for n, o := range r.objects {
		if o.stream >= 0 {
			if s, ok := r.objects[int(o.stream)]; !ok || s.stream >= 0 {
				continue // its object stream is not there as a stream
			}
		}
		nums = append(nums, n)
	}
	slices.Sort(nums)
	self := 1
	if len(nums) > 0 {
		self = nums[len(nums)-1] + 1
	}

	out := bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' && out[len(out)-1] != '\r' {
		out = append(out, '\n')
	}
	xrefAt := len(out)
	nums = append([]int{0}, nums...)
	nums = append(nums, self)
	var rows []byte
	var index bytes.Buffer
	runStart := 0
	for i, n := range nums {
		var kind byte
		var f2, f3 int
		switch o, found := r.objects[n]; {
		case n == 0:
			f3 = 65535
		case n == self:
			kind, f2 = 1, xrefAt
		case !found:
		case o.stream >= 0:
			kind, f2, f3 = 2, int(o.stream), int(o.index)
		default:
			kind, f2, f3 = 1, int(o.offset), int(o.gen)
		}
		rows = append(rows, kind, byte(f2>>24), byte(f2>>16), byte(f2>>8), byte(f2),
			byte(f3>>24), byte(f3>>16), byte(f3>>8), byte(f3))
		if i+1 == len(nums) || nums[i+1] != n+1 {
			fmt.Fprintf(&index, "%d %d ", nums[runStart], i+1-runStart)
			runStart = i + 1
		}
	}
	extra := ""
	if info != nil {
		extra += " /Info " + info.PDFString()
	}
	if encrypt != nil {
		extra += " /Encrypt " + encrypt.PDFString()
		if id != nil {
			extra += " /ID " + id.PDFString()
		}
	}
	out = fmt.Appendf(out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 4] /Index [%s] /Root %d 0 R%s /Length %d >>\nstream\n",
		self, self+1, bytes.TrimSpace(index.Bytes()), root, extra, len(rows))
	out = append(out, rows...)
	out = fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return out
}
