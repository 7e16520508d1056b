package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/audit"

	"github.com/statementmatch/service/internal/idempotency"
)

// MaxEndpoints is how many webhook endpoints an account may have.
const MaxEndpoints = 20

// IdempotencyScope is the Idempotency-Key scope of POST /webhooks.
const IdempotencyScope = "parse:webhooks"

// Endpoint is a registered webhook endpoint.
type Endpoint struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	URL       string
	// Events are the event types the endpoint subscribed to; nil is every type, also types
	// added later.
	Events      []EventType
	Description string
	// Enabled turns false for good when the endpoint answered 410 Gone or failed for days;
	// DisabledReason says which, and when.
	Enabled        bool
	DisabledReason string
	// FailingSince is when the endpoint's current run of failed delivery attempts began; zero
	// when its last attempt succeeded (or none was made). Test deliveries do not count.
	FailingSince time.Time
	CreatedAt    time.Time
}

// EventTypes returns the event types the endpoint receives.
func (e Endpoint) EventTypes() []EventType {
	if e.Events == nil {
		return AllEvents
	}
	return e.Events
}

// Receives reports whether the endpoint subscribed to events of type t.
func (e Endpoint) Receives(t EventType) bool { return slices.Contains(e.EventTypes(), t) }

// Errors of the endpoint rules.
var (
	// ErrNotFound: no such endpoint in the account (or it was deleted).
	ErrNotFound = errors.New("webhook endpoint not found")
	// ErrTooManyEndpoints: the account has MaxEndpoints endpoints already.
	ErrTooManyEndpoints = fmt.Errorf("an account can have at most %d webhook endpoints", MaxEndpoints)
)

// Store keeps webhook endpoints and the Idempotency-Keys of their creation.
type Store interface {
	idempotency.Store
	// CreateEndpoint stores e unless the account has max endpoints already
	// (ErrTooManyEndpoints), and marks the key done with e.ID when k.Key is set, in one
	// transaction.
	CreateEndpoint(ctx context.Context, e Endpoint, max int, k idempotency.Key) error
	// Endpoint returns an endpoint of the account, deleted ones included when withDeleted.
	Endpoint(ctx context.Context, accountID, id uuid.UUID, withDeleted bool) (Endpoint, error)
	// Endpoints returns the account's endpoints, oldest first.
	Endpoints(ctx context.Context, accountID uuid.UUID) ([]Endpoint, error)
	// DeleteEndpoint deletes an endpoint of the account (ErrNotFound when there is none).
	DeleteEndpoint(ctx context.Context, accountID, id uuid.UUID, now time.Time) error
	// SetEnabled turns an endpoint of the account on or off (reason: why it is off), and
	// records by's action in the audit log, in one transaction. Turning it off ends its pending
	// deliveries; turning it on starts its run of failures afresh.
	SetEnabled(ctx context.Context, accountID, id uuid.UUID, enabled bool, reason string, now time.Time, by audit.Actor) error
}

// Secrets gives an account's webhook signing secret; *account.Service has it.
type Secrets interface {
	SigningSecret(ctx context.Context, accountID uuid.UUID) (string, error)
}

