// Package spool reads the multipart uploads of both APIs as a stream: each file part is spooled
// to a temporary file while it arrives, so memory stays flat whatever the size. The validator
// (httpkit.Validator with StreamUploads) leaves these bodies unread; an operation's handler reads
// them here, and this package checks the parts the spec declares (FormSpec).
package spool

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/upload"
)

// Form is a multipart upload read as a stream: its file parts spooled to temporary files whose
// names the server chose (the client's file name is only ever kept as text), its other fields in
// memory. Remove deletes the files.
type Form struct {
	// Files are the file parts by field. A File's Name is the part's file name without
	// directory parts and control characters, at most 255 bytes; empty when the client sent
	// none. Its Open reads the temporary file from the start.
	Files  map[string]upload.File
	Fields map[string]string
	paths  []string
}

// Remove deletes the form's temporary files.
func (f *Form) Remove() {
	for _, p := range f.paths {
		_ = os.Remove(p)
	}
}

// FormSpec says which parts a multipart upload may hold.
type FormSpec struct {
	// Files are the names of the file parts; Required the ones that must be present.
	Files    []string
	Required []string
	// Fields are the names of the text parts.
	Fields []string
	// MaxFileBytes bounds each file part.
	MaxFileBytes int64
	// MaxFieldChars bounds text parts in characters, as the spec's maxLength does, by name.
	MaxFieldChars map[string]int
}

// maxFieldBytes bounds a text part: the forms of these APIs only have short ones.
const maxFieldBytes = 1 << 10

// Read reads a multipart body part by part, spooling each file part to a temporary file
// while it arrives, so memory stays flat whatever the size. It answers (as *httpkit.Error) 413
// FILE_TOO_LARGE as soon as a file part passes MaxFileBytes, without reading further, and 400
// INVALID_REQUEST for a body that is not well-formed multipart, an unknown or repeated part, a
// text part that is too long, or a missing required file. An answer given before the body's end
// closes the connection (see closesConnection). On error nothing is left on disk.
func Read(r *multipart.Reader, spec FormSpec) (_ *Form, err error) {
	form := &Form{Files: map[string]upload.File{}, Fields: map[string]string{}}
	readToEnd := false
	defer func() {
		if err != nil {
			form.Remove()
			if !readToEnd {
				err = closesConnection(err)
			}
		}
	}()
	isFile := func(name string) bool { return slices.Contains(spec.Files, name) }
	seen := map[string]bool{}
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			readToEnd = true
			break
		}
		if err != nil {
			return nil, readError(err)
		}
		name := p.FormName()
		switch {
		case name == "":
			if cd := p.Header.Get("Content-Disposition"); cd != "" {
				if _, _, err := mime.ParseMediaType(cd); err != nil {
					return nil, invalidRequest("a part's Content-Disposition header is malformed; a quote or backslash in a file name must be escaped with a backslash")
				}
			}
			return nil, invalidRequest("a part of the multipart body has no name")
		case !isFile(name) && !slices.Contains(spec.Fields, name):
			return nil, invalidRequest(fmt.Sprintf("%s: unknown field; the fields are %s", name, strings.Join(append(append([]string{}, spec.Files...), spec.Fields...), ", ")))
		case seen[name]:
			return nil, invalidRequest(name + ": sent more than once")
		}
		seen[name] = true
		if isFile(name) {
			u, path, err := spool(p, spec.MaxFileBytes)
			if err != nil {
				return nil, err
			}
			form.Files[name] = u
			form.paths = append(form.paths, path)
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, maxFieldBytes+1))
		if err != nil {
			return nil, readError(err)
		}
		if len(b) > maxFieldBytes {
			return nil, invalidRequest(fmt.Sprintf("%s: longer than %d bytes", name, maxFieldBytes))
		}
		if !utf8.Valid(b) {
			return nil, invalidRequest(name + ": not UTF-8 text")
		}
		if n, ok := spec.MaxFieldChars[name]; ok && utf8.RuneCount(b) > n {
			return nil, invalidRequest(fmt.Sprintf("%s: longer than %d characters", name, n))
		}
		form.Fields[name] = string(b)
	}
	for _, name := range spec.Required {
		if _, ok := form.Files[name]; !ok {
			return nil, invalidRequest(name + ": required file is missing")
		}
	}
	return form, nil
}

// closesConnection makes a refusal that was decided before the end of the request body close
// the connection after the answer. Otherwise net/http, to keep the connection, first reads what
// is left of the body (up to 256 KiB when its length is unknown or close to its end): a client
// that stops sending, waiting for the answer, would get it only when the read timeout ends.
func closesConnection(err error) error {
	var ce *httpkit.Error
	if !errors.As(err, &ce) {
		return err // a server error: the client gets a 500 either way
	}
	h := ce.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Connection", "close")
	ce.Header = h
	return err
}

// spool copies a file part into a new temporary file at path, hashing it on the way.
func spool(p *multipart.Part, maxBytes int64) (u upload.File, path string, err error) {
	f, err := os.CreateTemp("", "statementd-upload-*")
	if err != nil {
		return upload.File{}, "", fmt.Errorf("create upload file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write upload file: %w", cerr)
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(p, maxBytes+1))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return upload.File{}, "", fmt.Errorf("write upload file: %w", err)
		}
		return upload.File{}, "", readError(err)
	}
	if n > maxBytes {
		return upload.File{}, "", &httpkit.Error{Status: http.StatusRequestEntityTooLarge, Code: httpkit.CodeFileTooLarge,
			Message: fmt.Sprintf("%s: file exceeds the limit of %d bytes", p.FormName(), maxBytes)}
	}
	path = f.Name()
	return upload.File{Name: cleanFileName(p.FileName()), Size: n, SHA256: sum(h),
		Open: func() (io.ReadCloser, error) { return os.Open(path) }}, path, nil
}

func sum(h hash.Hash) (out [32]byte) {
	copy(out[:], h.Sum(nil))
	return out
}

// readError classifies a failure to read the body: past the body limit it is 413, otherwise
// the body is not well-formed multipart (or the client went away), 400.
func readError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return httpkit.TooLarge(err)
	}
	return &httpkit.Error{Status: http.StatusBadRequest, Code: httpkit.CodeInvalidRequest,
		Message: "The multipart body could not be read: it is malformed or was cut short.", Err: err}
}

func invalidRequest(msg string) *httpkit.Error {
	return &httpkit.Error{Status: http.StatusBadRequest, Code: httpkit.CodeInvalidRequest, Message: msg}
}

// cleanFileName keeps a client's file name fit for display: no directory parts (mime/multipart
// already takes the base name), nothing httpkit.DisplayText removes (control characters,
// bidirectional controls, with which "\u202egpj.csv" would show in a list as "csv.jpg"), at
// most 255 bytes.
func cleanFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = httpkit.DisplayText(name)
	if name == "." || name == ".." {
		return ""
	}
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}
