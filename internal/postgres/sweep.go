package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/reconjob"
)

// Sweeper fails what the queue gave up on: the unfinished jobs whose queued work was discarded
// (attempts exhausted, for instance by a file that kills its worker every time) or cancelled,
// or was completed long ago by an attempt that lost its claim while the newer attempt vanished;
// and the pending webhook deliveries whose work was discarded or cancelled. What such a job
// becomes is the job rules' decision (reconjob.Abandoned, parsejob.Abandoned); a parsing job's
// failure is announced as parsejob.Announcement says.
type Sweeper struct {
	DB    *sqlx.DB
	Queue Enqueuer
	// Recon and Parse are the failures of each kind of job the queue gave up on.
	Recon reconjob.Failure
	Parse parsejob.Failure
	// DeliveryKind is the river_job kind of webhook deliveries (queue.KindDelivery).
	DeliveryKind string
}

// Sweep fails what the queue gave up on, with gaveUpAfter the time after which work completed
// without finishing its job is taken as given up. Each table is swept even when another one's
// sweep fails.
func (s *Sweeper) Sweep(ctx context.Context, gaveUpAfter time.Duration) error {
	var errs []error
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		_, err := s.sweepJobsTx(ctx, tx, "recon_jobs", "'processing'", reconAttemptKind, string(s.Recon.Code), s.Recon.Message, gaveUpAfter)
		return err
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("sweep recon_jobs: %w", err))
	}
	err = inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		failed, err := s.sweepJobsTx(ctx, tx, "parse_jobs", "'queued', 'processing'", parseAttemptKind, string(s.Parse.Code), s.Parse.Message, gaveUpAfter)
		if err != nil {
			return err
		}
		for _, j := range failed {
			completed := j.CompletedAt
			if err := announce(ctx, tx, s.Queue, parsejob.Job{ID: j.ID, AccountID: j.AccountID, Status: parsejob.StatusFailed,
				CreatedAt: j.CreatedAt, CompletedAt: &completed}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("sweep parse_jobs: %w", err))
	}
	_, err = s.DB.ExecContext(ctx, `
UPDATE webhook_deliveries d
   SET status = 'failed', status_reason = 'The delivery could not be made.', next_attempt_at = NULL, completed_at = now()
  FROM river_job r
 WHERE r.kind = $1 AND r.state IN ('discarded', 'cancelled') AND d.id = (r.args ->> 'delivery_id')::uuid AND d.status = 'pending'`,
		s.DeliveryKind)
	if err != nil {
		errs = append(errs, fmt.Errorf("sweep webhook deliveries: %w", err))
	}
	return errors.Join(errs...)
}

// sweptJob is a job the sweep failed.
type sweptJob struct {
	ID          uuid.UUID `db:"id"`
	AccountID   uuid.UUID `db:"account_id"`
	CreatedAt   time.Time `db:"created_at"`
	CompletedAt time.Time `db:"completed_at"`
}

// sweepJobsTx fails, in tx, the jobs of table (whose unfinished statuses are the SQL list
// unfinished, and whose attempts are tagged as kind) that the queue gave up on, with code and
// message, and returns them.
func (s *Sweeper) sweepJobsTx(ctx context.Context, tx *sqlx.Tx, table, unfinished, kind, code, message string, gaveUpAfter time.Duration) ([]sweptJob, error) {
	// The jobs of table whose queue row is r that the sweep fails; $1 is gaveUpAfter in seconds.
	gaveUp := `j.status IN (` + unfinished + `) AND (r.state IN ('discarded', 'cancelled')
        OR (r.state = 'completed' AND r.finalized_at < now() - make_interval(secs => $1)))`
	// The last attempt at such a job may have frozen in the middle of a COPY, which the server
	// does not cancel (see takeOver); it would hold the job's row, and so the sweep, until it
	// ran again. Its backend is ended first.
	_, err := tx.ExecContext(ctx, `
SELECT pg_terminate_backend(a.pid)
  FROM `+table+` j JOIN river_job r ON r.id = j.queue_job_id
  JOIN pg_stat_activity a ON starts_with(a.application_name, $2::text || ' ' || j.id || ' #')
 WHERE `+gaveUp+` AND a.pid <> pg_backend_pid()`, gaveUpAfter.Seconds(), kind)
	if err != nil {
		return nil, fmt.Errorf("end the attempts at abandoned jobs: %w", err)
	}
	var failed []sweptJob
	err = tx.SelectContext(ctx, &failed, `
UPDATE `+table+` j
   SET status = 'failed', error_code = $2, error_message = $3, completed_at = now()
  FROM river_job r
 WHERE r.id = j.queue_job_id AND `+gaveUp+`
RETURNING j.id, j.account_id, j.created_at, j.completed_at`, gaveUpAfter.Seconds(), code, message)
	return failed, err
}
