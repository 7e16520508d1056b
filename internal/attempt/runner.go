package attempt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// Attempt is one run of a job's work by the queue.
type Attempt struct {
	JobID uuid.UUID
	// Number counts the job's attempts from 1; a newer attempt fences out the older ones.
	Number int
	// Final is the queue's last attempt: if it cannot finish, nobody will.
	Final bool
}

// Failure is why a job failed for good: a code of the job kind's API and a message that may be
// shown to the client.
type Failure[C ~string] struct {
	Code    C
	Message string
}

// LogValue logs the failure as its code and reason.
func (f Failure[C]) LogValue() slog.Value {
	return slog.GroupValue(slog.String("code", string(f.Code)), slog.String("reason", f.Message))
}

// Store is what the Runner needs of a kind of job's store: jobs of type J, failures with codes C.
type Store[J any, C ~string] interface {
	// Claim makes attempt n the job's current one: ErrStale when the job is finished or a newer
	// attempt holds it.
	Claim(ctx context.Context, id uuid.UUID, n int) (J, error)
	// Fail writes the job's failure, unless the job is finished or a newer attempt holds it
	// (ErrStale).
	Fail(ctx context.Context, id uuid.UUID, n int, f Failure[C], now time.Time) error
}

// Outcome is what the work of an attempt came to: a Failure that ends the job for good (the
// files cannot be read, say), or else Store, which stores the results if the attempt still
// holds the job (ErrStale otherwise).
type Outcome[C ~string] struct {
	Failure *Failure[C]
	Store   func(ctx context.Context) error
	// Format is the format of the job's (bank) file, when it was told. Review, once Store has
	// run, reports that the stored results wait for a person's review (nil: they do not): a job
	// that finishes its statement as it stores the transactions knows only then. Both are for
	// the Observer only.
	Format string
	Review func() bool
}

// The outcomes an Observer is told of.
const (
	OutcomeCompleted = "completed"
	OutcomeReview    = "review"
	OutcomeFailed    = "failed"
)

// Observer is told how jobs go, for the process's metrics (metrics.Metrics is one). Its
// methods are called from many workers at once and must be cheap.
type Observer interface {
	// Finished: an attempt of a job of kind ended it, with outcome (OutcomeCompleted,
	// OutcomeReview or OutcomeFailed with the failure's code), for a file of format ("" when
	// unknown), after working for run.
	Finished(kind, format, outcome, code string, run time.Duration)
	// Retried: an attempt of a job of kind ended in an error of the service, and the queue runs
	// it again (or, on the final attempt, the job fails).
	Retried(kind string)
	// QuotaRefused: a job was refused because its account's monthly quota of scope is used up.
	QuotaRefused(scope string)
}

// Observed is o, or an Observer that does nothing when o is nil.
func Observed(o Observer) Observer {
	if o == nil {
		return nobody{}
	}
	return o
}

type nobody struct{}

func (nobody) Finished(string, string, string, string, time.Duration) {}
func (nobody) Retried(string)                                         {}
func (nobody) QuotaRefused(string)                                    {}

// Runner works the attempts of one kind of job by the rules every kind shares, so they cannot
// drift apart:
//   - the attempt claims the job first; a job that is finished, unknown or claimed by a newer
//     attempt is left alone, and Run returns nil;
//   - a failure of the files fails the job for good (Run returns nil), and is written even when
//     the attempt's context was cancelled in the meantime;
//   - an attempt that ran past its deadline fails the job with TimedOut: the same files would
//     take as long again; one cancelled because the process is stopping returns the context's
//     error, and the queue runs it again elsewhere;
//   - an outcome whose attempt lost the job (ErrStale) is dropped;
//   - any other error (the database is unreachable, say) is returned for the queue to retry,
//     and the final attempt fails the job with Abandoned first, so it never stays unfinished.
type Runner[J any, C ~string] struct {
	// Kind names the work in log messages: "parse" gives "parse attempt failed".
	Kind   string
	Store  Store[J, C]
	Logger *slog.Logger
	// Now is the clock of failures.
	Now func() time.Time
	// NotFound is the Store's error for a job that does not exist.
	NotFound error
	// TimedOut is the failure of an attempt that ran past its deadline; Abandoned that of a job
	// whose final attempt could not finish for reasons of the service.
	TimedOut, Abandoned Failure[C]
	// Observer is told how each attempt ended; nil tells nobody.
	Observer Observer
}

// Run works attempt a: work reads the claimed job's input and computes its outcome; an error
// from it is the service's (a file that cannot be read from the database, say) and is retried.
func (r *Runner[J, C]) Run(ctx context.Context, a Attempt, work func(ctx context.Context, j J) (Outcome[C], error)) error {
	log := r.Logger.With(slog.String("job_id", a.JobID.String()), slog.Int("attempt", a.Number))
	j, err := r.Store.Claim(ctx, a.JobID, a.Number)
	if err != nil {
		if errors.Is(err, ErrStale) || errors.Is(err, r.NotFound) {
			log.InfoContext(ctx, r.Kind+" attempt skipped: the job is finished or a newer attempt holds it")
			return nil
		}
		return r.retryOrFail(ctx, log, a, fmt.Errorf("claim job: %w", err))
	}
	began := time.Now()
	out, err := work(ctx, j)
	if err != nil {
		return r.retryOrFail(ctx, log, a, err)
	}
	if out.Failure == nil && ctx.Err() != nil {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The process is shutting down: the queue runs the attempt again elsewhere.
			return ctx.Err()
		}
		out.Failure = &r.TimedOut
	}
	if out.Failure != nil {
		log.InfoContext(ctx, r.Kind+" job failed", slog.Any("failure", *out.Failure))
		err = r.Store.Fail(context.WithoutCancel(ctx), a.JobID, a.Number, *out.Failure, r.Now().UTC())
	} else {
		err = out.Store(ctx)
	}
	if errors.Is(err, ErrStale) {
		log.WarnContext(ctx, r.Kind+" outcome dropped: a newer attempt holds the job")
		return nil
	}
	if err != nil {
		return r.retryOrFail(ctx, log, a, fmt.Errorf("store outcome: %w", err))
	}
	switch {
	case out.Failure != nil:
		Observed(r.Observer).Finished(r.Kind, out.Format, OutcomeFailed, string(out.Failure.Code), time.Since(began))
	case out.Review != nil && out.Review():
		Observed(r.Observer).Finished(r.Kind, out.Format, OutcomeReview, "", time.Since(began))
	default:
		Observed(r.Observer).Finished(r.Kind, out.Format, OutcomeCompleted, "", time.Since(began))
	}
	return nil
}

// retryOrFail returns err for the queue to retry, after failing the job on the final attempt.
func (r *Runner[J, C]) retryOrFail(ctx context.Context, log *slog.Logger, a Attempt, err error) error {
	log.ErrorContext(ctx, r.Kind+" attempt failed", slog.String("error", err.Error()), slog.Bool("final", a.Final))
	Observed(r.Observer).Retried(r.Kind)
	if a.Final {
		ferr := r.Store.Fail(context.WithoutCancel(ctx), a.JobID, a.Number, r.Abandoned, r.Now().UTC())
		switch {
		case ferr == nil:
			Observed(r.Observer).Finished(r.Kind, "", OutcomeFailed, string(r.Abandoned.Code), 0)
		case !errors.Is(ferr, ErrStale):
			log.ErrorContext(ctx, "fail job", slog.String("error", ferr.Error()))
		}
	}
	return err
}
