package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/platform/config"
	"github.com/statementmatch/service/internal/platform/pgembed"
	"github.com/statementmatch/service/internal/postgres"
)

// embeddedDatabase is the database statementd uses inside its embedded cluster.
const embeddedDatabase = "statementd"

// openDatabase connects to the configured database or, with no URL, starts the embedded cluster
// of the data dir, which it restarts if it dies until ctx ends. The returned close function closes the pool and stops the cluster; created
// is true when the embedded database was created just now.
func openDatabase(ctx context.Context, cfg config.Database, logger *slog.Logger) (db *sqlx.DB, closeDB func(), created bool, err error) {
	url := cfg.URL
	stop := func() {}
	if url == "" {
		cluster, err := pgembed.Start(ctx, pgembed.Options{Dir: cfg.DataDir, Logger: logger})
		if err != nil {
			return nil, nil, false, fmt.Errorf("no DATABASE_URL given, and the embedded PostgreSQL did not start: %w", err)
		}
		stop = func() {
			if err := cluster.Stop(); err != nil {
				logger.Error("stopping embedded PostgreSQL", slog.String("error", err.Error()))
			}
		}
		if created, err = createDatabase(ctx, cluster.URL("postgres"), embeddedDatabase); err != nil {
			stop()
			return nil, nil, false, err
		}
		url = cluster.URL(embeddedDatabase)
		// A server that dies under the service is started again, rather than leaving every
		// request at 503 until someone restarts statementd.
		go cluster.Supervise(ctx, logger)
		logger.Info("using embedded PostgreSQL; set DATABASE_URL to use another server", slog.String("data_dir", cfg.DataDir))
	}
	db, err = postgres.Open(ctx, url)
	if err != nil {
		stop()
		return nil, nil, false, err
	}
	return db, func() { _ = db.Close(); stop() }, created, nil
}

// createDatabase creates name on the server of adminURL unless it exists, and says whether it
// did.
func createDatabase(ctx context.Context, adminURL, name string) (bool, error) {
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		return false, err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return false, fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return false, nil
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return false, fmt.Errorf("create database %s: %w", name, err)
	}
	return true, nil
}
