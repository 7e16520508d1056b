package statement

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

func TestSum(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	tests := []struct {
		name   string
		values []string
		want   string
	}{
		{"nothing", nil, "0"},
		{"cents", []string{"1250.50", "-89.90", "0.40"}, "1161"},
		{"exponents mixed", []string{"1", "0.5", "0.25", "100"}, "101.75"},
		{"back to zero", []string{"1.00", "-1.00", "2.5"}, "2.5"},
		{"past int64 in the coefficient", []string{"92233720368547758.07", "0.01"}, "92233720368547758.08"},
		{"an addend past int64", []string{"1", "123456789012345678901234567890.5"}, "123456789012345678901234567891.5"},
		{"an exponent too fine to scale to", []string{"1000000000", "0.0000000000000000001"}, "1000000000.0000000000000000001"},
		{"overflow while adding", []string{"9223372036854775807", "9223372036854775807"}, "18446744073709551614"},
		{"positive exponent", []string{"1E3", "1"}, "1001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s sum
			for _, v := range tt.values {
				s.add(d(v))
			}
			require.True(t, s.value().Equal(d(tt.want)), "got %s, want %s", s.value(), tt.want)
			require.True(t, s.equals(decimal.Zero, d(tt.want)))
			require.False(t, s.equals(d("0.01"), d(tt.want)))
		})
	}
}

// TestSumAgreesWithDecimal adds random amounts (cents, mills, whole units, huge values and
// long decimals) both ways, and compares every partial total and equality.
func TestSumAgreesWithDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	random := func() decimal.Decimal {
		switch r.IntN(5) {
		case 0:
			return decimal.New(r.Int64N(2_000_000_00)-1_000_000_00, -2)
		case 1:
			return decimal.New(r.Int64N(2_000_000)-1_000_000, -3)
		case 2:
			return decimal.New(r.Int64()-r.Int64(), int32(r.IntN(4)))
		case 3:
			return decimal.RequireFromString(strings.Repeat("9", 1+r.IntN(30)) + "." + strings.Repeat("1", 1+r.IntN(25)))
		}
		return decimal.New(r.Int64N(1000), -int32(r.IntN(22)))
	}
	for range 2000 {
		var s sum
		want := decimal.Zero
		for range 1 + r.IntN(20) {
			v := random()
			s.add(v)
			want = want.Add(v)
			require.True(t, s.value().Equal(want), "total %s, want %s", s.value(), want)
		}
		base, other := random(), random()
		require.Equal(t, base.Add(want).Equal(other), s.equals(base, other))
		require.True(t, s.equals(base, base.Add(want)))
	}
}

func TestAddsUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, amount, want string
		adds               bool
	}{
		{"100.00", "-40.5", "59.50", true},
		{"100.00", "-40.5", "59.51", false},
		{"0", "0", "0.00", true},
		{"99999999999999999.99", "0.01", "100000000000000000", true},
		{"99999999999999999.99", "0.01", "100000000000000000.01", false},
		{"-7", "7", "0", true},
	}
	for _, tt := range tests {
		got := AddsUp(decimal.RequireFromString(tt.base), decimal.RequireFromString(tt.amount), decimal.RequireFromString(tt.want))
		if got != tt.adds {
			t.Errorf("AddsUp(%s, %s, %s) = %v, want %v", tt.base, tt.amount, tt.want, got, tt.adds)
		}
	}
}
