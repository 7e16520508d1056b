package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/webhook"
)

// The job queue is River (riverqueue/river) over database/sql (riverdatabasesql): jobs are rows in
// river_job, inserted in the transaction that creates the business row, fetched by workers with
// FOR UPDATE SKIP LOCKED, retried with backoff, and rescued when a worker dies.

// Queue names: each API's jobs have their own queue, so that one API's backlog never delays the
// other's jobs.
const (
	queueReconcile = "reconcile"
	queueParse     = "parse"
	queueWebhooks  = "webhooks"
)

// Defaults of QueueConfig.
const (
	// DefaultPollInterval is how often an idle worker looks for new jobs. River's database/sql
	// driver has no LISTEN/NOTIFY listener, so the poll decides pickup latency: 50 ms is a small job's worst wait, at
	// 20 cheap index scans a second per process.
	DefaultPollInterval = 50 * time.Millisecond
	// fetchCooldown is the least time between two fetches of one queue's jobs. A worker that
	// finishes a job with more waiting fetches at once, but not sooner than this after the
	// previous fetch: at River's 100 ms (or the 50 ms poll), 2 workers took at most 2 jobs a
	// fetch, 40 jobs a second however small the jobs were.
	fetchCooldown = 2 * time.Millisecond
	// DefaultJobTimeout bounds one attempt; the largest allowed file parses in seconds.
	DefaultJobTimeout = 2 * time.Minute
	// DefaultRescueAfter is when a job whose worker vanished (killed, machine lost) is run
	// again; it must be longer than DefaultJobTimeout, or a live job would be run twice.
	DefaultRescueAfter = 3 * time.Minute
	// MaxAttempts is how often a job is tried when attempts fail for reasons other than its
	// files (database outages, crashes).
	MaxAttempts = 5
	// sweepInterval is how often the leader looks for jobs the queue gave up on.
	sweepInterval = 10 * time.Second
	// DefaultDeliveryWorkers is how many webhook deliveries a process makes at once: they mostly
	// wait on the network (up to 10 s each), so more than jobs.
	DefaultDeliveryWorkers = 10
	// deliveryMaxAttempts is how often the queue runs a delivery's work when it errs (the
	// database is unreachable, say); failed attempts at the endpoint are not errors and follow
	// the webhook retry schedule instead.
	deliveryMaxAttempts = 25
)

// Deliverer makes the due attempt of a webhook delivery; webhook.Service.Deliver is one. It
// returns when the next attempt is due, or the zero time when the delivery is finished.
type Deliverer func(ctx context.Context, id uuid.UUID) (time.Time, error)

// Processor works one attempt of a job; reconjob.Service.Process and parsejob.Service.Process are.
type Processor func(ctx context.Context, id uuid.UUID, n int, final bool) error

// QueueConfig configures a Queue.
type QueueConfig struct {
	// Workers is how many jobs of each queue (reconcile, parse) this process works at once; 0
	// makes a queue that only inserts.
	Workers int
	// Reconcile works reconciliation jobs; required when Workers > 0.
	Reconcile Processor
	// Parse works parsing jobs; required when Workers > 0.
	Parse Processor
	// Deliver makes webhook deliveries; required when Workers > 0.
	Deliver Deliverer
	// DeliveryWorkers is how many deliveries this process makes at once when Workers > 0;
	// DefaultDeliveryWorkers when 0.
	DeliveryWorkers int
	// PollInterval, JobTimeout and RescueAfter default to the Default constants.
	PollInterval time.Duration
	JobTimeout   time.Duration
	RescueAfter  time.Duration
	Logger       *slog.Logger
}

// Queue is the job queue of one process.
type Queue struct {
	client  *river.Client[*sql.Tx]
	working bool
}

// jobRef names the business row a queued job works on; both kinds of work carry one.
type jobRef struct {
	JobID uuid.UUID `json:"job_id"`
}

func (r jobRef) jobID() uuid.UUID { return r.JobID }

// reconcileArgs is the work of a reconciliation job (recon_jobs).
type reconcileArgs struct{ jobRef }

func (reconcileArgs) Kind() string { return "reconcile" }

func (reconcileArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueReconcile, MaxAttempts: MaxAttempts}
}

// parseArgs is the work of a parsing job (parse_jobs).
type parseArgs struct{ jobRef }

func (parseArgs) Kind() string { return "parse" }

