// Package upload holds an uploaded file as the job rules see it (received in full, with its
// digest) and the check every bank statement passes before either API accepts a job.
package upload

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// File is an uploaded file, already received in full (spooled), with its digest.
type File struct {
	// Name is the client's file name with directory parts removed; it is only ever displayed.
	Name   string
	Size   int64
	SHA256 [32]byte
	// Open returns the content from the start; each call gives a new reader.
	Open func() (io.ReadCloser, error)
	// Sealed: the content is a protected file's, decrypted (see Unlock); its keeper stores it
	// encrypted at rest.
	Sealed bool
}

// sniffBytes is how much of a text file the upload check reads: what format detection looks
// at, and the head whose rows the check parses.
const sniffBytes = 64 << 10

// CheckStatement is the check of a bank statement before a job is accepted, shared by both
// APIs (PRODUCT.md section 6: every format is checked before the 202). It returns the detected
// format, and a *statement.Error when the file is refused; other errors are failures to read
// the spooled upload. A parser's internal failure is not the file's fault and is left to the
// worker.
//
// Containers (PDF, Excel) and the spreadsheet exports that are markup (HTML tables, XML
// Spreadsheets) are read whole: a container's table of contents is at its end, encryption or
// damage shows only when it is opened, and a page's head may be all styles and an embedded logo
// before its first table. Text formats of records (CSV, QIF, MT940, BAI2, OFX, CAMT) are
// parsed in their head only, so a large file is never read whole here; see checkHead.
func CheckStatement(f File, limits statement.Options) (statement.Format, error) {
	// Scans are read with OCR by the workers; here a picture, or a PDF without text, is only
	// checked to open.
	limits.OCR = nil
	head, err := readHead(f, sniffBytes)
	if err != nil {
		return "", err
	}
	format, err := engine.Detect(head)
	if err == nil && !readWhole(format) {
		return checkHead(head, format, f.Size <= int64(len(head)), limits)
	}
	if err != nil && f.Size <= sniffBytes {
		return "", err
	}
	data, err := ReadAll(f)
	if err != nil {
		return "", err
	}
	// Streamed: the check needs the parse's verdict, not the transactions, so a workbook's are
	// not held here.
	s, err := engine.Stream(data, limits)
	if err != nil {
		return refusal(format, err)
	}
	return s.Statement.Format, nil
}

// readWhole reports whether the check reads a file of the format whole.
func readWhole(f statement.Format) bool {
	switch f {
	case statement.FormatPDF, statement.FormatXLSX, statement.FormatXLS, statement.FormatHTML, statement.FormatSpreadsheetML,
		statement.FormatPNG, statement.FormatJPEG, statement.FormatTIFF:
		return true
	}
	return false
}

// checkHead parses the head of a text statement. A file that fits in the head is parsed whole,
// and any failure is the file's. Of a larger file, the head is cut after its last full line,
// and only a failure the head proves refuses it: it is no statement of its format, or holds no
// column of dates and amounts (statement.ErrNotAStatement). What else a head shows, an element
// or record left open, no transaction yet, a control total that does not match, may be the cut
// and not the file; the worker reads the whole file and says.
func checkHead(head []byte, format statement.Format, whole bool, limits statement.Options) (statement.Format, error) {
	if !whole {
		head = cutAtLine(head)
	}
	st, err := engine.Parse(head, limits)
	switch {
	case err == nil:
		return st.Format, nil
	case whole, errors.Is(err, statement.ErrNotAStatement):
		return refusal(format, err)
	}
	return format, nil
}

// refusal turns a parse failure into CheckStatement's answer.
func refusal(format statement.Format, err error) (statement.Format, error) {
	var serr *statement.Error
	if errors.As(err, &serr) && serr.Format != "" {
		// The head alone does not always tell the format: a ZIP's directory is at its end,
		// so a workbook larger than the head is only known as one by the parse.
		format = serr.Format
	}
	switch {
	case errors.Is(err, statement.ErrInternal), errors.Is(err, statement.ErrNoTextLayer):
		// A parser's own failure is not the file's; a scan is read by OCR on a worker.
		return format, nil
	case !errors.As(err, &serr):
		// Parsers return *statement.Error; anything else is still the file's problem.
		return format, statement.Errorf(format, statement.ErrCorrupt, statement.Position{}, "%v", err)
	}
	return format, err
}

// cutAtLine cuts a head of text after its last full line, so the parse does not meet half a
// record. UTF-16 text (by its byte-order mark, or NULs beside ASCII) is cut after a whole
// line-feed unit; a head without any line end is kept as it is.
func cutAtLine(head []byte) []byte {
	le := bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || len(head) >= 2 && head[0] != 0 && head[1] == 0
	be := bytes.HasPrefix(head, []byte{0xFE, 0xFF}) || len(head) >= 2 && head[0] == 0 && head[1] != 0
	switch {
	case le:
		for i := len(head)&^1 - 2; i >= 2; i -= 2 {
			if head[i] == '\n' && head[i+1] == 0 {
				return head[:i+2]
			}
		}
		return head[:len(head)&^1]
	case be:
		for i := len(head)&^1 - 2; i >= 2; i -= 2 {
			if head[i] == 0 && head[i+1] == '\n' {
				return head[:i+2]
			}
		}
		return head[:len(head)&^1]
	}
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		return head[:i+1]
	}
	return head
}

func readHead(f File, n int64) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open upload: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return b, nil
}

// ReadAll returns the whole content of an uploaded file.
func ReadAll(f File) ([]byte, error) {
	r, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open upload: %w", err)
	}
	defer r.Close()
	b := make([]byte, 0, f.Size)
	buf := bytes.NewBuffer(b)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return buf.Bytes(), nil
}
