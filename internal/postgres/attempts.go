package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// Attempt fencing in the database: the transactions of an attempt at a job carry its tag
// (application_name), so that a newer attempt can find and end an older one that froze while it
// held the job's row; the job rows' attempt column refuses a stale attempt's outcome
// (attempt.ErrStale).

// attemptTag is one attempt at a job: the n-th run of the job's queued work.
type attemptTag struct {
	kind string // parseAttemptKind or reconAttemptKind
	job  uuid.UUID
	n    int
}

// The kinds of attempt: at a parsing job, at a reconciliation job.
const (
	parseAttemptKind = "parse-job"
	reconAttemptKind = "recon-job"
)

// name is the application_name of the attempt's transactions, which pg_stat_activity shows:
// "parse-job <id> #<n>", 59 bytes at most (PostgreSQL keeps 63).
func (a attemptTag) name() string { return a.kind + " " + a.job.String() + " #" + strconv.Itoa(a.n) }

// tag names tx after the attempt until tx ends, so that a newer attempt can find it (see
// takeOver), and so can whoever looks at pg_stat_activity.
func (a attemptTag) tag(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT set_config('application_name', $1, true)`, a.name())
	return err
}

// takeOverLockWait is how long takeOver waits for the job's row before it looks for an older
// attempt to end.
const takeOverLockWait = time.Second

// takeOver runs take, which moves the job to attempt a (its claim, or its failure), in a
// transaction of its own, tagged as a's. take waits for the job's row while another transaction
// holds it. That is normally brief; the transaction of an older attempt that stopped running ends
// at that attempt's deadline (see inConnTx), which has passed by the time a newer attempt runs,
// except when it stopped in the middle of a COPY, which PostgreSQL does not cancel: that one
// would block the job until its worker ran again. So take waits takeOverLockWait at a time;
// after each wait, the backends of the job's older attempts that are still in a transaction
// (found by their tags) are terminated, which rolls back what they wrote, and take runs again.
// Whatever blocks take, it is retried until ctx ends.
//
// pg_terminate_backend needs the older attempt's backend to run as the same role (or the role
// to have pg_signal_backend), as all statementd processes sharing a database do.
func takeOver(ctx context.Context, db *sqlx.DB, a attemptTag, take func(*sqlx.Tx) error) error {
	for {
		err := inTx(ctx, db, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, `SELECT set_config('lock_timeout', $1, true), set_config('application_name', $2, true)`,
				strconv.FormatInt(takeOverLockWait.Milliseconds(), 10), a.name()); err != nil {
				return err
			}
			return take(tx)
		})
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != pgerrcode.LockNotAvailable {
			return err
		}
		if err := endOlderAttempts(ctx, db, a); err != nil {
			return err
		}
	}
}

// endOlderAttempts terminates the backends whose transactions are tagged as attempts at a's job
// older than a.
func endOlderAttempts(ctx context.Context, db *sqlx.DB, a attemptTag) error {
	prefix := a.kind + " " + a.job.String() + " #"
	_, err := db.ExecContext(ctx, `
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
 WHERE pid <> pg_backend_pid() AND starts_with(application_name, $1)
   AND CASE WHEN substr(application_name, length($1) + 1) ~ '^[0-9]{1,9}$'
            THEN substr(application_name, length($1) + 1)::int < $2 END`, prefix, a.n)
	if err != nil {
		return fmt.Errorf("end older attempts of %s %s: %w", a.kind, a.job, err)
	}
	return nil
}