func (parseArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueParse, MaxAttempts: MaxAttempts}
}

// jobArgs is the work of one job row.
type jobArgs interface {
	river.JobArgs
	jobID() uuid.UUID
}

// processWorker works a kind of job with its Processor.
type processWorker[T jobArgs] struct {
	river.WorkerDefaults[T]
	process Processor
}

func (w *processWorker[T]) Work(ctx context.Context, j *river.Job[T]) error {
	return w.process(ctx, j.Args.jobID(), j.Attempt, j.Attempt >= j.MaxAttempts)
}

// deliverArgs is the work of one webhook delivery (webhook_deliveries): each run makes the
// attempt that is due and snoozes until the next one.
type deliverArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

func (deliverArgs) Kind() string { return "webhook_delivery" }

func (deliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueWebhooks, MaxAttempts: deliveryMaxAttempts}
}

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	deliver Deliverer
}

func (w *deliverWorker) Work(ctx context.Context, j *river.Job[deliverArgs]) error {
	next, err := w.deliver(ctx, j.Args.DeliveryID)
	if err != nil {
		return err
	}
	if next.IsZero() {
		return nil
	}
	// A snooze does not count as an attempt of the work: the retries are the delivery's own.
	return river.JobSnooze(max(time.Until(next), 0))
}

// sweepArgs is the periodic job that fails the jobs whose queued work the queue gave up on, so
// that no job stays queued or processing forever.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "sweep_abandoned_jobs" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	db          *sqlx.DB
	queue       *Queue
	rescueAfter time.Duration
}

// abandoned is what each API's unfinished jobs become when the queue gave up on their work.
var abandoned = []struct {
	// table and unfinished are SQL: the job table and its unfinished statuses.
	table, unfinished string
	// kind is the kind of the table's attempts (see attempt).
	kind          string
	code, message string
	// events: the table's jobs announce their failure to webhooks (job.failed).
	events bool
}{
	{"recon_jobs", "'processing'", reconAttemptKind, string(reconjob.CodeServerError), reconjob.MessageAbandoned, false},
	{"parse_jobs", "'queued', 'processing'", parseAttemptKind, string(parsejob.CodeInternalError), parsejob.MessageAbandoned, true},
}

// Work fails the unfinished jobs whose queue row was discarded (attempts exhausted, for instance
// by a file that kills its worker every time) or cancelled, or was completed long ago by an
// attempt that lost its claim while the newer attempt vanished; and the pending webhook
// deliveries whose work was discarded. Each table is swept even when another one's sweep fails.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	var errs []error
	for _, a := range abandoned {
		if err := w.sweepJobs(ctx, a.table, a.unfinished, a.kind, a.code, a.message, a.events); err != nil {
			errs = append(errs, fmt.Errorf("sweep %s: %w", a.table, err))
		}
	}
	_, err := w.db.ExecContext(ctx, `
UPDATE webhook_deliveries d
   SET status = 'failed', status_reason = 'The delivery could not be made.', next_attempt_at = NULL, completed_at = now()
  FROM river_job r
 WHERE r.kind = $1 AND r.state IN ('discarded', 'cancelled') AND d.id = (r.args ->> 'delivery_id')::uuid AND d.status = 'pending'`,
		deliverArgs{}.Kind())
	if err != nil {
		errs = append(errs, fmt.Errorf("sweep webhook deliveries: %w", err))
	}
	return errors.Join(errs...)
}

