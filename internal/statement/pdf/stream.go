package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// errBudget is returned by a stream reader once the document's decompression budget is spent.
var errBudget = errors.New("decompressed content exceeds the limit")

// budget is what all content streams, form XObjects and CMaps of a document may decompress
// to together (Options.MaxDecompressedBytes).
type budget struct {
	left int64
	// damaged counts compressed streams that ended in corrupt or truncated data: what was
	// decoded is kept, and the reader reports the loss as a problem.
	damaged int
}

// limitedReader counts what it hands out against the budget.
type limitedReader struct {
	r io.Reader
	b *budget
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.b.left <= 0 {
		// Spent: an exact fit still ends cleanly, anything more is over the limit.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n == 0 {
			return 0, err
		}
		return 0, errBudget
	}
	if int64(len(p)) > l.b.left {
		p = p[:l.b.left]
	}
	n, err := l.r.Read(p)
	l.b.left -= int64(n)
	return n, err
}

// openStream returns a reader of the decoded stream, decoding as it is read so that a
// decompression bomb costs time in proportion to the budget, not memory. Flate without a
// predictor, the filter of nearly every content stream, streams; the other filters
// (ASCIIHex, ASCII85, RunLength, LZW, Flate with a predictor) go through pdfcpu's filters with
// the remaining budget as their output limit. Image filters are not text: an error.
func openStream(sd types.StreamDict, b *budget) (r io.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("stream filter failure: %v", p)
		}
	}()
	r = bytes.NewReader(sd.Raw)
	for i, f := range sd.FilterPipeline {
		switch {
		case f.Name == filter.Flate && predictor(f.DecodeParms) <= 1:
			r = &inflater{src: r, b: b}
		case f.Name == "Crypt":
			// pdfcpu has already decrypted the stream; an Identity crypt filter is a no-op.
		default:
			if b.left <= 0 {
				return nil, errBudget
			}
			parms := map[string]int{}
			for k, v := range f.DecodeParms {
				switch n := v.(type) {
				case types.Integer:
					parms[k] = n.Value()
				case types.Boolean:
					if n.Value() {
						parms[k] = 1
					}
				}
			}
			fl, err := filter.NewFilter(f.Name, parms, b.left)
			if err != nil {
				return nil, fmt.Errorf("filter %d %s: %w", i, f.Name, err)
			}
			// The filter reads its whole input first: bound that too.
			out, err := fl.Decode(&limitedReader{r: r, b: &budget{left: b.left}})
			if err != nil {
				if errors.Is(err, filter.ErrDecodeLimitExceeded) || errors.Is(err, errBudget) {
					return nil, errBudget
				}
				return nil, fmt.Errorf("filter %d %s: %w", i, f.Name, err)
			}
			r = out
		}
	}
	return &limitedReader{r: r, b: b}, nil
}

func predictor(d types.Dict) int {
	if v, ok := d["Predictor"].(types.Integer); ok {
		return v.Value()
	}
	return 0
}

// inflater reads zlib data leniently, as viewers do: a stream without the zlib header is read
// as raw deflate, and a truncated stream or a bad checksum ends the stream where the data
// ends rather than losing what was decoded.
type inflater struct {
	src  io.Reader
	r    io.ReadCloser
	zlib bool // r is a zlib reader, else raw deflate
	b    *budget
	done bool
}

func (f *inflater) Read(p []byte) (int, error) {
	if f.done {
		return 0, io.EOF
	}
	if f.r == nil {
		br := &peekReader{r: f.src}
		hdr, _ := br.peek(2)
		if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			zr, err := newZlibReader(br)
			if err != nil {
				f.done = true
				f.b.damaged++
				return 0, io.EOF
			}
			f.r, f.zlib = zr, true
		} else {
			f.r = newFlateReader(br)
		}
	}
	n, err := f.r.Read(p)
	if err == io.EOF {
		f.release()
	}
	if err != nil && err != io.EOF {
		// Corrupt or truncated: keep what was decoded, end here.
		f.release()
		if !errors.Is(err, errBudget) {
			f.b.damaged++
		} else {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
		return 0, io.EOF
	}
	return n, err
}

// release ends the stream and gives its decompressor back for the next one.
func (f *inflater) release() {
	f.done = true
	if f.r == nil {
		return
	}
	if f.zlib {
		zlibReaders.Put(f.r)
	} else {
		flateReaders.Put(f.r)
	}
	f.r = nil
}

// zlibReaders and flateReaders keep decompressors (a 32 KiB window and tables each) from stream
// to stream: one per content stream was 77 MB of garbage for a statement of 2,000 pages.
var zlibReaders, flateReaders sync.Pool

func newZlibReader(r io.Reader) (io.ReadCloser, error) {
	if zr, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			zlibReaders.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(r)
}

func newFlateReader(r io.Reader) io.ReadCloser {
	if fr, ok := flateReaders.Get().(io.ReadCloser); ok {
		if err := fr.(flate.Resetter).Reset(r, nil); err == nil {
			return fr
		}
	}
	return flate.NewReader(r)
}

// peekReader lets the inflater look at the zlib header without consuming it.
type peekReader struct {
	r   io.Reader
	buf []byte
}

func (p *peekReader) peek(n int) ([]byte, error) {
	for len(p.buf) < n {
		tmp := make([]byte, n-len(p.buf))
		k, err := p.r.Read(tmp)
		p.buf = append(p.buf, tmp[:k]...)
		if err != nil {
			return p.buf, err
		}
	}
	return p.buf[:n], nil
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// ReadByte makes peekReader an io.ByteReader, so flate does not wrap it in a bufio.Reader
// that would read ahead.
func (p *peekReader) ReadByte() (byte, error) {
	var b [1]byte
	n, err := p.Read(b[:])
	if n == 1 {
		return b[0], nil
	}
	if err == nil {
		err = io.EOF
	}
	return 0, err
}

// readAll decodes a small stream (a CMap) fully, within the budget and at most max bytes.
func readAll(sd types.StreamDict, b *budget, maxBytes int64) ([]byte, error) {
	r, err := openStream(sd, b)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, errBudget
	}
	return data, nil
}
