package pdf

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// TestDecrypt: a file protected by a user password comes out decrypted with it, opening
// without one and reading as it did; a file that needs no password is left as it is (nil);
// no password and a wrong one are refused as such, without repeating what was sent.
func TestDecrypt(t *testing.T) {
	t.Parallel()
	user := fixture(t, "qpdf-aes-256-user.pdf")
	// A statement whose permission bits deny copying its text, as many banks set them.
	restricted, _ := pdftest.Statement(t, pdftest.Spec{Pages: 1, RowsPerPage: 5, Protect: true, UserPass: "secret"})
	tests := []struct {
		name     string
		data     []byte
		password string
		want     error
		// decrypted: the answer is a new file (not nil).
		decrypted bool
	}{
		{name: "a file without encryption needs no decrypting", data: fixture(t, "pdftex.pdf"), password: "secret"},
		{name: "an owner-only file needs no decrypting", data: fixture(t, "qpdf-aes-256.pdf"), password: "secret"},
		{name: "an RC4 owner-only file needs no decrypting", data: fixture(t, "qpdf-rc4-40.pdf")},
		{name: "a protected file without a password is refused", data: user, want: statement.ErrPasswordRequired},
		{name: "a protected file with a wrong password is refused", data: user, password: "guess", want: statement.ErrPasswordIncorrect},
		{name: "a protected file is decrypted with its password", data: user, password: "secret", decrypted: true},
		{name: "a protected file that lost its end is decrypted too", data: withoutEOF(user), password: "secret", decrypted: true},
		{name: "a protected file that denies copying is decrypted too", data: restricted, password: "secret", decrypted: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := Decrypt(tc.data, statement.Options{Password: tc.password})
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				if tc.password != "" {
					require.NotContains(t, err.Error(), tc.password)
				}
				return
			}
			require.NoError(t, err)
			if !tc.decrypted {
				require.Nil(t, out)
				return
			}
			require.NotNil(t, out)
			require.False(t, declaresEncryption(out), "the decrypted file declares no encryption")
			got, err := Parse(out, statement.Options{})
			require.NoError(t, err, "the decrypted file opens without a password")
			before, err := Parse(tc.data, statement.Options{Password: tc.password})
			require.NoError(t, err)
			require.Equal(t, before.Transactions, got.Transactions)
		})
	}
}