// sweepJobs fails a job table's abandoned jobs, with their job.failed events when events is set.
func (w *sweepWorker) sweepJobs(ctx context.Context, table, unfinished, kind, code, message string, events bool) error {
	// The jobs of table whose queue row is r that the sweep fails; $1 is rescueAfter in seconds.
	gaveUp := `j.status IN (` + unfinished + `) AND (r.state IN ('discarded', 'cancelled')
        OR (r.state = 'completed' AND r.finalized_at < now() - make_interval(secs => $1)))`
	return inTx(ctx, w.db, func(tx *sqlx.Tx) error {
		// The last attempt at such a job may have frozen in the middle of a COPY, which the server
		// does not cancel (see takeOver); it would hold the job's row, and so the sweep, until it
		// ran again. Its backend is ended first.
		_, err := tx.ExecContext(ctx, `
SELECT pg_terminate_backend(a.pid)
  FROM `+table+` j JOIN river_job r ON r.id = j.queue_job_id
  JOIN pg_stat_activity a ON starts_with(a.application_name, $2::text || ' ' || j.id || ' #')
 WHERE `+gaveUp+` AND a.pid <> pg_backend_pid()`, w.rescueAfter.Seconds(), kind)
		if err != nil {
			return fmt.Errorf("end the attempts at abandoned jobs: %w", err)
		}
		var failed []struct {
			ID          uuid.UUID `db:"id"`
			AccountID   uuid.UUID `db:"account_id"`
			CreatedAt   time.Time `db:"created_at"`
			CompletedAt time.Time `db:"completed_at"`
		}
		err = tx.SelectContext(ctx, &failed, `
UPDATE `+table+` j
   SET status = 'failed', error_code = $2, error_message = $3, completed_at = now()
  FROM river_job r
 WHERE r.id = j.queue_job_id AND `+gaveUp+`
RETURNING j.id, j.account_id, j.created_at, j.completed_at`, w.rescueAfter.Seconds(), code, message)
		if err != nil || !events {
			return err
		}
		for _, j := range failed {
			if err := w.queue.emitEvent(ctx, tx, j.AccountID, webhook.EventJobFailed,
				jobData(j.ID, parsejob.StatusFailed, "", 0, j.CreatedAt), j.CompletedAt); err != nil {
				return err
			}
		}
		return nil
	})
}

// NewQueue returns the queue of db. Start it to work jobs.
func NewQueue(db *sqlx.DB, cfg QueueConfig) (*Queue, error) {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	q := &Queue{} // the sweep worker emits events through it
	rc := &river.Config{
		// River reports job counts at INFO every few seconds; its warnings and errors are what an
		// operator needs, and the job outcomes are logged by the job rules.
		Logger:               slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}).With(slog.String("component", "queue")),
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, fetchCooldown),
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		PollOnly:             true,
	}
	if cfg.Workers > 0 {
		if cfg.Reconcile == nil {
			return nil, errors.New("queue: workers without a reconcile processor")
		}
		if cfg.Parse == nil {
			return nil, errors.New("queue: workers without a parse processor")
		}
		workers := river.NewWorkers()
		river.AddWorker(workers, &processWorker[reconcileArgs]{process: cfg.Reconcile})
		river.AddWorker(workers, &processWorker[parseArgs]{process: cfg.Parse})
		if cfg.Deliver == nil {
			return nil, errors.New("queue: workers without a webhook deliverer")
		}
		river.AddWorker(workers, &deliverWorker{deliver: cfg.Deliver})
		river.AddWorker(workers, &sweepWorker{db: db, queue: q, rescueAfter: cfg.RescueAfter})
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{
			queueReconcile:     {MaxWorkers: cfg.Workers},
			queueParse:         {MaxWorkers: cfg.Workers},
			queueWebhooks:      {MaxWorkers: cmp.Or(cfg.DeliveryWorkers, DefaultDeliveryWorkers)},
			river.QueueDefault: {MaxWorkers: 1},
		}
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
			func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
	}
	client, err := river.NewClient(riverdatabasesql.New(db.DB), rc)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	q.client, q.working = client, cfg.Workers > 0
	return q, nil
}

// Start starts working jobs, when the queue has workers.
func (q *Queue) Start(ctx context.Context) error {
	if !q.working {
		return nil
	}
	return q.client.Start(ctx)
}

// Stop stops fetching jobs and waits for the running ones until ctx ends; then it cancels them,
// and the queue runs them again later (on any process). The jobs are never lost either way.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.working {
		return nil
	}
	err := q.client.Stop(ctx)
	if ctx.Err() != nil {
		hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return q.client.StopAndCancel(hard)
	}
	return err
}

// enqueueReconcile queues the work of reconciliation job jobID in tx; it returns the queue's
// job id.
func (q *Queue) enqueueReconcile(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error) {
	return q.enqueue(ctx, tx, reconcileArgs{jobRef{jobID}})
}

// enqueueParse queues the work of parsing job jobID in tx; it returns the queue's job id.
func (q *Queue) enqueueParse(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error) {
	return q.enqueue(ctx, tx, parseArgs{jobRef{jobID}})
}

func (q *Queue) enqueue(ctx context.Context, tx *sql.Tx, args river.JobArgs) (int64, error) {
	res, err := q.client.InsertTx(ctx, tx, args, nil)
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
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

// minLevel drops records below its level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.level}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.level}
}
