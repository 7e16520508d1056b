package corpus

import (
	"errors"
	"strings"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/statement/pdf"
)

// checkProtected checks what the service does with a file protected by the key's password,
// beside TestCorpus's reading of it with the password: without a password the file is refused
// as needing one, with a wrong one as the wrong one, and neither message repeats what was
// sent; decrypted with the password (as the service stores it), it opens without one and reads
// as the protected file does.
func checkProtected(t *testing.T, name string, data []byte, k Key) {
	t.Helper()
	for _, tc := range []struct {
		password string
		want     error
	}{
		{"", statement.ErrPasswordRequired},
		{"not-" + k.Password, statement.ErrPasswordIncorrect},
	} {
		_, err := engine.Parse(data, statement.Options{Password: tc.password})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s with password %q: want %v, got %v", name, tc.password, tc.want, err)
		} else if tc.password != "" && strings.Contains(err.Error(), tc.password) {
			t.Errorf("%s: the refusal repeats the password: %v", name, err)
		}
	}
	plain, err := pdf.Decrypt(data, statement.Options{Password: k.Password})
	if err != nil || plain == nil {
		t.Errorf("%s: decrypt with the key's password: %v (nil output: %v)", name, err, plain == nil)
		return
	}
	want := Check(name, data, k)
	got := Check(name, plain, Key{Transactions: k.Transactions, OpeningBalance: k.OpeningBalance, ClosingBalance: k.ClosingBalance})
	if got.Status != want.Status || got.Got != want.Got {
		t.Errorf("%s: decrypted it reads %s with %d transactions, protected %s with %d", name, got.Status, got.Got, want.Status, want.Got)
	}
}
