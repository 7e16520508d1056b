package statement

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// sum adds decimals exactly without allocating while the total fits an int64 at the finest
// exponent seen (any amount a bank prints, in its smallest unit), and carries on in a
// decimal.Decimal once it would not. Finish adds every amount of a statement two or three times;
// decimal.Decimal's Add allocates a big.Int each time. The zero value is a zero sum.
type sum struct {
	small int64
	exp   int32
	large *decimal.Decimal // the total, once it left int64
}

// pow10 holds 10^0 to 10^18, the powers that fit an int64.
var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// small64 returns d as an int64 coefficient and its exponent when its coefficient fits.
func small64(d decimal.Decimal) (int64, int32, bool) {
	if d.NumDigits() > 18 {
		return 0, 0, false
	}
	return d.CoefficientInt64(), d.Exponent(), true
}

// scale multiplies v by 10^n (n >= 0), reporting whether the result fits an int64.
func scale(v int64, n int32) (int64, bool) {
	if n == 0 || v == 0 {
		return v, true
	}
	if n >= int32(len(pow10)) {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(abs64(v)), uint64(pow10[n]))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if v < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// add adds d to the sum.
func (s *sum) add(d decimal.Decimal) {
	if s.large == nil {
		if c, e, ok := small64(d); ok && c != math.MinInt64 && s.small != math.MinInt64 {
			a, b, exp := s.small, c, s.exp
			if s.small == 0 && exp == 0 {
				exp = e
			}
			okA, okB := true, true
			switch {
			case e < exp:
				a, okA = scale(a, exp-e)
				exp = e
			case e > exp:
				b, okB = scale(b, e-exp)
			}
			if okA && okB {
				if total, overflow := addOverflow(a, b); !overflow {
					s.small, s.exp = total, exp
					return
				}
			}
		}
		v := decimal.New(s.small, s.exp)
		s.large = &v
	}
	*s.large = s.large.Add(d)
}

// addOverflow returns a+b and whether it overflowed.
func addOverflow(a, b int64) (int64, bool) {
	c := a + b
	return c, (a > 0 && b > 0 && c < 0) || (a < 0 && b < 0 && c >= 0)
}

// value returns the total.
func (s *sum) value() decimal.Decimal {
	if s.large != nil {
		return *s.large
	}
	return decimal.New(s.small, s.exp)
}

// equals reports whether base plus the sum equals want, exactly, allocating only when a value
// does not fit an int64.
func (s *sum) equals(base, want decimal.Decimal) bool {
	t := *s
	t.large = nil
	if s.large != nil {
		v := *s.large
		t.large = &v
	}
	t.add(base)
	if t.large == nil {
		if c, e, ok := small64(want); ok {
			a, b := t.small, c
			okA, okB := true, true
			switch {
			case e < t.exp:
				a, okA = scale(a, t.exp-e)
			case e > t.exp:
				b, okB = scale(b, e-t.exp)
			}
			if okA && okB {
				return a == b
			}
		}
	}
	return t.value().Equal(want)
}

// AddsUp reports whether base plus amount equals want, exactly, without allocating while the
// values fit an int64 at their finest exponent (decimal.Decimal's Add allocates each time):
// for the checks readers run on every line, such as a running balance following the one before.
func AddsUp(base, amount, want decimal.Decimal) bool {
	var s sum
	s.add(amount)
	return s.equals(base, want)
}
