package upload

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/statement/pdf"
)

// MaxPasswordChars is the longest password a request may carry (the specs' maxLength).
const MaxPasswordChars = 256

// Unlock opens a file its owner protected with a password: a PDF that needs a user password
// is decrypted with password (pdf.Decrypt) and returned in memory, Sealed, so that its keeper
// stores it encrypted at rest; the password itself goes no further. Any other file is returned
// as it is, and a password sent with it is ignored. A protected PDF without a password, or with
// a wrong one, is a *statement.Error of kind ErrPasswordRequired or ErrPasswordIncorrect, whose
// message never repeats the password.
func Unlock(f File, password string, limits statement.Options) (File, error) {
	head, err := readHead(f, sniffBytes)
	if err != nil {
		return File{}, err
	}
	if format, err := engine.Detect(head); err != nil || format != statement.FormatPDF {
		return f, nil
	}
	data, err := ReadAll(f)
	if err != nil {
		return File{}, err
	}
	limits.Password = password
	plain, err := pdf.Decrypt(data, limits)
	var serr *statement.Error
	switch {
	case errors.Is(err, statement.ErrPasswordRequired), errors.Is(err, statement.ErrPasswordIncorrect):
		return File{}, err
	case err != nil && errors.As(err, &serr):
		// The file is damaged in a way the check names better; it is refused there.
		return f, nil
	case err != nil:
		return File{}, err
	case plain == nil:
		return f, nil
	}
	return File{Name: f.Name, Size: int64(len(plain)), SHA256: sha256.Sum256(plain), Sealed: true,
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(plain)), nil }}, nil
}

// Digester makes keyed digests of the secrets a request carries; secretbox.Box is one.
type Digester interface {
	Digest(purpose string, data []byte) []byte
}

// ErrNoDigester: a password was sent to a service that was given no Digester.
var ErrNoDigester = errors.New("upload: a password needs a Digester to be identified")

// HashPassword adds a password to the hash h of a request, as its keyed digest (never the
// password itself, which an idempotency record would otherwise let anyone test guesses
// against). Nothing is added without a password, so the hash of a request without one is as
// it always was.
func HashPassword(h hash.Hash, d Digester, password string) error {
	if password == "" {
		return nil
	}
	if d == nil {
		return ErrNoDigester
	}
	digest := d.Digest("upload password", []byte(password))
	_ = binary.Write(h, binary.BigEndian, uint64(len(digest)))
	h.Write(digest)
	return nil
}
