// Package postgres holds the sqlx implementations of the business Store
// interfaces (AccountStore for account.Store), and opening and migrating the
// PostgreSQL database they share.
//
// PostgreSQL is statementd's only required service, so everything persistent
// lives here; the business packages see only their Store interfaces.
package postgres

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"
)

// DriverName is the database/sql driver statementd uses: pgx's. It keeps each connection's
// statements prepared (a cache of 512 per connection), so a query it has seen costs one round
// trip and no planning, where lib/pq, the driver before it, prepared every query again: two
// round trips and a parse and plan each time. Being prepared per connection, the statements need
// a session that stays on one server connection: PgBouncer in transaction mode would need
// default_query_exec_mode=exec in the URL.
const DriverName = "pgx"

// pingTimeout bounds the connection check in Open, so that a wrong
// DATABASE_URL (a host that drops packets) fails start-up promptly instead of
// hanging it.
const pingTimeout = 10 * time.Second

// Open connects to the PostgreSQL database at url (a postgres:// URL or a
// libpq key=value string) and checks that it answers. The pool is sized for
// one statementd process; PostgreSQL's default max_connections is 100.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: open %s: %w", redact(url), err)
	}
	db := sqlx.NewDb(stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(registerTypes)), DriverName)
	db.SetMaxOpenConns(20)
	// As many idle as open: with fewer, a burst closes the extra connections as it ebbs and
	// opens new ones (a backend fork and a SCRAM handshake each) at the next, which a load of
	// 1,000 requests a second did hundreds of times in 15 s.
	db.SetMaxIdleConns(20)
	// Idle connections are released so that a quiet service does not hold
	// backends, and recycled so that server-side memory and changed settings
	// (after a failover, say) do not stick forever.
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)

	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", redact(url), err)
	}
	return db, nil
}

// redact hides the password of a URL so that connection errors can be logged.
// Key=value strings are not echoed at all, since they may hold one too.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "the configured database"
	}
	return u.Redacted()
}
