package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/reconjob"
)

// limiterOf is a limiter over db.
func limiterOf(db *sqlx.DB) *ratelimit.Limiter {
	// One window for the whole test: counts compared across the turn of a minute would start
	// afresh (a run at 16:31:59 saw 99 remaining where 88 were due).
	now := time.Now()
	return &ratelimit.Limiter{Store: postgres.NewRateLimitStore(db), Now: func() time.Time { return now }}
}

// TestJobReadsCountTheirDeferredRequest: a job read given a deferred rate-limit count
// (ratelimit.Pending) counts it in its own statement and answers as the plain read does, found
// or not; Settle then counts nothing more, so each request counts once. A deleted account's
// count records account.ErrNotFound.
func TestJobReadsCountTheirDeferredRequest(t *testing.T) {
	t.Parallel()
	// Parse reads of two kinds count in two databases: one account's window holds few requests.
	recon, parse, results := setupJobStore(t), setupParseStore(t), setupParseStore(t)
	rj, pj, pr := recon.create(t), parse.create(t), results.create(t)

	type read func(ctx context.Context, acct, id uuid.UUID) (uuid.UUID, error)
	reads := []struct {
		name    string
		api     ratelimit.API
		read    read
		id      uuid.UUID
		miss    error
		account uuid.UUID
		other   func(*testing.T) account.Account
		l       *ratelimit.Limiter
	}{
		{"recon Get", ratelimit.Recon, func(ctx context.Context, acct, id uuid.UUID) (uuid.UUID, error) {
			j, err := recon.store.Get(ctx, acct, account.Production, id)
			return j.ID, err
		}, rj.ID, reconjob.ErrNotFound, recon.account.ID, recon.otherAccount, limiterOf(recon.db)},
		{"recon Results", ratelimit.Recon, func(ctx context.Context, acct, id uuid.UUID) (uuid.UUID, error) {
			j, _, err := recon.store.Results(ctx, acct, account.Production, id)
			return j.ID, err
		}, rj.ID, reconjob.ErrNotFound, recon.account.ID, recon.otherAccount, limiterOf(recon.db)},
		{"parse Get", ratelimit.Parse, func(ctx context.Context, acct, id uuid.UUID) (uuid.UUID, error) {
			j, err := parse.store.Get(ctx, acct, id)
			return j.ID, err
		}, pj.ID, parsejob.ErrNotFound, parse.account.ID, parse.otherAccount, limiterOf(parse.db)},
		{"parse Results", ratelimit.Parse, func(ctx context.Context, acct, id uuid.UUID) (uuid.UUID, error) {
			j, _, err := results.store.Results(ctx, acct, id, -1, 10)
			return j.ID, err
		}, pr.ID, parsejob.ErrNotFound, results.account.ID, results.otherAccount, limiterOf(results.db)},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			l, other := r.l, r.other(t)
			cases := []struct {
				name    string
				account uuid.UUID
				id      uuid.UUID
				found   bool
			}{
				{"its account finds it", r.account, r.id, true},
				{"an unknown id", r.account, uuid.New(), false},
				{"another account's job", other.ID, r.id, false},
			}
			for _, c := range cases {
				before := remaining(t, l, c.account, r.api)
				d := l.Defer(c.account, r.api)
				ctx := ratelimit.WithDeferred(t.Context(), d)
				plainID, plainErr := r.read(t.Context(), c.account, c.id)
				id, err := r.read(ctx, c.account, c.id)
				require.Equal(t, plainID, id, c.name)
				require.Equal(t, plainErr, err, c.name)
				if c.found {
					require.NoError(t, err, c.name)
					require.Equal(t, c.id, id, c.name)
				} else {
					require.ErrorIs(t, err, r.miss, c.name)
				}
				require.Nil(t, ratelimit.Pending(ctx, c.account), "%s: the read counted the request", c.name)
				dec, err := l.Settle(t.Context(), d)
				require.NoError(t, err)
				require.Equal(t, before-1, dec.Remaining, "%s: counted once, by the read", c.name)
				require.Equal(t, before-2, remaining(t, l, c.account, r.api), "%s: and not again by Settle", c.name)
			}
		})
	}

	l := limiterOf(parse.db)
	t.Run("a deleted account", func(t *testing.T) {
		gone := parse.otherAccount(t)
		_, err := postgres.NewAccountStore(parse.db).DeleteAccount(t.Context(), gone.ID)
		require.NoError(t, err)
		d := l.Defer(gone.ID, ratelimit.Parse)
		ctx := ratelimit.WithDeferred(t.Context(), d)
		_, err = parse.store.Get(ctx, gone.ID, pj.ID)
		require.ErrorIs(t, err, parsejob.ErrNotFound)
		_, err = l.Settle(t.Context(), d)
		require.ErrorIs(t, err, account.ErrNotFound)
	})

	t.Run("a count of another account is not taken", func(t *testing.T) {
		other := parse.otherAccount(t)
		d := l.Defer(other.ID, ratelimit.Parse)
		ctx := ratelimit.WithDeferred(t.Context(), d)
		_, err := parse.store.Get(ctx, parse.account.ID, pj.ID)
		require.NoError(t, err)
		require.NotNil(t, ratelimit.Pending(ctx, other.ID), "the read was for another account: the count waits for Settle")
	})
}

// remaining takes a request of acct and returns the Remaining it leaves.
func remaining(t *testing.T, l *ratelimit.Limiter, acct uuid.UUID, api ratelimit.API) int {
	t.Helper()
	d, err := l.Take(t.Context(), acct, api)
	require.NoError(t, err)
	return d.Remaining
}
