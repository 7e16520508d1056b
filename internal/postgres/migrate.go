package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/statementmatch/service/migrations"
)

// Migrate applies every pending migration in the migrations package to db,
// then those of the job queue (River ships its own), and logs each applied
// version with slog.Default.
//
// It uses goose's Provider API rather than its package-level functions so
// that no global goose state (dialect, base FS, registered Go migrations) is
// shared between callers, such as parallel tests. A PostgreSQL advisory lock
// makes concurrent statementd processes on one database take turns.
func Migrate(ctx context.Context, db *sql.DB) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithDisableGlobalRegistry(true),
		goose.WithSessionLocker(locker),
	)
	if err != nil {
		return fmt.Errorf("postgres: load migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if pe, ok := errors.AsType[*goose.PartialError](err); ok {
		results = pe.Applied // a failed run may still have applied some
	}
	for _, r := range results {
		slog.InfoContext(ctx, "applied migration",
			"version", r.Source.Version, "file", path.Base(r.Source.Path), "took", r.Duration.String())
	}
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	applied, err := migrateQueue(ctx, db)
	if err != nil {
		return fmt.Errorf("postgres: migrate job queue: %w", err)
	}
	if applied > 0 {
		slog.InfoContext(ctx, "applied job queue migrations", "count", applied)
	}
	if len(results) == 0 {
		version, err := p.GetDBVersion(ctx)
		if err != nil {
			return fmt.Errorf("postgres: read schema version: %w", err)
		}
		slog.DebugContext(ctx, "database schema up to date", "version", version)
	}
	return nil
}

// migrateQueue applies River's own migrations. Each runs in its own transaction (a later one
// uses an enum value an earlier one adds, which PostgreSQL allows only after a commit), so a
// session-level advisory lock, held on a connection of its own, makes processes that start
// together take turns.
func migrateQueue(ctx context.Context, db *sql.DB) (int, error) {
	migrator, err := rivermigrate.New(riverdatabasesql.New(db), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, queueMigrationLock); err != nil {
		return 0, err
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, queueMigrationLock)
	}()
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Versions), nil
}

// queueMigrationLock is the advisory lock key of migrateQueue: "river" in ASCII.
const queueMigrationLock int64 = 0x7269766572
