// Package queue is the job queue: River (riverqueue/river) over database/sql
// (riverdatabasesql). Work is a row in river_job, inserted in the transaction that creates the
// business row it works on (see Enqueuer), fetched by workers with FOR UPDATE SKIP LOCKED,
// retried with backoff, and rescued when a worker dies. It knows the kinds of work and how often
// each is tried; what a piece of work does is the job rules' (a Processor), and what becomes of
// the work the queue gave up on is the stores' (a Sweeper).
package queue

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
)

// Queue names: each API's jobs have their own queue, so that one API's backlog never delays the
// other's jobs.
const (
	queueReconcile = "reconcile"
	queueParse     = "parse"
	queueWebhooks  = "webhooks"
)

// The kinds of work, as river_job.kind holds them.
const (
	KindReconcile = "reconcile"
	KindParse     = "parse"
	KindDelivery  = "webhook_delivery"
	KindSweep     = "sweep_abandoned_jobs"
	KindPurge     = "purge_expired_data"
)

// Defaults of Config.
const (
	// DefaultPollInterval is how often an idle worker looks for new jobs. River's database/sql
	// driver has no LISTEN/NOTIFY listener, so the poll decides pickup latency: 50 ms is a small
	// job's worst wait, at 20 cheap index scans a second per process.
	DefaultPollInterval = 50 * time.Millisecond
	// fetchCooldown is the least time between two fetches of one queue's jobs. A worker that
	// finishes a job with more waiting fetches at once, but not sooner than this after the
	// previous fetch: at River's 100 ms (or the 50 ms poll), 2 workers took at most 2 jobs a
	// fetch, 40 jobs a second however small the jobs were.
	fetchCooldown = 2 * time.Millisecond
	// DefaultJobTimeout bounds one attempt: the largest allowed file parses in seconds, a scan
	// of the most pages allowed is read with OCR in minutes.
	DefaultJobTimeout = 10 * time.Minute
	// DefaultRescueAfter is when a job whose worker vanished (killed, machine lost) is run
	// again; it must be longer than DefaultJobTimeout, or a live job would be run twice.
	DefaultRescueAfter = 12 * time.Minute
	// MaxAttempts is how often a job is tried when attempts fail for reasons other than its
	// files (database outages, crashes).
	MaxAttempts = 5
	// sweepInterval is how often the leader looks for jobs the queue gave up on.
	sweepInterval = 10 * time.Second
	// purgeInterval is how often the leader has the data past its retention deleted.
	purgeInterval = 10 * time.Minute
	// DefaultDeliveryWorkers is how many webhook deliveries a process makes at once: they mostly
	// wait on the network (up to 10 s each), so more than jobs.
	DefaultDeliveryWorkers = 10
	// deliveryMaxAttempts is how often the queue runs a delivery's work when it errs (the
	// database is unreachable, say); failed attempts at the endpoint are not errors and follow
	// the webhook retry schedule instead.
	deliveryMaxAttempts = 25
)

// Processor works one attempt of a job; reconjob.Service.Process and parsejob.Service.Process
// are.
type Processor func(ctx context.Context, id uuid.UUID, attempt int, final bool) error

// Deliverer makes the due attempt of a webhook delivery; webhook.Service.Deliver is one. It
// returns when the next attempt is due, or the zero time when the delivery is finished.
type Deliverer func(ctx context.Context, id uuid.UUID) (time.Time, error)

// Sweeper fails what the queue gave up on: the unfinished jobs and pending deliveries whose
// work was discarded or cancelled, or completed more than gaveUpAfter ago without finishing
// them. postgres.Sweeper.Sweep is one.
type Sweeper func(ctx context.Context, gaveUpAfter time.Duration) error

// Config configures the Workers of a process.
type Config struct {
	// Workers is how many jobs of each queue (reconcile, parse) this process works at once.
	Workers int
	// Reconcile and Parse work the two kinds of job; Deliver makes webhook deliveries; Sweep
	// runs every few seconds on one process (the leader). All are required.
	Reconcile Processor
	Parse     Processor
	Deliver   Deliverer
	Sweep     Sweeper
	// Purge deletes the data past its retention (postgres.Retention.Purge), every
	// purgeInterval and at start, on one process; nil purges nothing.
	Purge func(ctx context.Context) error
	// DeliveryWorkers is how many deliveries this process makes at once;
	// DefaultDeliveryWorkers when 0.
	DeliveryWorkers int
	// PollInterval, JobTimeout and RescueAfter default to the Default constants.
	PollInterval time.Duration
	JobTimeout   time.Duration
	RescueAfter  time.Duration
	Logger       *slog.Logger
	// Waited, when set, is told how long each piece of work waited in its queue (reconcile,
	// parse or webhooks) from when it was due to when a worker took it, for the metrics.
	Waited func(queue string, wait time.Duration)
}

