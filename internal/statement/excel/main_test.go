package excel

import (
	"os"
	"testing"

	"github.com/shopspring/decimal"
)

func TestMain(m *testing.M) {
	// A panic must fail the tests and the fuzzer, not turn into an ErrCorrupt.
	recoverPanics = false
	// As the service sets them at start: amounts are JSON numbers with their stated decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}
