package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/cursor"
)

// Events are written by the state changes that cause them, in the same transaction (an
// outbox): the event's body once, and one pending delivery per enabled endpoint of the account
// subscribed to its type, each queued as durable work. Deliver makes one attempt of a delivery
// and decides what comes next; the queue runs it again when the next attempt is due, and again
// after a crash (at least once). The delivery id is the X-Service-Delivery-Id of every attempt.

// DeliveryStatus is where a delivery stands, as in the API's WebhookDeliveryStatus.
type DeliveryStatus string

// The statuses of a delivery. Only DeliveryPending changes.
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliverySucceeded DeliveryStatus = "succeeded"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryCancelled DeliveryStatus = "cancelled"
)

// DefaultDisableAfter is how long an endpoint may fail every delivery (no success in between)
// before it is disabled.
const DefaultDisableAfter = 5 * 24 * time.Hour

// maxRetryAfter caps how far an endpoint's Retry-After can push a retry: at most a day after the
// failed attempt, so an endpoint cannot have a delivery held for weeks.
const maxRetryAfter = 24 * time.Hour

// Attempt is one attempt of a delivery.
type Attempt struct {
	// Number is 1 for the first attempt, then 2, 3, ...
	Number  int
	At      time.Time
	Success bool
	// StatusCode is the endpoint's answer; 0 when none was received.
	StatusCode int
	// Error says why the attempt failed, for the client; "" on success.
	Error    string
	Duration time.Duration
}

// Delivery is the delivery of one event to one endpoint.
type Delivery struct {
	ID         uuid.UUID
	EndpointID uuid.UUID
	AccountID  uuid.UUID
	Event      EventType
	Status     DeliveryStatus
	// Reason says why a delivery failed or was cancelled.
	Reason string
	// AttemptsCount is how many attempts were made.
	AttemptsCount int
	// FirstAttemptAt is when the first attempt was made (zero before it); the retry schedule
	// counts from it.
	FirstAttemptAt time.Time
	// NextAttemptAt is when the next attempt is due; zero unless pending.
	NextAttemptAt time.Time
	CreatedAt     time.Time
	CompletedAt   *time.Time
	// Attempts are the attempts made, oldest first (filled by listings only).
	Attempts []Attempt
}

// Task is what an attempt of a delivery needs: the delivery, its endpoint (Deleted when it was
// deleted) and the event's body.
type Task struct {
	Delivery
	Endpoint Endpoint
	// EndpointDeleted is true when the endpoint was deleted.
	EndpointDeleted bool
	Body            []byte
}

// Outcome is what an attempt ends with: the attempt, and the delivery's new state.
type Outcome struct {
	DeliveryID uuid.UUID
	EndpointID uuid.UUID
	Attempt    Attempt
	// Status is DeliveryPending (NextAttemptAt is due), DeliverySucceeded or DeliveryFailed
	// (Reason says why).
	Status         DeliveryStatus
	Reason         string
	FirstAttemptAt time.Time
	NextAttemptAt  time.Time
	// DisableEndpoint, when set, disables the endpoint with this reason, and its other pending
	// deliveries fail.
	DisableEndpoint string
}

// DeliveryStore keeps deliveries and their attempts.
type DeliveryStore interface {
	// DeliveryTask returns a delivery with its endpoint and body (ErrNotFound when there is none).
	DeliveryTask(ctx context.Context, id uuid.UUID) (Task, error)
	// RecordAttempt stores o.Attempt and the delivery's new state in one transaction, if the
	// delivery is pending with o.Attempt.Number-1 attempts (attempt.ErrStale otherwise): a success
	// clears the endpoint's failing streak, a failure starts it if none is running.
	RecordAttempt(ctx context.Context, o Outcome) error
	// FinishDelivery ends a pending delivery without an attempt (attempt.ErrStale when it is not
	// pending).
	FinishDelivery(ctx context.Context, id uuid.UUID, status DeliveryStatus, reason string, at time.Time) error
	// Deliveries lists an endpoint's deliveries with their attempts, newest first, after the
	// mark when given.
	Deliveries(ctx context.Context, endpointID uuid.UUID, after *DeliveryMark, limit int) ([]Delivery, error)
}

