// Package account holds the tenants of the service and their credentials: accounts with their
// plans, Reconciliation API clients and their access tokens, Parsing API keys, and each account's
// webhook signing secret. It defines the rules (what a credential looks like, how it is hashed,
// what it may do) and the Store it needs; internal/postgres implements the Store. It knows
// nothing of HTTP.
package account

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/audit"
)

// ReconPlan is an account's Reconciliation API plan.
type ReconPlan string

// Reconciliation API plans.
const (
	ReconStandard ReconPlan = "standard"
	ReconPro      ReconPlan = "pro"
)

// ParsePlan is an account's Parsing API plan.
type ParsePlan string

// Parsing API plans.
const (
	ParseFree     ParsePlan = "free"
	ParseStarter  ParsePlan = "starter"
	ParsePro      ParsePlan = "pro"
	ParseBusiness ParsePlan = "business"
)

// Account is a tenant. Both APIs share it.
type Account struct {
	ID        uuid.UUID
	Name      string
	ReconPlan ReconPlan
	ParsePlan ParsePlan
	CreatedAt time.Time
}

// Permission is what a Reconciliation API client may do; it is also the OAuth 2.0 scope of its
// tokens.
type Permission string

// Reconciliation API permissions.
const (
	JobsRead   Permission = "jobs:read"
	JobsWrite  Permission = "jobs:write"
	LimitsRead Permission = "limits:read"
)

// AllPermissions are a new client's permissions unless others are asked for.
var AllPermissions = []Permission{JobsRead, JobsWrite, LimitsRead}

// Scope is what a Parsing API key may do.
type Scope string

// Parsing API scopes.
const (
	ScopeJobsRead       Scope = "jobs:read"
	ScopeJobsWrite      Scope = "jobs:write"
	ScopeWebhooksManage Scope = "webhooks:manage"
	ScopeExportRead     Scope = "export:read"
	ScopeUsageRead      Scope = "usage:read"
)

// AllScopes are a new key's scopes unless others are asked for.
var AllScopes = []Scope{ScopeJobsRead, ScopeJobsWrite, ScopeWebhooksManage, ScopeExportRead, ScopeUsageRead}

// Environment is a Reconciliation API environment; tokens of one do not work in the other.
type Environment string

// The two environments.
const (
	Production Environment = "production"
	Sandbox    Environment = "sandbox"
)

// Client is a Reconciliation API client. Its secret is kept only as a SHA-256 hash.
type Client struct {
	// ID is public: "cli_" followed by random base62 characters.
	ID          string
	AccountID   uuid.UUID
	Permissions []Permission
	SecretHash  []byte
	CreatedAt   time.Time
	// RevokedAt is set once the client is revoked; a revoked client fails like a wrong one.
	RevokedAt *time.Time
	// CreatedBy is who created it, as the audit log names them; LastUsedAt when it last got a
	// token (to the minute), nil if never.
	CreatedBy  string
	LastUsedAt *time.Time
	// SecretSince is when the current secret was made: at creation, or at its last rotation.
	SecretSince time.Time
	// PreviousSecretHash is the secret before the last rotation, which still works until
	// PreviousExpiresAt (the overlap); nil when there is none.
	PreviousSecretHash []byte
	PreviousExpiresAt  *time.Time
}

// MaxRotationOverlap is the longest a rotated client's previous secret may keep working.
const MaxRotationOverlap = 30 * 24 * time.Hour

// AccessToken is a Reconciliation API bearer token, kept only as a SHA-256 hash. It is bound
// to its client, account and environment.
type AccessToken struct {
	Hash        []byte
	ClientID    string
	AccountID   uuid.UUID
	Env         Environment
	Permissions []Permission
	IssuedAt    time.Time
	ExpiresAt   time.Time
}

