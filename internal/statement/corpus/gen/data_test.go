package main

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// The generator's statements are built in memory here, without running any producer: every
// key must add up as the printed statement does.
func TestStatementsAddUp(t *testing.T) {
	t.Parallel()
	for i, p := range plans() {
		s := p.build(rand.New(rand.NewPCG(2026, uint64(1000+i))))
		t.Run(s.layout, func(t *testing.T) {
			if len(s.txns) == 0 || s.doc == nil {
				t.Fatal("no transactions or no document")
			}
			if s.opening != nil {
				c := *s.opening
				for _, x := range s.txns {
					c = c.Add(x.amount)
				}
				if s.closing == nil || !c.Equal(*s.closing) {
					t.Errorf("opening plus transactions is %s, closing %v", c, s.closing)
				}
			}
			for _, x := range s.txns {
				d := x.date.Truncate(24 * 3600e9)
				if d.Before(s.start) || d.After(s.end) {
					t.Errorf("%s is outside the period %s to %s", x.date, s.start, s.end)
				}
				if x.amount.IsZero() {
					t.Errorf("zero amount on %s", x.date)
				}
			}
			for _, render := range []func(*Doc) string{renderHTML, renderGroff, func(d *Doc) string { return renderLaTeX(d, true) }} {
				if render(s.doc) == "" {
					t.Error("empty rendering")
				}
			}
		})
	}
}

func TestGroup(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		indian   bool
		sep, dec string
	}{
		{"1234567.89", "12,34,567.89", true, ",", "."},
		{"-123456.7", "1,23,456.70", true, ",", "."},
		{"999.5", "999.50", true, ",", "."},
		{"1234567.89", "1,234,567.89", false, ",", "."},
		{"1234.5", "1.234,50", false, ".", ","},
	} {
		if got := group(decimal.RequireFromString(tt.in), 2, tt.sep, tt.dec, tt.indian); got != tt.want {
			t.Errorf("group(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 31: "31st"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %s, want %s", n, got, want)
		}
	}
}
