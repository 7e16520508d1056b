package excel

import (
	"os"
	"testing"

	"github.com/statementmatch/service/internal/statement/statementtest"
)

func TestMain(m *testing.M) {
	// A panic must fail the tests and the fuzzer, not turn into an ErrCorrupt.
	recoverPanics = false
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}
