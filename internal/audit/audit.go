// Package audit is the account's audit log: who created, revoked, rotated, invited or signed in,
// from which address, and when. An Event is written by the same database statement as the change
// it records (internal/postgres), so that no change goes unrecorded and no record tells of a
// change that did not happen. It knows nothing of HTTP or SQL.
package audit

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Actor is who makes a change: a dashboard user, or the operator at the command line.
type Actor struct {
	// UserID is the dashboard user's; uuid.Nil for the operator.
	UserID uuid.UUID
	// Name is how the log shows the actor: the user's email, or Operator.
	Name string
	// Address is where the request came from (the client address, resolved behind a trusted
	// proxy); empty at the command line.
	Address string
}

// Operator is the actor of `statementd admin`, who needs no dashboard user.
var Operator = Actor{Name: "statementd admin"}

// The actions, named object.verb.
const (
	ClientCreated   = "api_client.created"
	ClientRevoked   = "api_client.revoked"
	ClientRotated   = "api_client.rotated"
	KeyCreated      = "api_key.created"
	KeyRevoked      = "api_key.revoked"
	UserInvited     = "user.invited"
	LinkIssued      = "user.link_issued"
	PasswordSet     = "user.password_set"
	PasswordChanged = "user.password_changed"
	RoleChanged     = "user.role_changed"
	UserDisabled    = "user.disabled"
	UserEnabled     = "user.enabled"
	UserRemoved     = "user.removed"
	// SecondFactorOn and SecondFactorOff: an authenticator set up by its user, removed by its
	// user, an owner or the operator.
	SecondFactorOn   = "user.second_factor_enabled"
	SecondFactorOff  = "user.second_factor_removed"
	SignedIn         = "user.signed_in"
	SignInFailed     = "user.sign_in_failed"
	SignedOut        = "user.signed_out"
	SignedOutAll     = "user.signed_out_everywhere"
	SigningRotated   = "signing_secret.rotated"
	SigningRevealed  = "signing_secret.revealed"
	WebhookCreated   = "webhook.created"
	WebhookDeleted   = "webhook.deleted"
	WebhookDisabled  = "webhook.disabled"
	WebhookReenabled = "webhook.enabled"
)

// Event is one line of an account's audit log.
type Event struct {
	ID        int64
	AccountID uuid.UUID
	At        time.Time
	Actor     Actor
	Action    string
	// Target names what the action was on: a client id, a key's prefix, a user's email.
	Target string
}

// Store reads the log; the stores that make changes write it, and Record writes an event that
// changes nothing (a secret shown).
type Store interface {
	// Record writes one event.
	Record(ctx context.Context, e Event) error
	// Events returns the account's events, newest first, at most limit of them, older than the
	// event before (0: from the newest).
	Events(ctx context.Context, accountID uuid.UUID, before int64, limit int) ([]Event, error)
}