// jobRef names the business row a queued job works on; both kinds of job carry one.
type jobRef struct {
	JobID uuid.UUID `json:"job_id"`
}

func (r jobRef) jobID() uuid.UUID { return r.JobID }

// reconcileArgs is the work of a reconciliation job (recon_jobs).
type reconcileArgs struct{ jobRef }

func (reconcileArgs) Kind() string { return KindReconcile }

func (reconcileArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueReconcile, MaxAttempts: MaxAttempts}
}

// parseArgs is the work of a parsing job (parse_jobs).
type parseArgs struct{ jobRef }

func (parseArgs) Kind() string { return KindParse }

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
	waited  waited
}

func (w *processWorker[T]) Work(ctx context.Context, j *river.Job[T]) error {
	w.waited.tell(j.JobRow)
	return w.process(ctx, j.Args.jobID(), j.Attempt, j.Attempt >= j.MaxAttempts)
}

// waited is Config.Waited, nil or not.
type waited func(queue string, wait time.Duration)

// tell reports how long the work of j waited past its due time, both as the database saw them.
func (w waited) tell(j *rivertype.JobRow) {
	if w != nil && j.AttemptedAt != nil {
		w(j.Queue, max(j.AttemptedAt.Sub(j.ScheduledAt), 0))
	}
}

// deliverArgs is the work of one webhook delivery (webhook_deliveries): each run makes the
// attempt that is due and snoozes until the next one.
type deliverArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

func (deliverArgs) Kind() string { return KindDelivery }

func (deliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueWebhooks, MaxAttempts: deliveryMaxAttempts}
}

type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	deliver Deliverer
	waited  waited
}

func (w *deliverWorker) Work(ctx context.Context, j *river.Job[deliverArgs]) error {
	w.waited.tell(j.JobRow)
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

// sweepArgs is the periodic job that fails what the queue gave up on, so that no job stays
// queued or processing forever and no delivery stays pending.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return KindSweep }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	sweep       Sweeper
	rescueAfter time.Duration
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	return w.sweep(ctx, w.rescueAfter)
}

// purgeArgs is the periodic job that deletes the data past its retention.
type purgeArgs struct{}

func (purgeArgs) Kind() string { return KindPurge }

type purgeWorker struct {
	river.WorkerDefaults[purgeArgs]
	purge func(ctx context.Context) error
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[purgeArgs]) error { return w.purge(ctx) }

// Workers works the queued jobs of one process.
type Workers struct {
	client *river.Client[*sql.Tx]
}

// NewWorkers returns the workers of db. Start them to work jobs.
func NewWorkers(db *sql.DB, cfg Config) (*Workers, error) {
	switch {
	case cfg.Workers <= 0:
		return nil, errors.New("queue: no workers")
	case cfg.Reconcile == nil:
		return nil, errors.New("queue: workers without a reconcile processor")
	case cfg.Parse == nil:
		return nil, errors.New("queue: workers without a parse processor")
	case cfg.Deliver == nil:
		return nil, errors.New("queue: workers without a webhook deliverer")
	case cfg.Sweep == nil:
		return nil, errors.New("queue: workers without a sweeper")
	}
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
	workers := river.NewWorkers()
	river.AddWorker(workers, &processWorker[reconcileArgs]{process: cfg.Reconcile, waited: cfg.Waited})
	river.AddWorker(workers, &processWorker[parseArgs]{process: cfg.Parse, waited: cfg.Waited})
	river.AddWorker(workers, &deliverWorker{deliver: cfg.Deliver, waited: cfg.Waited})
	river.AddWorker(workers, &sweepWorker{sweep: cfg.Sweep, rescueAfter: cfg.RescueAfter})
	periodic := []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
	if cfg.Purge != nil {
		river.AddWorker(workers, &purgeWorker{purge: cfg.Purge})
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(purgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return purgeArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	client, err := river.NewClient(riverdatabasesql.New(db), &river.Config{
		// River reports job counts at INFO every few seconds; its warnings and errors are what an
		// operator needs, and the job outcomes are logged by the job rules.
		Logger:               slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}).With(slog.String("component", "queue")),
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, fetchCooldown),
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		PollOnly:             true,
		Workers:              workers,
		Queues: map[string]river.QueueConfig{
			queueReconcile:     {MaxWorkers: cfg.Workers},
			queueParse:         {MaxWorkers: cfg.Workers},
			queueWebhooks:      {MaxWorkers: cmp.Or(cfg.DeliveryWorkers, DefaultDeliveryWorkers)},
			river.QueueDefault: {MaxWorkers: 2}, // the sweep, and the purge that may run for minutes
		},
		PeriodicJobs: periodic,
	})
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return &Workers{client: client}, nil
}

