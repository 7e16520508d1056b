// Package people holds the people who sign in to the account dashboard: users with a role, the
// one-time links with which they set a password, their sessions, and the rules of signing in
// (argon2id passwords, throttled attempts, sessions that end). It defines the Store it needs;
// internal/postgres implements it, writing each change's audit event in the same statement. It
// knows nothing of HTTP.
package people

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/audit"
)

// Role is what a user may do in the dashboard.
type Role string

// The roles, from most to least allowed.
const (
	// Owner also manages the account's users and its signing secret.
	Owner Role = "owner"
	// Developer also manages API clients, API keys and webhooks, and creates jobs.
	Developer Role = "developer"
	// Viewer reads: jobs, usage, credentials' lists.
	Viewer Role = "viewer"
)

// ParseRole reads a role's name; an unknown one is ErrInvalid.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Owner, Developer, Viewer:
		return r, nil
	}
	return "", errors.Join(ErrInvalid, errors.New("the role must be owner, developer or viewer"))
}

// ManagesCredentials reports whether the role may create and revoke API clients, API keys and
// webhooks.
func (r Role) ManagesCredentials() bool { return r == Owner || r == Developer }

// ManagesUsers reports whether the role may invite users and manage the signing secret.
func (r Role) ManagesUsers() bool { return r == Owner }

// User is a person of an account.
type User struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	Email     string
	Role      Role
	// PasswordHash is the argon2id hash (PHC string); empty until the user sets a password.
	PasswordHash string
	CreatedAt    time.Time
	DisabledAt   *time.Time
	// SecondFactorSince is when the user's authenticator was set up; nil: they sign in with a
	// password alone.
	SecondFactorSince *time.Time
}

// Actor is the user as the audit log names them, acting from address.
func (u User) Actor(address string) audit.Actor {
	return audit.Actor{UserID: u.ID, Name: u.Email, Address: address}
}

// Invitation is a one-time link to set a password, kept as the hash of its token.
type Invitation struct {
	Hash      []byte
	UserID    uuid.UUID
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Session is a signed-in browser, kept as the hash of its cookie's token.
type Session struct {
	Hash   []byte
	UserID uuid.UUID
	// CSRF is the token every form of the session carries.
	CSRF       string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	Address    string
}

// Errors of the Store and of this package's rules. Callers branch with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrInvalid  = errors.New("invalid")
	// ErrConflict: a user with this email exists already.
	ErrConflict = errors.New("already exists")
	// ErrInvalidCredentials: a sign-in with an unknown email, a wrong password, or a user who
	// has no password yet or is disabled; they are not told apart.
	ErrInvalidCredentials = errors.New("invalid email or password")
	// ErrThrottled: too many failed sign-ins from this address, or for this email from it.
	ErrThrottled = errors.New("too many failed sign-ins")
	// ErrLinkInvalid: a set-password link that is unknown, used or expired.
	ErrLinkInvalid = errors.New("the link is not valid")
	// ErrSessionEnded: a session cookie that is unknown, expired or idle too long.
	ErrSessionEnded = errors.New("the session has ended")
	// ErrSelf: an owner may not change their own role or disable themselves, so that an
	// account always keeps an owner who can sign in.
	ErrSelf = errors.New("not on yourself")
)

