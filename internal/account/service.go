package account

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/audit"
)

// Sealer encrypts secrets that must be read back (webhook signing secrets).
// internal/platform/secretbox implements it.
type Sealer interface {
	Seal(plain []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

// DefaultTokenTTL is an access token's lifetime when Service.TokenTTL is zero.
const DefaultTokenTTL = time.Hour

// maxNameLen is the longest account name, as the accounts table allows.
const maxNameLen = 200

// Errors returned by authentication, in addition to the Store's.
var (
	// ErrInvalidCredentials covers every credential that does not authenticate: unknown client,
	// wrong secret, revoked client, unknown, malformed or revoked token or key, and a token of the
	// other environment. They are one error so that a caller cannot tell them apart, and so
	// cannot leak to an attacker which part was right.
	ErrInvalidCredentials = errors.New("invalid credentials")
	// ErrTokenExpired: the token was valid but its lifetime is over; the client should get a new
	// one.
	ErrTokenExpired = errors.New("token expired")
	// ErrPermission: a token was asked for a permission its client does not have.
	ErrPermission = errors.New("permission not granted")
)

// Service applies the account rules over a Store. Its zero Now and TokenTTL mean time.Now and
// DefaultTokenTTL. Sealer is needed only by the signing secret methods and CreateAccount.
type Service struct {
	Store  Store
	Sealer Sealer
	// Now is the clock that decides token expiry; tests move it instead of sleeping.
	Now func() time.Time
	// TokenTTL is the access token lifetime.
	TokenTTL time.Duration
	// CacheTTL is how long AuthenticateToken and AuthenticateAPIKey reuse what the Store said of
	// a known credential instead of asking again, and so how long a revocation made elsewhere
	// may take to reach this process. Zero asks every time. Expiry is always checked against
	// Now, cached or not.
	CacheTTL time.Duration

	tokens credentialCache[tokenLookup]
	keys   credentialCache[APIKey]
}

// tokenLookup is what the Store says of an access token: the token and its client's revocation.
type tokenLookup struct {
	token           AccessToken
	clientRevokedAt *time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) tokenTTL() time.Duration {
	if s.TokenTTL > 0 {
		return s.TokenTTL
	}
	return DefaultTokenTTL
}

func (s *Service) sealer() (Sealer, error) {
	if s.Sealer == nil {
		return nil, errors.New("account: no Sealer configured for signing secrets")
	}
	return s.Sealer, nil
}

// CreateAccount creates an account and its webhook signing secret. Empty plans mean the defaults,
// standard and free. The name is trimmed and must have 1 to 200 characters (ErrInvalid).
func (s *Service) CreateAccount(ctx context.Context, name string, recon ReconPlan, parse ParsePlan) (Account, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > maxNameLen {
		return Account{}, fmt.Errorf("%w: the account name must have 1 to %d characters", ErrInvalid, maxNameLen)
	}
	if recon == "" {
		recon = ReconStandard
	}
	if parse == "" {
		parse = ParseFree
	}
	if _, err := ParseReconPlan(string(recon)); err != nil {
		return Account{}, err
	}
	if _, err := ParseParsePlan(string(parse)); err != nil {
		return Account{}, err
	}
	// Check the sealer before writing anything, so that a misconfigured process does not leave
	// an account behind.
	if _, err := s.sealer(); err != nil {
		return Account{}, err
	}
	a, err := s.Store.CreateAccount(ctx, Account{
		ID:        uuid.New(),
		Name:      name,
		ReconPlan: recon,
		ParsePlan: parse,
		CreatedAt: s.now(),
	})
	if err != nil {
		return Account{}, fmt.Errorf("create account: %w", err)
	}
	// The Store has no transactions; if this fails the account exists without a secret, and
	// SigningSecret creates one when it is first asked for.
	if _, err := s.RotateSigningSecret(ctx, nil, a.ID); err != nil {
		return Account{}, fmt.Errorf("create account %s: %w", a.ID, err)
	}
	return a, nil
}

// ListAccounts returns every account, oldest first.
func (s *Service) ListAccounts(ctx context.Context) ([]Account, error) {
	return s.Store.ListAccounts(ctx)
}

// CreateClient creates a Reconciliation API client for the account and returns it with its
// plain secret, which exists nowhere else: show it once. nil perms means AllPermissions; an
// empty or unknown one is ErrInvalid, an unknown account ErrNotFound. The audit log records by
// as its creator.
func (s *Service) CreateClient(ctx context.Context, by audit.Actor, accountID uuid.UUID, perms []Permission) (Client, string, error) {
	if perms == nil {
		perms = AllPermissions
	}
	perms, err := checkPermissions(perms)
	if err != nil {
		return Client{}, "", err
	}
	if len(perms) == 0 {
		return Client{}, "", fmt.Errorf("%w: a client needs at least one permission", ErrInvalid)
	}
	secret, hash := NewClientSecret()
	c := Client{
		ID:          NewClientID(),
		AccountID:   accountID,
		Permissions: perms,
		SecretHash:  hash,
		CreatedAt:   s.now(),
		CreatedBy:   by.Name,
	}
	if err := s.Store.CreateClient(ctx, c, by); err != nil {
		return Client{}, "", fmt.Errorf("create client for account %s: %w", accountID, err)
	}
	return c, secret, nil
}

// RevokeClient revokes the account's client (uuid.Nil: any account's, for the operator), so that
// neither its secret nor any token issued to it works any more. An unknown client, or another
// account's, is ErrNotFound; one already revoked is ErrRevoked, which callers that only want it
// revoked may treat as success.
func (s *Service) RevokeClient(ctx context.Context, by audit.Actor, accountID uuid.UUID, clientID string) error {
	if err := s.Store.RevokeClient(ctx, accountID, clientID, s.now(), by); err != nil {
		return fmt.Errorf("revoke client %s: %w", clientID, err)
	}
	return nil
}

// RotateClientSecret gives the account's client (uuid.Nil: any account's, for the operator) a
// new secret and returns it in clear, shown once. The current secret keeps working for overlap
// (0: it stops at once; at most MaxRotationOverlap), so that the client's users can switch
// without a moment in which neither works. Tokens already issued stay valid until they expire.
// An unknown client, or another account's, is ErrNotFound; a revoked one ErrRevoked; an overlap
// out of range ErrInvalid.
func (s *Service) RotateClientSecret(ctx context.Context, by audit.Actor, accountID uuid.UUID, clientID string, overlap time.Duration) (string, error) {
	if overlap < 0 || overlap > MaxRotationOverlap {
		return "", fmt.Errorf("%w: the overlap must be from 0 to %d days", ErrInvalid, int(MaxRotationOverlap.Hours()/24))
	}
	secret, hash := NewClientSecret()
	now := s.now()
	var until *time.Time
	if overlap > 0 {
		t := now.Add(overlap)
		until = &t
	}
	if err := s.Store.RotateClient(ctx, accountID, clientID, hash, now, until, by); err != nil {
		return "", fmt.Errorf("rotate client %s: %w", clientID, err)
	}
	return secret, nil
}

// Clients returns the account's Reconciliation API clients, revoked ones included, newest
// first.
func (s *Service) Clients(ctx context.Context, accountID uuid.UUID) ([]Client, error) {
	return s.Store.Clients(ctx, accountID)
}

// APIKeys returns the account's Parsing API keys, revoked ones included, newest first.
func (s *Service) APIKeys(ctx context.Context, accountID uuid.UUID) ([]APIKey, error) {
	return s.Store.APIKeys(ctx, accountID)
}

// dummySecretHash is compared against when the client is unknown, so that an unknown client
// costs the same as a wrong secret.
var dummySecretHash = Hash(ClientSecretPrefix + "unknown-client-dummy-secret")

// IssueToken checks the client's credentials in constant time and issues a token for env with
// the requested permissions: nil or empty means all the client has, one it lacks is
// ErrPermission (only said to a client that authenticated). It returns the plain token, shown
// once, and its record, which expires TokenTTL from now. Bad credentials of any kind are
// ErrInvalidCredentials.
func (s *Service) IssueToken(ctx context.Context, clientID, clientSecret string, env Environment, requested []Permission) (string, AccessToken, error) {
	if env != Production && env != Sandbox {
		return "", AccessToken{}, fmt.Errorf("%w: unknown environment %q", ErrInvalid, env)
	}
	if !LooksLikeClientID(clientID) {
		Matches(clientSecret, dummySecretHash) // as long as for an unknown client
		return "", AccessToken{}, ErrInvalidCredentials
	}
	c, err := s.Store.Client(ctx, clientID)
	switch {
	case errors.Is(err, ErrNotFound):
		Matches(clientSecret, dummySecretHash)
		return "", AccessToken{}, ErrInvalidCredentials
	case err != nil:
		return "", AccessToken{}, fmt.Errorf("issue token: %w", err)
	}
	// Compare first, decide after: a revoked client costs the same as an active one, and a
	// client without a previous secret as one with it.
	ok := Matches(clientSecret, c.SecretHash)
	previous := c.PreviousSecretHash
	if previous == nil {
		previous = dummySecretHash
	}
	if Matches(clientSecret, previous) && c.PreviousSecretHash != nil && c.PreviousExpiresAt != nil &&
		s.now().Before(*c.PreviousExpiresAt) {
		ok = true
	}
	if !ok || c.RevokedAt != nil {
		return "", AccessToken{}, ErrInvalidCredentials
	}
	perms := c.Permissions
	if len(requested) > 0 {
		perms = make([]Permission, 0, len(requested))
		for _, p := range requested {
			if !HasPermission(c.Permissions, p) {
				return "", AccessToken{}, fmt.Errorf("%w: %q", ErrPermission, p)
			}
			if !slices.Contains(perms, p) {
				perms = append(perms, p)
			}
		}
	}
	token, hash := NewAccessToken()
	now := s.now()
	t := AccessToken{
		Hash:        hash,
		ClientID:    c.ID,
		AccountID:   c.AccountID,
		Env:         env,
		Permissions: perms,
		IssuedAt:    now,
		ExpiresAt:   now.Add(s.tokenTTL()),
	}
	if err := s.Store.CreateAccessToken(ctx, t); err != nil {
		return "", AccessToken{}, fmt.Errorf("issue token: %w", err)
	}
	// "Last used" is a note for the dashboard: failing to write it fails no token.
	_ = s.Store.ClientUsed(ctx, c.ID, now)
	return token, t, nil
}

// AuthenticateToken returns the record of a bearer token presented in env. Malformed, unknown,
// revoked-client and other-environment tokens are ErrInvalidCredentials; a token that would
// otherwise be valid but is past its expiry is ErrTokenExpired.
func (s *Service) AuthenticateToken(ctx context.Context, token string, env Environment) (AccessToken, error) {
	if !LooksLikeAccessToken(token) {
		return AccessToken{}, ErrInvalidCredentials
	}
	hash, now := Hash(token), s.now()
	found, ok := s.tokens.get(hash, now)
	if !ok {
		t, clientRevokedAt, err := s.Store.AccessToken(ctx, hash)
		switch {
		case errors.Is(err, ErrNotFound):
			return AccessToken{}, ErrInvalidCredentials
		case err != nil:
			return AccessToken{}, fmt.Errorf("authenticate token: %w", err)
		}
		found = tokenLookup{token: t, clientRevokedAt: clientRevokedAt}
		s.tokens.put(hash, found, now, s.CacheTTL)
	}
	t := found.token
	if found.clientRevokedAt != nil || t.Env != env {
		return AccessToken{}, ErrInvalidCredentials
	}
	if !now.Before(t.ExpiresAt) {
		return AccessToken{}, ErrTokenExpired
	}
	return t, nil
}

// CreateAPIKey creates a Parsing API key for the account and returns its record with the plain
// key, which exists nowhere else: show it once. nil scopes means AllScopes; an empty or unknown
// one is ErrInvalid, an unknown account ErrNotFound. The audit log records by as its creator.
func (s *Service) CreateAPIKey(ctx context.Context, by audit.Actor, accountID uuid.UUID, scopes []Scope) (APIKey, string, error) {
	if scopes == nil {
		scopes = AllScopes
	}
	scopes, err := checkScopes(scopes)
	if err != nil {
		return APIKey{}, "", err
	}
	if len(scopes) == 0 {
		return APIKey{}, "", fmt.Errorf("%w: a key needs at least one scope", ErrInvalid)
	}
	key, hash, prefix := NewAPIKey()
	k := APIKey{
		ID:        uuid.New(),
		AccountID: accountID,
		Prefix:    prefix,
		Hash:      hash,
		Scopes:    scopes,
		CreatedAt: s.now(),
		CreatedBy: by.Name,
	}
	if err := s.Store.CreateAPIKey(ctx, k, by); err != nil {
		return APIKey{}, "", fmt.Errorf("create API key for account %s: %w", accountID, err)
	}
	return k, key, nil
}

// RevokeAPIKey revokes the account's key (uuid.Nil: any account's, for the operator). An
// unknown key, or another account's, is ErrNotFound; one already revoked is ErrRevoked.
func (s *Service) RevokeAPIKey(ctx context.Context, by audit.Actor, accountID, id uuid.UUID) error {
	if err := s.Store.RevokeAPIKey(ctx, accountID, id, s.now(), by); err != nil {
		return fmt.Errorf("revoke API key %s: %w", id, err)
	}
	return nil
}

// AuthenticateAPIKey returns the record of a presented API key. Malformed keys are refused
// without a database query; malformed, unknown and revoked keys are all ErrInvalidCredentials.
func (s *Service) AuthenticateAPIKey(ctx context.Context, key string) (APIKey, error) {
	if !LooksLikeAPIKey(key) {
		return APIKey{}, ErrInvalidCredentials
	}
	hash, now := Hash(key), s.now()
	k, ok := s.keys.get(hash, now)
	if !ok {
		var err error
		k, err = s.Store.APIKeyByHash(ctx, hash)
		switch {
		case errors.Is(err, ErrNotFound):
			return APIKey{}, ErrInvalidCredentials
		case err != nil:
			return APIKey{}, fmt.Errorf("authenticate API key: %w", err)
		}
		s.keys.put(hash, k, now, s.CacheTTL)
		if k.RevokedAt == nil {
			// Noted when the database is asked anyway (every CacheTTL at most), stored at most
			// once a minute; a note, so its failure refuses no request.
			_ = s.Store.APIKeyUsed(ctx, k.ID, now)
		}
	}
	if k.RevokedAt != nil {
		return APIKey{}, ErrInvalidCredentials
	}
	return k, nil
}

// SigningSecret returns the account's webhook signing secret in clear ("whsec_..."), for signing
// deliveries and for showing to its operator. An unknown account is ErrNotFound. An account that
// has none (its creation was interrupted) gets one now.
func (s *Service) SigningSecret(ctx context.Context, accountID uuid.UUID) (string, error) {
	sealer, err := s.sealer()
	if err != nil {
		return "", err
	}
	sealed, err := s.Store.SigningSecret(ctx, accountID)
	if errors.Is(err, ErrNotFound) {
		if _, err := s.Store.Account(ctx, accountID); err != nil {
			return "", fmt.Errorf("signing secret: %w", err)
		}
		return s.RotateSigningSecret(ctx, nil, accountID)
	}
	if err != nil {
		return "", fmt.Errorf("signing secret of account %s: %w", accountID, err)
	}
	plain, err := sealer.Open(sealed)
	if err != nil {
		// Almost always a different secret key from the one that sealed it.
		return "", fmt.Errorf("signing secret of account %s cannot be decrypted; is this the secret key the other statementd processes use? %w", accountID, err)
	}
	return string(plain), nil
}

// RotateSigningSecret replaces the account's webhook signing secret with a new one and returns
// it in clear. The old one stops working at once. An unknown account is ErrNotFound. by, when
// set, is recorded in the audit log (nil: the first secret of an account, made on demand).
func (s *Service) RotateSigningSecret(ctx context.Context, by *audit.Actor, accountID uuid.UUID) (string, error) {
	sealer, err := s.sealer()
	if err != nil {
		return "", err
	}
	secret := NewSigningSecret()
	sealed, err := sealer.Seal([]byte(secret))
	if err != nil {
		return "", fmt.Errorf("rotate signing secret: %w", err)
	}
	if err := s.Store.SetSigningSecret(ctx, accountID, sealed, s.now(), by); err != nil {
		return "", fmt.Errorf("rotate signing secret of account %s: %w", accountID, err)
	}
	return secret, nil
}

// ParsePermissions reads permission names, as given to `admin client create --permissions` or in
// a token request's scope. Surrounding spaces and empty entries are ignored, duplicates dropped;
// an unknown name is ErrInvalid naming it. An empty list gives nil, which means "all" to
// CreateClient and IssueToken.
func ParsePermissions(list []string) ([]Permission, error) {
	var out []Permission
	for _, raw := range list {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		p := Permission(name)
		if !slices.Contains(AllPermissions, p) {
			return nil, fmt.Errorf("%w: unknown permission %q (known: %s)", ErrInvalid, name, join(AllPermissions))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ParseScopes reads API key scope names like ParsePermissions: an unknown one is ErrInvalid
// naming it, an empty list gives nil ("all" to CreateAPIKey).
func ParseScopes(list []string) ([]Scope, error) {
	var out []Scope
	for _, raw := range list {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		sc := Scope(name)
		if !slices.Contains(AllScopes, sc) {
			return nil, fmt.Errorf("%w: unknown scope %q (known: %s)", ErrInvalid, name, join(AllScopes))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// ParseReconPlan reads a Reconciliation API plan name; anything else is ErrInvalid.
func ParseReconPlan(s string) (ReconPlan, error) {
	switch p := ReconPlan(s); p {
	case ReconStandard, ReconPro:
		return p, nil
	}
	return "", fmt.Errorf("%w: unknown reconciliation plan %q (known: standard, pro)", ErrInvalid, s)
}

// ParseParsePlan reads a Parsing API plan name; anything else is ErrInvalid.
func ParseParsePlan(s string) (ParsePlan, error) {
	switch p := ParsePlan(s); p {
	case ParseFree, ParseStarter, ParsePro, ParseBusiness:
		return p, nil
	}
	return "", fmt.Errorf("%w: unknown parsing plan %q (known: free, starter, pro, business)", ErrInvalid, s)
}

// HasPermission reports whether p is among have.
func HasPermission(have []Permission, p Permission) bool { return slices.Contains(have, p) }

// HasScope reports whether s is among have.
func HasScope(have []Scope, s Scope) bool { return slices.Contains(have, s) }

// checkPermissions validates typed permissions from a caller that skipped ParsePermissions.
func checkPermissions(perms []Permission) ([]Permission, error) {
	list := make([]string, len(perms))
	for i, p := range perms {
		list[i] = string(p)
	}
	return ParsePermissions(list)
}

func checkScopes(scopes []Scope) ([]Scope, error) {
	list := make([]string, len(scopes))
	for i, sc := range scopes {
		list[i] = string(sc)
	}
	return ParseScopes(list)
}

func join[T ~string](list []T) string {
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
