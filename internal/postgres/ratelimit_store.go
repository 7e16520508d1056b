package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/ratelimit"
)

// RateLimitStore counts requests in rate_limit_windows and failed authentications in
// auth_failures.
type RateLimitStore struct{ DB *sqlx.DB }

var (
	_ ratelimit.Store        = (*RateLimitStore)(nil)
	_ ratelimit.FailureStore = (*RateLimitStore)(nil)
)

// NewRateLimitStore returns the rate-limit store of db.
func NewRateLimitStore(db *sqlx.DB) *RateLimitStore { return &RateLimitStore{DB: db} }

// hitCTE counts a request as the common table expression "hit", whose one row is the window's
// count with this request; the account, the API and the window's start are the parameters
// $first, $first+1 and $first+2. The upsert takes the row lock, so concurrent requests from any
// process each see their own count.
func hitCTE(first int) string {
	a, api, start := "$"+strconv.Itoa(first), "$"+strconv.Itoa(first+1), "$"+strconv.Itoa(first+2)
	return `hit AS (
    INSERT INTO rate_limit_windows (account_id, api, window_start, count) VALUES (` + a + `, ` + api + `, ` + start + `, 1)
    ON CONFLICT (account_id, api, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING count
)`
}

// hitQuery counts the request and reads the account's plans in one round trip.
var hitQuery = `WITH ` + hitCTE(1) + `
SELECT hit.count, a.recon_plan, a.parse_plan FROM hit JOIN accounts a ON a.id = $1`

// countedQuery makes query, a read of at most one row whose arguments are $1 to $n, also count
// the request of d (ratelimit.Deferred) in the same statement: the request costs one round trip.
// Its one row has countedRow's columns (rl_found: query found its row), then query's, which are
// null when query found nothing; it has no row when the account no longer exists. Scan it into a struct that embeds countedRow and a row type whose fields take null,
// and give countedRow.record the outcome.
func countedQuery(query string, n int) string {
	return `WITH ` + hitCTE(n+1) + `
SELECT hit.count AS rl_count, a.recon_plan AS rl_recon_plan, a.parse_plan AS rl_parse_plan, q IS DISTINCT FROM NULL AS rl_found, q.*
  FROM hit JOIN accounts a ON a.id = $` + strconv.Itoa(n+1) + `
  LEFT JOIN LATERAL (` + query + `) q ON true`
}

// countedArgs are the arguments of countedQuery: query's, then the count's.
func countedArgs(d *ratelimit.Deferred, args ...any) []any {
	return append(args, d.AccountID, string(d.API), d.WindowStart)
}

// countedRow is the count a countedQuery took.
type countedRow struct {
	Count int    `db:"rl_count"`
	Recon string `db:"rl_recon_plan"`
	Parse string `db:"rl_parse_plan"`
	Found bool   `db:"rl_found"`
}

// record gives d the count of a countedQuery that returned err, and says whether the query found
// its row.
func (c countedRow) record(d *ratelimit.Deferred, err error) (found bool, _ error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// The count joined no account: it was deleted after its credential was authenticated.
		d.Record(0, ratelimit.Plans{}, account.ErrNotFound)
		return false, nil
	case err != nil:
		return false, err
	}
	d.Record(c.Count, ratelimit.Plans{Recon: account.ReconPlan(c.Recon), Parse: account.ParsePlan(c.Parse)}, nil)
	return c.Found, nil
}

// Hit implements ratelimit.Store.
func (s *RateLimitStore) Hit(ctx context.Context, accountID uuid.UUID, api ratelimit.API, windowStart time.Time) (int, ratelimit.Plans, error) {
	var (
		count int
		plans ratelimit.Plans
	)
	err := s.DB.QueryRowContext(ctx, hitQuery, accountID, string(api), windowStart).Scan(&count, &plans.Recon, &plans.Parse)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, plans, account.ErrNotFound
	}
	return count, plans, err
}

// Forget implements ratelimit.Store; it also forgets old failed-authentication counts.
func (s *RateLimitStore) Forget(ctx context.Context, cutoff time.Time) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM rate_limit_windows WHERE window_start < $1`, cutoff)
	if err != nil {
		return err
	}
	_, err = s.DB.ExecContext(ctx, `DELETE FROM auth_failures WHERE window_start < $1`, cutoff)
	return err
}

// Failures returns the count of key in the window that starts at windowStart.
func (s *RateLimitStore) Failures(ctx context.Context, key string, windowStart time.Time) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count FROM auth_failures WHERE key = $1 AND window_start = $2`, key, windowStart).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// AddFailure implements ratelimit.FailureStore.
func (s *RateLimitStore) AddFailure(ctx context.Context, key string, windowStart time.Time) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `
INSERT INTO auth_failures (key, window_start, count) VALUES ($1, $2, 1)
ON CONFLICT (key, window_start) DO UPDATE SET count = auth_failures.count + 1
RETURNING count`, key, windowStart).Scan(&n)
	return n, err
}

// RemoveFailure implements ratelimit.FailureStore. The row lock of the UPDATE orders it after
// every concurrent AddFailure and RemoveFailure of the key, which then re-read the count.
func (s *RateLimitStore) RemoveFailure(ctx context.Context, key string, windowStart time.Time) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `
UPDATE auth_failures SET count = count - 1 WHERE key = $1 AND window_start = $2 AND count > 0
RETURNING count`, key, windowStart).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // nothing to take back: the window was forgotten, or never counted
	}
	return n, err
}