// DeliveryMark is a delivery's place in the newest-first order of a listing.
type DeliveryMark struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

func (s *Service) schedule() Schedule {
	if len(s.Schedule) == 0 {
		return DefaultSchedule
	}
	return s.Schedule
}

func (s *Service) disableAfter() time.Duration {
	if s.DisableAfter <= 0 {
		return DefaultDisableAfter
	}
	return s.DisableAfter
}

// Deliver makes the next attempt of delivery id when it is due, records it and decides what
// comes next. It returns when the delivery's next attempt is due, or the zero time when the
// delivery is finished (succeeded, given up, cancelled, or there is nothing to do). An error
// means the attempt could not be made or recorded; the caller runs Deliver again later, which
// may send the event a second time with the same delivery id (at least once). While the
// endpoint already has EndpointConcurrency attempts of this process in flight, no attempt is
// made and the delivery is due again in a second or two.
func (s *Service) Deliver(ctx context.Context, id uuid.UUID) (time.Time, error) {
	t, err := s.Deliveries.DeliveryTask(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("load delivery %s: %w", id, err)
	}
	if t.Status != DeliveryPending {
		return time.Time{}, nil
	}
	now := s.now()
	if t.EndpointDeleted || !t.Endpoint.Enabled {
		status, reason := DeliveryCancelled, "The endpoint was deleted."
		if !t.EndpointDeleted {
			status, reason = DeliveryFailed, "The endpoint is disabled: "+t.Endpoint.DisabledReason
		}
		if err := s.Deliveries.FinishDelivery(ctx, id, status, reason, now); err != nil && !errors.Is(err, attempt.ErrStale) {
			return time.Time{}, fmt.Errorf("finish delivery %s: %w", id, err)
		}
		return time.Time{}, nil
	}
	if t.NextAttemptAt.After(now) {
		// A rerun after a crash between recording an attempt and rescheduling the work.
		return t.NextAttemptAt, nil
	}
	if !s.slots.acquire(t.Endpoint.ID, cmp.Or(s.EndpointConcurrency, DefaultEndpointConcurrency)) {
		// The endpoint is slow to answer this process's other attempts: wait for them rather
		// than hold another worker that other endpoints' deliveries need.
		return busyRetry(now), nil
	}
	defer s.slots.release(t.Endpoint.ID)
	secret, err := s.Secrets.SigningSecret(ctx, t.AccountID)
	if err != nil {
		return time.Time{}, fmt.Errorf("signing secret: %w", err)
	}
	// The attempt begins now, once the secret is read: an answer's Retry-After counts from
	// now plus the exchange's duration, which would otherwise fall short by the read's time.
	now = s.now()
	res := s.Sender.Send(ctx, t.Endpoint.URL, secret, t.ID, t.Body, now)
	if ctx.Err() != nil {
		// Shutting down, or out of time: this attempt's failure is ours, not the endpoint's.
		return time.Time{}, ctx.Err()
	}
	o := s.outcome(t, res, now)
	err = s.Deliveries.RecordAttempt(context.WithoutCancel(ctx), o)
	if errors.Is(err, attempt.ErrStale) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("record delivery attempt %s: %w", id, err)
	}
	if s.Attempted != nil {
		s.Attempted(o.Status, res.Duration)
	}
	if o.DisableEndpoint != "" {
		s.logger().WarnContext(ctx, "webhook endpoint disabled", "webhook_id", t.Endpoint.ID.String(), "reason", o.DisableEndpoint)
	}
	return o.NextAttemptAt, nil
}

