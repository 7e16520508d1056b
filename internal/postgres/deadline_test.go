package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// A transaction bound to a deadline is ended by the server once the deadline passes, whatever its
// client does: a statement running past it is cancelled, and a client that stops sending (a
// paused worker) loses the session, so its locks and uncommitted rows stop blocking others.
func TestTransactionsBoundByADeadlineAreEndedByTheServer(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `CREATE TABLE held (k int PRIMARY KEY)`)
	require.NoError(t, err)

	t.Run("a statement past the deadline is cancelled", func(t *testing.T) {
		tx, err := db.BeginTxx(ctx, nil)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback() }()
		require.NoError(t, postgres.BoundByDeadline(ctx, tx, 200*time.Millisecond))
		_, err = tx.ExecContext(ctx, `SELECT pg_sleep(5)`)
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%v", err)
		require.Equal(t, "57014", pgErr.Code, "query_canceled")
	})

	t.Run("a client that stops sending loses its locks at the deadline", func(t *testing.T) {
		frozen, err := db.BeginTxx(ctx, nil)
		require.NoError(t, err)
		defer func() { _ = frozen.Rollback() }()
		require.NoError(t, postgres.BoundByDeadline(ctx, frozen, 300*time.Millisecond))
		_, err = frozen.ExecContext(ctx, `INSERT INTO held VALUES (1)`)
		require.NoError(t, err)

		// The same key waits for the frozen transaction, which the server ends.
		began := time.Now()
		_, err = db.ExecContext(ctx, `INSERT INTO held VALUES (1)`)
		require.NoError(t, err)
		require.Less(t, time.Since(began), 5*time.Second)
		require.Error(t, frozen.Commit(), "the frozen transaction was ended")
	})
}
