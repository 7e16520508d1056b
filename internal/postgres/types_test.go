package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// TestArgumentsRoundTrip sends uuid.UUID and decimal.Decimal arguments, which the connection
// encodes in binary of its own (types.go), and reads back what PostgreSQL received, exactly.
func TestArgumentsRoundTrip(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	for _, text := range []string{"0", "1.50", "-2418.80", "0.001", "-0.10", "123456789012345678901234567890.123456789", "1E+3", "-5E-20"} {
		d := decimal.RequireFromString(text)
		var got string
		if err := db.QueryRowContext(ctx, `SELECT $1::numeric::text`, d).Scan(&got); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		back, err := decimal.NewFromString(got)
		if err != nil {
			t.Fatalf("%s: PostgreSQL gave %q: %v", text, got, err)
		}
		if !back.Equal(d) || back.Exponent() != min(d.Exponent(), 0) {
			t.Errorf("decimal %s (exponent %d) arrived as %s", text, d.Exponent(), got)
		}
		// As an argument of a text parameter, the decimal is its text with all its digits.
		if err := db.QueryRowContext(ctx, `SELECT $1::text`, d).Scan(&got); err != nil {
			t.Fatalf("%s as text: %v", text, err)
		}
		if want := d.StringFixed(max(-d.Exponent(), 0)); got != want {
			t.Errorf("decimal %s as text arrived as %q, want %q", text, got, want)
		}
	}
	for _, u := range []uuid.UUID{uuid.Nil, uuid.MustParse("1b4e28ba-2fa1-11d2-883f-0016d3cca427"), uuid.New()} {
		var got string
		if err := db.QueryRowContext(ctx, `SELECT $1::uuid::text`, u).Scan(&got); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if got != u.String() {
			t.Errorf("uuid %s arrived as %s", u, got)
		}
		var back uuid.UUID
		if err := db.QueryRowContext(ctx, `SELECT $1::uuid`, &u).Scan(&back); err != nil || back != u {
			t.Errorf("uuid %s through a pointer came back as %s, %v", u, back, err)
		}
		if err := db.QueryRowContext(ctx, `SELECT $1::text`, u).Scan(&got); err != nil || got != u.String() {
			t.Errorf("uuid %s as text arrived as %q, %v", u, got, err)
		}
	}
}
