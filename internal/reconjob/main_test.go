package reconjob_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/postgres/pgtest"
)

func TestMain(m *testing.M) {
	// Amounts as the service writes them (cmd/statementd sets the same at start): 1250.50 keeps
	// its decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	pgtest.Main(m)
}
