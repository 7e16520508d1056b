package postgres

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// TestAppendDecimal: the COPY text of an amount is decimalText's, fast path or not.
func TestAppendDecimal(t *testing.T) {
	for _, in := range []string{"0", "0.00", "1250.50", "-0.10", "-12.34", "0.005", "-0.0001", "1000",
		"123456789012345678.90", "-99999999999999999999999.999", "9223372036854775807", "-9223372036854775808"} {
		d := decimal.RequireFromString(in)
		require.Equal(t, decimalText(d), string(appendDecimal([]byte("x"), d)[1:]), in)
	}
	for _, d := range []decimal.Decimal{decimal.New(15, 1), decimal.New(-7, 3), decimal.New(0, 2), decimal.New(5, -1)} {
		require.Equal(t, decimalText(d), string(appendDecimal(nil, d)), d.String())
	}
}
