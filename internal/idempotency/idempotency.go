// Package idempotency runs create requests under their Idempotency-Key (IETF draft
// semantics), for every API that creates: both APIs' jobs and the Parsing API's webhook
// endpoints. A key is claimed before the request runs, marked done in the transaction that
// creates, replayed for the same request, and refused for another.
package idempotency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// Errors of a key's use. The HTTP layers map them with errors.Is.
var (
	// ErrConflict: a request with the same Idempotency-Key is still in progress.
	ErrConflict = errors.New("idempotency key in use by a request in progress")
	// ErrKeyReused: the Idempotency-Key was used with a different request.
	ErrKeyReused = errors.New("idempotency key reused with a different request")
)

// Key identifies an Idempotency-Key record and the request that uses it.
type Key struct {
	AccountID uuid.UUID
	// Scope separates the keys of the APIs and environments: "recon:production".
	Scope string
	Key   string
	// Hash is the SHA-256 of the request, so a reuse with another request is told apart.
	Hash []byte
	// ResourceID is what the request creates (a job, a webhook endpoint); set when the key is
	// marked done.
	ResourceID uuid.UUID
}

// Record is a stored Idempotency-Key.
type Record struct {
	Hash       []byte
	Done       bool
	ResourceID uuid.UUID
	CreatedAt  time.Time
}

// Idempotency-Key lifetimes.
const (
	// KeyTTL is how long a key is remembered from its first use.
	KeyTTL = 24 * time.Hour
	// PendingTTL is how long a key stays pending before a new request may take it over: a
	// request holds it only while its job is checked and stored (seconds), so a key pending
	// longer belongs to a process that died.
	PendingTTL = time.Minute
)

// Store keeps Idempotency-Key records; both APIs' stores have it.
type Store interface {
	ClaimKey(ctx context.Context, k Key, now time.Time) (existing Record, claimed bool, err error)
	ReleaseKey(ctx context.Context, k Key) error
}

// Run runs a create request under its Idempotency-Key (none when k.Key is empty): it claims the
// key and runs create, which must mark the key done in the transaction that creates; a key
// already held goes to replay when its record is done and of the same request, and is
// ErrKeyReused (another request) or ErrConflict (still pending) otherwise. A create that fails
// releases the key, so the client may retry with it.
func Run[T any](ctx context.Context, keys Store, k Key, now time.Time, log *slog.Logger,
	create func() (T, error), replay func(Record) (T, error)) (T, error) {
	var zero T
	if k.Key == "" {
		return create()
	}
	existing, claimed, err := keys.ClaimKey(ctx, k, now)
	if err != nil {
		return zero, fmt.Errorf("claim idempotency key: %w", err)
	}
	if !claimed {
		switch {
		case !bytes.Equal(existing.Hash, k.Hash):
			return zero, ErrKeyReused
		case !existing.Done:
			return zero, ErrConflict
		}
		return replay(existing)
	}
	out, err := create()
	if err != nil {
		if rerr := keys.ReleaseKey(context.WithoutCancel(ctx), k); rerr != nil {
			log.ErrorContext(ctx, "release idempotency key", slog.String("error", rerr.Error()))
		}
	}
	return out, err
}