// Start starts working jobs.
func (w *Workers) Start(ctx context.Context) error { return w.client.Start(ctx) }

// Stop stops fetching jobs and waits for the running ones until ctx ends; then it cancels them,
// and the queue runs them again later (on any process). The jobs are never lost either way.
func (w *Workers) Stop(ctx context.Context) error {
	err := w.client.Stop(ctx)
	if ctx.Err() != nil {
		hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return w.client.StopAndCancel(hard)
	}
	return err
}

// Enqueuer queues work in the caller's transaction, so the work exists exactly when the row it
// works on does. It works no jobs itself, so the stores that queue work are built before the
// job rules whose Processors the Workers call.
type Enqueuer struct {
	client *river.Client[*sql.Tx]
}

// NewEnqueuer returns the enqueuer of db.
func NewEnqueuer(db *sql.DB) (*Enqueuer, error) {
	client, err := river.NewClient(riverdatabasesql.New(db), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return &Enqueuer{client: client}, nil
}

// EnqueueReconcile queues the work of reconciliation job jobID in tx; it returns the queue's
// job id.
func (e *Enqueuer) EnqueueReconcile(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error) {
	return e.enqueue(ctx, tx, reconcileArgs{jobRef{jobID}})
}

// EnqueueParse queues the work of parsing job jobID in tx; it returns the queue's job id.
func (e *Enqueuer) EnqueueParse(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error) {
	return e.enqueue(ctx, tx, parseArgs{jobRef{jobID}})
}

// EnqueueDeliveries queues the work of the webhook deliveries ids in tx.
func (e *Enqueuer) EnqueueDeliveries(ctx context.Context, tx *sql.Tx, ids []uuid.UUID) error {
	work := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		work[i] = river.InsertManyParams{Args: deliverArgs{DeliveryID: id}}
	}
	_, err := e.client.InsertManyTx(ctx, tx, work)
	return err
}

func (e *Enqueuer) enqueue(ctx context.Context, tx *sql.Tx, args river.JobArgs) (int64, error) {
	res, err := e.client.InsertTx(ctx, tx, args, nil)
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

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

// Queues are the queues the workers take work from, by name.
var Queues = []string{queueReconcile, queueParse, queueWebhooks}

// Depth is how much work waits in one queue.
type Depth struct {
	Queue string
	// Waiting counts the work that is due and not yet taken by a worker; Oldest is how long the
	// longest of it has been due (0 when none waits).
	Waiting int
	Oldest  time.Duration
}

// Depths reads how much work waits in each of Queues, by the database's clock. Work scheduled
// for later (a delivery's next retry) does not wait yet.
func Depths(ctx context.Context, db *sql.DB) ([]Depth, error) {
	rows, err := db.QueryContext(ctx, `
SELECT q.name, count(j.id), COALESCE(EXTRACT(EPOCH FROM now() - min(j.scheduled_at)), 0)
  FROM unnest($1::text[]) AS q(name)
  LEFT JOIN river_job j ON j.queue = q.name AND j.state = 'available' AND j.scheduled_at <= now()
 GROUP BY q.name ORDER BY q.name`, pq.Array(Queues))
	if err != nil {
		return nil, fmt.Errorf("read queue depths: %w", err)
	}
	defer rows.Close()
	var out []Depth
	for rows.Next() {
		var d Depth
		var oldest float64
		if err := rows.Scan(&d.Queue, &d.Waiting, &oldest); err != nil {
			return nil, fmt.Errorf("read queue depths: %w", err)
		}
		d.Oldest = time.Duration(max(oldest, 0) * float64(time.Second))
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read queue depths: %w", err)
	}
	return out, nil
}
