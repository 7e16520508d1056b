package upload_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/upload"
)

func TestUnlock(t *testing.T) {
	t.Parallel()
	pdfs := filepath.Join("..", "statement", "pdf", "testdata", "open")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(pdfs, name))
		require.NoError(t, err)
		return b
	}
	csv := []byte("Date,Description,Amount\n2024-03-01,Coffee,-3.50\n")
	tests := []struct {
		name     string
		data     []byte
		password string
		want     error
		sealed   bool
	}{
		{name: "a CSV is left as it is, a password ignored", data: csv, password: "x"},
		{name: "a PDF without encryption is left as it is", data: read("pdftex.pdf"), password: "x"},
		{name: "an owner-only PDF is left as it is", data: read("qpdf-aes-256.pdf")},
		{name: "a protected PDF without its password is refused", data: read("qpdf-aes-256-user.pdf"), want: statement.ErrPasswordRequired},
		{name: "a protected PDF with a wrong password is refused", data: read("qpdf-aes-256-user.pdf"), password: "guess", want: statement.ErrPasswordIncorrect},
		{name: "a protected PDF with its password comes out decrypted and sealed", data: read("qpdf-aes-256-user.pdf"), password: "secret", sealed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fileOf("statement", tc.data)
			got, err := upload.Unlock(f, tc.password, statement.Options{})
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.sealed, got.Sealed)
			require.Equal(t, f.Name, got.Name)
			content, err := upload.ReadAll(got)
			require.NoError(t, err)
			require.EqualValues(t, len(content), got.Size)
			if !tc.sealed {
				require.Equal(t, tc.data, content, "the file is the upload itself")
				return
			}
			require.False(t, bytes.Equal(tc.data, content))
			_, err = engine.Parse(content, statement.Options{})
			require.NoError(t, err, "the decrypted file reads without a password")
			r, err := got.Open()
			require.NoError(t, err)
			again, err := io.ReadAll(r)
			require.NoError(t, err)
			require.Equal(t, content, again, "each Open reads from the start")
		})
	}
}