// APIKey is a Parsing API key, kept only as a SHA-256 hash with a short prefix for display.
type APIKey struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	// Prefix is the start of the key ("smk_live_4eC3"), enough to recognise it in a list.
	Prefix    string
	Hash      []byte
	Scopes    []Scope
	CreatedAt time.Time
	RevokedAt *time.Time
	// CreatedBy is who created it, as the audit log names them; LastUsedAt when it last
	// authenticated a request (to the minute), nil if never.
	CreatedBy  string
	LastUsedAt *time.Time
}

// Errors of the Store and of this package's rules. Callers branch with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	// ErrRevoked: the client or key exists but was revoked.
	ErrRevoked = errors.New("revoked")
	// ErrInvalid: an argument breaks a rule (unknown plan, permission or scope, empty name).
	ErrInvalid = errors.New("invalid")
	// ErrConflict: a record with the same unique value (id or credential hash) exists already.
	ErrConflict = errors.New("already exists")
)

// Store keeps accounts and credentials. Implementations translate their own errors into the
// sentinels above.
type Store interface {
	CreateAccount(ctx context.Context, a Account) (Account, error)
	Account(ctx context.Context, id uuid.UUID) (Account, error)
	ListAccounts(ctx context.Context) ([]Account, error)

	// CreateClient stores c and, in the same statement, the audit event of its creation by by.
	CreateClient(ctx context.Context, c Client, by audit.Actor) error
	// Client returns the client with this ID, revoked or not.
	Client(ctx context.Context, id string) (Client, error)
	// Clients returns the account's clients, revoked ones included, newest first.
	Clients(ctx context.Context, accountID uuid.UUID) ([]Client, error)
	// RevokeClient revokes the client of the account (uuid.Nil: of any account) and records
	// the event, in one statement.
	RevokeClient(ctx context.Context, accountID uuid.UUID, id string, at time.Time, by audit.Actor) error
	// RotateClient gives the account's unrevoked client a new secret hash, keeping the current
	// one working until previousUntil (nil: not at all), and records the event, in one
	// statement. Another account's client, or a revoked one, is ErrNotFound or ErrRevoked.
	RotateClient(ctx context.Context, accountID uuid.UUID, id string, hash []byte, at time.Time, previousUntil *time.Time, by audit.Actor) error
	// ClientUsed notes that the client got a token at at (at most once a minute is stored).
	ClientUsed(ctx context.Context, id string, at time.Time) error

	CreateAccessToken(ctx context.Context, t AccessToken) error
	// AccessToken returns the token with this hash, expired or not, with its client's revocation
	// (RevokedAt of the client) so one lookup decides.
	AccessToken(ctx context.Context, hash []byte) (AccessToken, *time.Time, error)

	// CreateAPIKey stores k and, in the same statement, the audit event of its creation by by.
	CreateAPIKey(ctx context.Context, k APIKey, by audit.Actor) error
	// APIKeyByHash returns the key with this hash, revoked or not.
	APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error)
	// APIKeys returns the account's keys, revoked ones included, newest first.
	APIKeys(ctx context.Context, accountID uuid.UUID) ([]APIKey, error)
	// RevokeAPIKey revokes the key of the account (uuid.Nil: of any account) and records the
	// event, in one statement.
	RevokeAPIKey(ctx context.Context, accountID uuid.UUID, id uuid.UUID, at time.Time, by audit.Actor) error
	// APIKeyUsed notes that the key authenticated a request at at (at most once a minute is
	// stored).
	APIKeyUsed(ctx context.Context, id uuid.UUID, at time.Time) error

	// SigningSecret returns the account's webhook signing secret, encrypted as stored.
	SigningSecret(ctx context.Context, accountID uuid.UUID) ([]byte, error)
	// SetSigningSecret stores a new encrypted signing secret for the account; by, when set,
	// is recorded as having rotated it, in the same statement.
	SetSigningSecret(ctx context.Context, accountID uuid.UUID, sealed []byte, at time.Time, by *audit.Actor) error
}