// outcome decides what an attempt made at now with result res means for the delivery and its
// endpoint.
func (s *Service) outcome(t Task, res Result, now time.Time) Outcome {
	o := Outcome{DeliveryID: t.ID, EndpointID: t.Endpoint.ID, FirstAttemptAt: t.FirstAttemptAt,
		Attempt: Attempt{Number: t.AttemptsCount + 1, At: now, Success: res.Success, StatusCode: res.StatusCode,
			Error: res.Error, Duration: res.Duration}}
	if o.FirstAttemptAt.IsZero() {
		o.FirstAttemptAt = now
	}
	stamp := now.UTC().Format(time.RFC3339)
	switch {
	case res.Success:
		o.Status = DeliverySucceeded
		return o
	case res.Gone:
		o.Status, o.Reason = DeliveryFailed, "The endpoint answered 410 Gone."
		o.DisableEndpoint = "The endpoint answered 410 Gone on " + stamp + "."
		return o
	}
	since := t.Endpoint.FailingSince
	if !since.IsZero() && now.Sub(since) >= s.disableAfter() {
		o.Status, o.Reason = DeliveryFailed, "The endpoint was disabled: no delivery succeeded for "+days(s.disableAfter())+"."
		o.DisableEndpoint = fmt.Sprintf("Every delivery failed for %s (since %s); disabled on %s.",
			days(s.disableAfter()), since.UTC().Format(time.RFC3339), stamp)
		return o
	}
	// Retry-After counts from the answer, which came res.Duration after the attempt began.
	next, ok := s.schedule().Next(o.FirstAttemptAt, o.Attempt.Number, s.jitter(), now.Add(res.Duration), min(res.RetryAfter, maxRetryAfter))
	if !ok {
		o.Status = DeliveryFailed
		o.Reason = fmt.Sprintf("Given up after %d attempts; the last one failed: %s", o.Attempt.Number, res.Error)
		return o
	}
	o.Status, o.NextAttemptAt = DeliveryPending, next
	return o
}

func (s *Service) jitter() float64 {
	if s.Jitter != nil {
		return s.Jitter()
	}
	return rand.Float64()
}

// days writes d as whole days ("5 days") when it is, else as a duration.
func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		if n := d / (24 * time.Hour); n != 1 {
			return fmt.Sprintf("%d days", n)
		}
		return "1 day"
	}
	return d.String()
}

// DeliveryPage is a page of an endpoint's deliveries; NextCursor is "" on the last page.
type DeliveryPage struct {
	Deliveries []Delivery
	NextCursor string
}

type deliveryCursor struct {
	V        int       `json:"v"`
	At       time.Time `json:"t"`
	ID       uuid.UUID `json:"i"`
	Endpoint uuid.UUID `json:"w"`
}

// ListDeliveries returns a page of up to limit deliveries of an endpoint of the account, newest
// first, after pageCursor when given (cursor.ErrBad when it is not a cursor of this endpoint's
// deliveries). A deleted endpoint is ErrNotFound.
func (s *Service) ListDeliveries(ctx context.Context, accountID, endpointID uuid.UUID, pageCursor string, limit int) (DeliveryPage, error) {
	if _, err := s.Store.Endpoint(ctx, accountID, endpointID, false); err != nil {
		return DeliveryPage{}, err
	}
	if limit < 1 {
		limit = 20
	}
	var after *DeliveryMark
	if pageCursor != "" {
		var c deliveryCursor
		if err := cursor.Decode(pageCursor, &c); err != nil {
			return DeliveryPage{}, err
		}
		if c.V != 1 || c.ID == uuid.Nil || c.At.IsZero() {
			return DeliveryPage{}, fmt.Errorf("%w: not a delivery list cursor", cursor.ErrBad)
		}
		if c.Endpoint != endpointID {
			return DeliveryPage{}, fmt.Errorf("%w: the cursor belongs to another endpoint's deliveries", cursor.ErrBad)
		}
		after = &DeliveryMark{CreatedAt: c.At, ID: c.ID}
	}
	ds, err := s.Deliveries.Deliveries(ctx, endpointID, after, limit+1)
	if err != nil {
		return DeliveryPage{}, err
	}
	page := DeliveryPage{Deliveries: ds}
	if len(ds) > limit {
		page.Deliveries = ds[:limit]
		last := ds[limit-1]
		page.NextCursor = cursor.Encode(deliveryCursor{V: 1, At: last.CreatedAt.UTC(), ID: last.ID, Endpoint: endpointID})
	}
	return page, nil
}