// Store keeps users, invitations and sessions. Each change that the audit log records is
// recorded by the same statement.
type Store interface {
	// CreateUser stores u with its first invitation, recording that by invited them. An email
	// in use (in any account) is ErrConflict, an unknown account ErrNotFound.
	CreateUser(ctx context.Context, u User, inv Invitation, by audit.Actor) error
	// NewInvitation stores another set-password link for u (a reset), recording that by issued
	// it.
	NewInvitation(ctx context.Context, inv Invitation, u User, by audit.Actor) error
	// User returns the user with this id.
	User(ctx context.Context, id uuid.UUID) (User, error)
	// UserByEmail returns the user with this email, compared without case.
	UserByEmail(ctx context.Context, email string) (User, error)
	// Users returns the account's users, oldest first.
	Users(ctx context.Context, accountID uuid.UUID) ([]User, error)
	// UseInvitation sets the password of the invitation's user if the invitation is unused and
	// unexpired at at, marks it used and ends the user's sessions, recording the change; any
	// other invitation is ErrLinkInvalid.
	UseInvitation(ctx context.Context, hash []byte, passwordHash string, at time.Time, address string) (User, error)
	// ChangePassword sets the user's password hash and ends their sessions but keep (the one
	// the change was made in), recording it.
	ChangePassword(ctx context.Context, u User, passwordHash string, keep []byte, at time.Time, address string) error
	// UpdateUser sets the role and the disabled time of the account's user (ErrNotFound for
	// another account's), ending their sessions when disabled, and records action by by.
	UpdateUser(ctx context.Context, accountID, userID uuid.UUID, role Role, disabledAt *time.Time, action string, by audit.Actor) (User, error)
	// InvitationUser returns the user of the invitation if it is unused and unexpired at at
	// (ErrLinkInvalid otherwise).
	InvitationUser(ctx context.Context, hash []byte, at time.Time) (User, error)
	// CreateSession stores s, recording the sign-in.
	CreateSession(ctx context.Context, s Session, u User) error
	// Session returns the session with this hash and its user.
	Session(ctx context.Context, hash []byte) (Session, User, error)
	// TouchSession notes a request of the session at at.
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	// DeleteSession ends the session, recording the sign-out by by.
	DeleteSession(ctx context.Context, hash []byte, by audit.Actor) error
	// DeleteSessions ends every session of the user, recording it.
	DeleteSessions(ctx context.Context, userID uuid.UUID, by audit.Actor) error
	// RecordFailedSignIn records a failed sign-in for the account of a known email.
	RecordFailedSignIn(ctx context.Context, u User, address string, at time.Time) error
	// DeleteUser removes the account's user for good (their sessions and links with them),
	// recording it; the audit log keeps their email. Another account's is ErrNotFound.
	DeleteUser(ctx context.Context, accountID, userID uuid.UUID, by audit.Actor) (User, error)

	// SetPendingSecondFactor keeps the sealed secret of an authenticator the user is setting
	// up, replacing one set up before and not confirmed.
	SetPendingSecondFactor(ctx context.Context, userID uuid.UUID, sealed []byte) error
	// SecondFactor returns the user's sealed authenticator secrets.
	SecondFactor(ctx context.Context, userID uuid.UUID) (SecondFactorSecrets, error)
	// EnableSecondFactor makes the pending secret the user's second factor from at, with step
	// as the last code used, recording it; without a pending secret it is ErrNotFound.
	EnableSecondFactor(ctx context.Context, u User, step int64, at time.Time, address string) error
	// DisableSecondFactor removes the second factor of the account's user (ErrNotFound for
	// another account's, or one without), ending their sign-ins waiting for a code, and records
	// it.
	DisableSecondFactor(ctx context.Context, accountID, userID uuid.UUID, by audit.Actor) (User, error)
	// CreateChallenge stores a sign-in waiting for its code (dropping the user's expired ones).
	CreateChallenge(ctx context.Context, c Challenge) error
	// Challenge returns the challenge with this hash and its user.
	Challenge(ctx context.Context, hash []byte) (Challenge, User, error)
	// FailChallenge counts a wrong code against the challenge and records the failed sign-in.
	FailChallenge(ctx context.Context, hash []byte, u User, address string, at time.Time) error
	// CompleteChallenge ends the challenge, notes step as the user's last code (ErrInvalidCode
	// when a code of that step or later was used already) and stores the session with its
	// sign-in event, all or nothing; a challenge gone already is ErrNotFound.
	CompleteChallenge(ctx context.Context, hash []byte, step int64, s Session, u User) error
}

// newToken returns a random 256-bit token for a cookie or a link, and its SHA-256 as stored.
func newToken() (string, []byte) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	token := base64.RawURLEncoding.EncodeToString(b)
	return token, hashToken(token)
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}
