package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
)

// inTx runs fn in a transaction, committing when it returns nil.
func inTx(ctx context.Context, db *sqlx.DB, fn func(*sqlx.Tx) error) error {
	return inConnTx(ctx, db, func(_ *sqlx.Conn, tx *sqlx.Tx) error { return fn(tx) })
}

// inConnTx is inTx for work that also needs the transaction's connection (a COPY through pgx).
//
// When ctx has a deadline (a job's attempt has one), the server enforces it too: each statement
// of the transaction, and each wait between them, is cut off when the time left runs out. A
// worker that stops running mid-transaction (paused, a frozen VM) would otherwise keep its locks,
// and its uncommitted rows would block the attempt that rescued its job, until it ran again.
// One case is beyond this: PostgreSQL does not cancel a COPY that waits for its client's data,
// so a worker frozen in the middle of storing transactions still holds its locks. takeOver deals
// with that one.
func inConnTx(ctx context.Context, db *sqlx.DB, fn func(*sqlx.Conn, *sqlx.Tx) error) error {
	conn, err := db.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok {
		err = boundByDeadline(ctx, tx, time.Until(deadline))
	}
	if err == nil {
		err = fn(conn, tx)
	}
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// boundByDeadline has the server end tx's statements, and its waits between them, once left
// has passed (at least a millisecond: 0 would turn the limits off).
func boundByDeadline(ctx context.Context, tx *sqlx.Tx, left time.Duration) error {
	ms := strconv.FormatInt(max(left.Milliseconds(), 1), 10)
	_, err := tx.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true),
		set_config('idle_in_transaction_session_timeout', $1, true)`, ms)
	return err
}
