package postgres

import (
	"context"
	"database/sql"
	"errors"
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

// hitQuery counts the request and reads the account's plans in one round trip. The upsert takes
// the row lock, so concurrent requests from any process each see their own count.
const hitQuery = `
WITH hit AS (
    INSERT INTO rate_limit_windows (account_id, api, window_start, count) VALUES ($1, $2, $3, 1)
    ON CONFLICT (account_id, api, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING count
)
SELECT hit.count, a.recon_plan, a.parse_plan FROM hit JOIN accounts a ON a.id = $1`

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
