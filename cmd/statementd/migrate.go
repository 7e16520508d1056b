package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/statementmatch/service/internal/platform/config"
	"github.com/statementmatch/service/internal/postgres"
)

// migrate applies the embedded migrations to the configured database and exits.
func migrate(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := config.ParseDatabase("migrate", args, getenv, stderr)
	if err != nil {
		return err
	}
	logger, flushLog := newLogger(stderr, slog.LevelInfo)
	defer flushLog()
	slog.SetDefault(logger)
	db, closeDB, _, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	return postgres.Migrate(ctx, db.DB)
}