// Service applies the webhook endpoint rules.
type Service struct {
	Store   Store
	Secrets Secrets
	// Policy decides which URLs may be registered and reached.
	Policy Policy
	// Sender makes the deliveries.
	Sender *Sender
	// Deliveries keeps the deliveries of events and their attempts.
	Deliveries DeliveryStore
	// Schedule is when failed deliveries are retried; DefaultSchedule when empty.
	Schedule Schedule
	// DisableAfter is how long an endpoint may fail every delivery before it is disabled;
	// DefaultDisableAfter when 0.
	DisableAfter time.Duration
	// Jitter returns a number from 0 to 1 that postpones each retry by up to MaxJitter of its
	// offset; random when nil.
	Jitter func() float64
	// EndpointConcurrency is how many attempts this process makes to one endpoint at once;
	// DefaultEndpointConcurrency when 0.
	EndpointConcurrency int
	// Now is the clock; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
	// Attempted, when set, is told of every delivery attempt made to an endpoint, for the
	// metrics: what it did to the delivery (DeliverySucceeded, DeliveryPending for one to be
	// retried, DeliveryFailed) and how long the endpoint took.
	Attempted func(status DeliveryStatus, took time.Duration)

	slots endpointSlots
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// NewEndpoint is a request to register an endpoint.
type NewEndpoint struct {
	AccountID uuid.UUID
	URL       string
	// Events nil subscribes to every event type.
	Events      []EventType
	Description string
	// IdempotencyKey is the client's Idempotency-Key, empty when none was sent.
	IdempotencyKey string
}

// Created is a registered endpoint with the account's signing secret, and whether it is the
// replay of an earlier request with the same Idempotency-Key.
type Created struct {
	Endpoint Endpoint
	Secret   string
	Replayed bool
}

// Create registers an endpoint: the URL must pass the Policy (a *URLError otherwise), the
// account may not have MaxEndpoints already (ErrTooManyEndpoints), and the Idempotency-Key is
// honoured as for jobs.
func (s *Service) Create(ctx context.Context, req NewEndpoint) (Created, error) {
	now := s.now()
	key := idempotency.Key{AccountID: req.AccountID, Scope: IdempotencyScope, Key: req.IdempotencyKey, Hash: endpointHash(req)}
	created, err := idempotency.Run(ctx, s.Store, key, now, s.logger(),
		func() (Created, error) {
			if err := s.Policy.CheckURL(ctx, req.URL); err != nil {
				return Created{}, err
			}
			e := Endpoint{ID: uuid.New(), AccountID: req.AccountID, URL: req.URL, Events: req.Events,
				Description: req.Description, Enabled: true, CreatedAt: now.Truncate(time.Microsecond)}
			key.ResourceID = e.ID
			if err := s.Store.CreateEndpoint(ctx, e, MaxEndpoints, key); err != nil {
				return Created{}, err
			}
			return Created{Endpoint: e}, nil
		},
		func(existing idempotency.Record) (Created, error) {
			e, err := s.Store.Endpoint(ctx, req.AccountID, existing.ResourceID, true)
			if err != nil {
				return Created{}, fmt.Errorf("load replayed endpoint: %w", err)
			}
			// The first answer again: a new endpoint is enabled.
			e.Enabled, e.DisabledReason = true, ""
			return Created{Endpoint: e, Replayed: true}, nil
		})
	if err != nil {
		return Created{}, err
	}
	if created.Secret, err = s.Secrets.SigningSecret(ctx, req.AccountID); err != nil {
		return Created{}, fmt.Errorf("signing secret: %w", err)
	}
	return created, nil
}

// endpointHash identifies a registration for idempotency.
func endpointHash(req NewEndpoint) []byte {
	h := sha256.New()
	field := func(s string) {
		_ = binary.Write(h, binary.BigEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	field("webhook-endpoint/v1")
	field(req.URL)
	if req.Events == nil {
		field("*")
	}
	for _, e := range req.Events {
		field(string(e))
	}
	field("|")
	field(req.Description)
	return h.Sum(nil)
}

// Endpoint returns an endpoint of the account (ErrNotFound for another account's, or a deleted
// one).
func (s *Service) Endpoint(ctx context.Context, accountID, id uuid.UUID) (Endpoint, error) {
	return s.Store.Endpoint(ctx, accountID, id, false)
}

// List returns the account's endpoints, oldest first.
func (s *Service) List(ctx context.Context, accountID uuid.UUID) ([]Endpoint, error) {
	return s.Store.Endpoints(ctx, accountID)
}

// SetEnabled turns an endpoint of the account on or off by hand: off, nothing more is delivered
// to it (its pending deliveries are cancelled) until it is turned on again, which also gives an
// endpoint disabled for its failures (or a 410 Gone) another chance. Another account's endpoint
// is ErrNotFound.
func (s *Service) SetEnabled(ctx context.Context, by audit.Actor, accountID, id uuid.UUID, enabled bool) error {
	now := s.now()
	reason := ""
	if !enabled {
		reason = fmt.Sprintf("Disabled by %s on %s.", by.Name, now.UTC().Format(time.RFC3339))
	}
	return s.Store.SetEnabled(ctx, accountID, id, enabled, reason, now, by)
}

// Delete deletes an endpoint of the account; nothing more is delivered to it.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	return s.Store.DeleteEndpoint(ctx, accountID, id, s.now())
}

// TestDelivery is the outcome of one test delivery.
type TestDelivery struct {
	Endpoint   Endpoint
	DeliveryID uuid.UUID
	Result     Result
}

// Test sends a sample event of type event now, once and without retries: to the endpoint
// webhookID when given (even a disabled one or one not subscribed to the event), else to every
// enabled endpoint of the account, all at once. A failed delivery is an outcome, not an error.
func (s *Service) Test(ctx context.Context, accountID uuid.UUID, webhookID *uuid.UUID, event EventType) ([]TestDelivery, error) {
	var targets []Endpoint
	if webhookID != nil {
		e, err := s.Store.Endpoint(ctx, accountID, *webhookID, false)
		if err != nil {
			return nil, err
		}
		targets = []Endpoint{e}
	} else {
		all, err := s.Store.Endpoints(ctx, accountID)
		if err != nil {
			return nil, err
		}
		for _, e := range all {
			if e.Enabled {
				targets = append(targets, e)
			}
		}
	}
	if len(targets) == 0 {
		return []TestDelivery{}, nil
	}
	secret, err := s.Secrets.SigningSecret(ctx, accountID)
	if err != nil {
		return nil, fmt.Errorf("signing secret: %w", err)
	}
	now := s.now()
	body, err := Body(event, SampleData(event, now), now)
	if err != nil {
		return nil, err
	}
	out := make([]TestDelivery, len(targets))
	var wg sync.WaitGroup
	for i, e := range targets {
		wg.Go(func() {
			id := uuid.New()
			out[i] = TestDelivery{Endpoint: e, DeliveryID: id, Result: s.Sender.Send(ctx, e.URL, secret, id, body, now)}
		})
	}
	wg.Wait()
	return out, nil
}
