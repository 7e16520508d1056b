package account_test

import (
	"context"
	"crypto/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/platform/secretbox"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clock is a settable time source for Service.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// lookupCounter wraps a Store and counts credential lookups, to prove that malformed
// credentials are refused without a query.
type lookupCounter struct {
	account.Store
	mu      sync.Mutex
	lookups int
}

func (l *lookupCounter) APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error) {
	l.count()
	return l.Store.APIKeyByHash(ctx, hash)
}

func (l *lookupCounter) AccessToken(ctx context.Context, hash []byte) (account.AccessToken, *time.Time, error) {
	l.count()
	return l.Store.AccessToken(ctx, hash)
}

func (l *lookupCounter) Client(ctx context.Context, id string) (account.Client, error) {
	l.count()
	return l.Store.Client(ctx, id)
}

func (l *lookupCounter) count() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lookups++
}

func (l *lookupCounter) Lookups() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lookups
}

type testBundle struct {
	svc     *account.Service
	store   *lookupCounter
	clock   *clock
	account account.Account
}

func newBox(t *testing.T) *secretbox.Box {
	t.Helper()
	key := make([]byte, secretbox.KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	return box
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	store := &lookupCounter{Store: postgres.NewAccountStore(pgtest.New(t))}
	clk := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	svc := &account.Service{Store: store, Sealer: newBox(t), Now: clk.Now, TokenTTL: time.Hour}
	a, err := svc.CreateAccount(t.Context(), "Acme SRL", "", "")
	require.NoError(t, err)
	return &testBundle{svc: svc, store: store, clock: clk, account: a}
}

func TestCreateAccount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	require.Equal(t, "Acme SRL", b.account.Name)
	require.Equal(t, account.ReconStandard, b.account.ReconPlan, "default reconciliation plan")
	require.Equal(t, account.ParseFree, b.account.ParsePlan, "default parsing plan")
	require.True(t, b.account.CreatedAt.Equal(b.clock.Now()))

	secret, err := b.svc.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(secret, account.SigningSecretPrefix), "a new account has a signing secret")

	b.clock.Advance(time.Second)
	pro, err := b.svc.CreateAccount(ctx, "  Beta  ", account.ReconPro, account.ParseBusiness)
	require.NoError(t, err)
	require.Equal(t, "Beta", pro.Name, "the name is trimmed")
	require.Equal(t, account.ReconPro, pro.ReconPlan)
	require.Equal(t, account.ParseBusiness, pro.ParsePlan)

	list, err := b.svc.ListAccounts(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, b.account.ID, list[0].ID, "oldest first")
	require.Equal(t, pro.ID, list[1].ID)

	for _, tc := range []struct {
		name  string
		aname string
		recon account.ReconPlan
		parse account.ParsePlan
	}{
		{"an empty name is refused", "   ", "", ""},
		{"a name over 200 characters is refused", strings.Repeat("x", 201), "", ""},
		{"an unknown reconciliation plan is refused", "X", "gold", ""},
		{"an unknown parsing plan is refused", "X", "", "enterprise"},
	} {
		_, err := b.svc.CreateAccount(ctx, tc.aname, tc.recon, tc.parse)
		require.ErrorIs(t, err, account.ErrInvalid, tc.name)
	}
	list, err = b.svc.ListAccounts(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2, "refused accounts are not created")
}

func TestIssueAndAuthenticateToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	client, secret, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	require.Equal(t, account.AllPermissions, client.Permissions, "nil permissions mean all")
	require.True(t, strings.HasPrefix(client.ID, account.ClientIDPrefix))
	require.True(t, account.Matches(secret, client.SecretHash))

	token, rec, err := b.svc.IssueToken(ctx, client.ID, secret, account.Production, nil)
	require.NoError(t, err)
	require.True(t, account.LooksLikeAccessToken(token))
	require.Equal(t, client.ID, rec.ClientID)
	require.Equal(t, b.account.ID, rec.AccountID)
	require.Equal(t, account.Production, rec.Env)
	require.Equal(t, account.AllPermissions, rec.Permissions, "no requested permissions: all the client has")
	require.True(t, rec.ExpiresAt.Equal(b.clock.Now().Add(time.Hour)))

	got, err := b.svc.AuthenticateToken(ctx, token, account.Production)
	require.NoError(t, err)
	require.Equal(t, client.ID, got.ClientID)
	require.Equal(t, b.account.ID, got.AccountID)
	require.Equal(t, account.AllPermissions, got.Permissions)
	require.True(t, got.ExpiresAt.Equal(rec.ExpiresAt))

	b.clock.Advance(59 * time.Minute)
	_, err = b.svc.AuthenticateToken(ctx, token, account.Production)
	require.NoError(t, err, "a minute before expiry the token works")

	b.clock.Advance(time.Minute)
	_, err = b.svc.AuthenticateToken(ctx, token, account.Production)
	require.ErrorIs(t, err, account.ErrTokenExpired, "at its expiry the token no longer works")

	_, err = b.svc.AuthenticateToken(ctx, token, account.Sandbox)
	require.ErrorIs(t, err, account.ErrInvalidCredentials, "an expired token of the other environment is just invalid")
}

func TestTokenFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	client, secret, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, []account.Permission{account.JobsRead, account.LimitsRead})
	require.NoError(t, err)
	sandboxToken, _, err := b.svc.IssueToken(ctx, client.ID, secret, account.Sandbox, nil)
	require.NoError(t, err)
	otherID := account.NewClientID()
	unknownToken, _ := account.NewAccessToken()

	for _, tc := range []struct {
		name      string
		clientID  string
		secret    string
		requested []account.Permission
		want      error
	}{
		{"an unknown client is invalid credentials", otherID, secret, nil, account.ErrInvalidCredentials},
		{"a wrong secret is the same error as an unknown client", client.ID, secret + "x", nil, account.ErrInvalidCredentials},
		{"an empty secret is invalid credentials", client.ID, "", nil, account.ErrInvalidCredentials},
		{"asking for a permission the client lacks is refused", client.ID, secret, []account.Permission{account.JobsWrite}, account.ErrPermission},
		{"an unknown permission is refused like a missing one", client.ID, secret, []account.Permission{"admin"}, account.ErrPermission},
		{"a wrong secret is refused before permissions are looked at", client.ID, "nope", []account.Permission{account.JobsWrite}, account.ErrInvalidCredentials},
	} {
		_, _, err := b.svc.IssueToken(ctx, tc.clientID, tc.secret, account.Production, tc.requested)
		require.ErrorIs(t, err, tc.want, tc.name)
		if tc.want == account.ErrInvalidCredentials {
			require.Equal(t, account.ErrInvalidCredentials.Error(), err.Error(), "%s: the error says nothing more", tc.name)
		}
	}

	// A client id no client can have is refused like an unknown one, without a query: a NUL
	// byte made PostgreSQL fail the lookup (a 500 of POST /api/v1/token before).
	for _, id := range []string{"cli_ab\x00cd", "nul\x00", "cli_\xff", "cli_a-b", "cli_", "client_1", "cli_" + strings.Repeat("a", 125)} {
		before := b.store.Lookups()
		_, _, err := b.svc.IssueToken(ctx, id, secret, account.Production, nil)
		require.ErrorIs(t, err, account.ErrInvalidCredentials, "%q", id)
		require.Equal(t, account.ErrInvalidCredentials.Error(), err.Error(), "%q", id)
		require.Equal(t, before, b.store.Lookups(), "%q is refused without a query", id)
	}
	looked := b.store.Lookups()
	_, _, err = b.svc.IssueToken(ctx, otherID, secret, account.Production, nil)
	require.ErrorIs(t, err, account.ErrInvalidCredentials)
	require.Equal(t, looked+1, b.store.Lookups(), "a client id of the right form is looked up")

	for _, tc := range []struct {
		name  string
		token string
		env   account.Environment
	}{
		{"a token of the sandbox does not work in production", sandboxToken, account.Production},
		{"an unknown token is invalid", unknownToken, account.Sandbox},
		{"an empty token is invalid", "", account.Sandbox},
		{"a token without its prefix is invalid", strings.TrimPrefix(sandboxToken, account.AccessTokenPrefix), account.Sandbox},
		{"an API key is not a token", "smk_live_" + strings.Repeat("a", 43), account.Sandbox},
	} {
		_, err := b.svc.AuthenticateToken(ctx, tc.token, tc.env)
		require.ErrorIs(t, err, account.ErrInvalidCredentials, tc.name)
	}

	before := b.store.Lookups()
	_, err = b.svc.AuthenticateToken(ctx, "Bearer nonsense", account.Sandbox)
	require.ErrorIs(t, err, account.ErrInvalidCredentials)
	require.Equal(t, before, b.store.Lookups(), "a malformed token is refused without a query")
}

func TestIssueTokenNarrowsPermissions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	client, secret, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)

	for _, tc := range []struct {
		name      string
		requested []account.Permission
		want      []account.Permission
	}{
		{"nil asks for everything the client has", nil, account.AllPermissions},
		{"an empty list asks for everything too", []account.Permission{}, account.AllPermissions},
		{"one permission gives a token with only that one", []account.Permission{account.JobsRead}, []account.Permission{account.JobsRead}},
		{"duplicates are dropped", []account.Permission{account.LimitsRead, account.LimitsRead, account.JobsWrite}, []account.Permission{account.LimitsRead, account.JobsWrite}},
	} {
		token, rec, err := b.svc.IssueToken(ctx, client.ID, secret, account.Production, tc.requested)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, rec.Permissions, tc.name)
		got, err := b.svc.AuthenticateToken(ctx, token, account.Production)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got.Permissions, "%s: as stored", tc.name)
		for _, p := range account.AllPermissions {
			require.Equal(t, account.HasPermission(tc.want, p), account.HasPermission(got.Permissions, p), "%s: %s", tc.name, p)
		}
	}
}

func TestRevokedClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	client, secret, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	other, otherSecret, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	token, _, err := b.svc.IssueToken(ctx, client.ID, secret, account.Production, nil)
	require.NoError(t, err)
	otherToken, _, err := b.svc.IssueToken(ctx, other.ID, otherSecret, account.Production, nil)
	require.NoError(t, err)

	require.NoError(t, b.svc.RevokeClient(ctx, audit.Operator, uuid.Nil, client.ID))

	_, _, err = b.svc.IssueToken(ctx, client.ID, secret, account.Production, nil)
	require.ErrorIs(t, err, account.ErrInvalidCredentials, "a revoked client gets no token")
	_, err = b.svc.AuthenticateToken(ctx, token, account.Production)
	require.ErrorIs(t, err, account.ErrInvalidCredentials, "a revoked client's tokens stop working")
	_, err = b.svc.AuthenticateToken(ctx, otherToken, account.Production)
	require.NoError(t, err, "other clients are not affected")

	err = b.svc.RevokeClient(ctx, audit.Operator, uuid.Nil, client.ID)
	require.ErrorIs(t, err, account.ErrRevoked, "revoking twice says it was revoked already")
	err = b.svc.RevokeClient(ctx, audit.Operator, uuid.Nil, account.NewClientID())
	require.ErrorIs(t, err, account.ErrNotFound)
}

func TestCreateClientFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name      string
		accountID uuid.UUID
		perms     []account.Permission
		want      error
	}{
		{"an unknown account is not found", uuid.New(), nil, account.ErrNotFound},
		{"an unknown permission is invalid", b.account.ID, []account.Permission{"jobs:delete"}, account.ErrInvalid},
		{"an empty permission list is invalid", b.account.ID, []account.Permission{}, account.ErrInvalid},
	} {
		_, secret, err := b.svc.CreateClient(ctx, audit.Operator, tc.accountID, tc.perms)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.Empty(t, secret, tc.name)
	}
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	key, plain, err := b.svc.CreateAPIKey(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	require.Equal(t, account.AllScopes, key.Scopes, "nil scopes mean all")
	require.True(t, account.LooksLikeAPIKey(plain))
	require.True(t, strings.HasPrefix(plain, key.Prefix))
	require.Len(t, plain, len(account.APIKeyPrefix)+43, "256 bits of base62")

	narrow, narrowPlain, err := b.svc.CreateAPIKey(ctx, audit.Operator, b.account.ID, []account.Scope{account.ScopeJobsRead})
	require.NoError(t, err)
	got, err := b.svc.AuthenticateAPIKey(ctx, narrowPlain)
	require.NoError(t, err)
	require.Equal(t, narrow.ID, got.ID)
	require.Equal(t, b.account.ID, got.AccountID)
	require.True(t, account.HasScope(got.Scopes, account.ScopeJobsRead))
	require.False(t, account.HasScope(got.Scopes, account.ScopeJobsWrite))

	got, err = b.svc.AuthenticateAPIKey(ctx, plain)
	require.NoError(t, err)
	require.Equal(t, key.ID, got.ID)
	require.Equal(t, account.AllScopes, got.Scopes)

	require.NoError(t, b.svc.RevokeAPIKey(ctx, audit.Operator, uuid.Nil, key.ID))
	require.ErrorIs(t, b.svc.RevokeAPIKey(ctx, audit.Operator, uuid.Nil, key.ID), account.ErrRevoked, "revoking twice says it was revoked already")
	require.ErrorIs(t, b.svc.RevokeAPIKey(ctx, audit.Operator, uuid.Nil, uuid.New()), account.ErrNotFound)

	unknown, _, _ := account.NewAPIKey()
	for _, tc := range []struct {
		name      string
		key       string
		wantQuery bool
	}{
		{"a revoked key is invalid", plain, true},
		{"an unknown key is invalid", unknown, true},
		{"an empty key is refused without a query", "", false},
		{"a key without its prefix is refused without a query", strings.TrimPrefix(plain, account.APIKeyPrefix), false},
		{"a too short key is refused without a query", account.APIKeyPrefix + "abc", false},
		{"a key with a character outside base62 is refused without a query", plain[:len(plain)-1] + "-", false},
		{"a token is not a key", "sat_" + strings.Repeat("a", 43), false},
	} {
		before := b.store.Lookups()
		_, err := b.svc.AuthenticateAPIKey(ctx, tc.key)
		require.ErrorIs(t, err, account.ErrInvalidCredentials, tc.name)
		require.Equal(t, account.ErrInvalidCredentials.Error(), err.Error(), tc.name)
		require.Equal(t, tc.wantQuery, b.store.Lookups() > before, tc.name)
	}

	for _, tc := range []struct {
		name      string
		accountID uuid.UUID
		scopes    []account.Scope
		want      error
	}{
		{"an unknown account is not found", uuid.New(), nil, account.ErrNotFound},
		{"an unknown scope is invalid", b.account.ID, []account.Scope{"limits:read"}, account.ErrInvalid},
		{"an empty scope list is invalid", b.account.ID, []account.Scope{}, account.ErrInvalid},
	} {
		_, plain, err := b.svc.CreateAPIKey(ctx, audit.Operator, tc.accountID, tc.scopes)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.Empty(t, plain, tc.name)
	}
}

func TestSigningSecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	first, err := b.svc.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	again, err := b.svc.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, first, again, "showing does not change it")

	rotated, err := b.svc.RotateSigningSecret(ctx, &audit.Operator, b.account.ID)
	require.NoError(t, err)
	require.NotEqual(t, first, rotated)
	require.True(t, strings.HasPrefix(rotated, account.SigningSecretPrefix))
	shown, err := b.svc.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, rotated, shown, "the rotated secret is the one kept")

	sealed, err := b.store.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.NotContains(t, string(sealed), strings.TrimPrefix(rotated, account.SigningSecretPrefix), "stored encrypted")

	_, err = b.svc.SigningSecret(ctx, uuid.New())
	require.ErrorIs(t, err, account.ErrNotFound)
	_, err = b.svc.RotateSigningSecret(ctx, &audit.Operator, uuid.New())
	require.ErrorIs(t, err, account.ErrNotFound)

	otherKey := &account.Service{Store: b.store, Sealer: newBox(t), Now: b.clock.Now}
	_, err = otherKey.SigningSecret(ctx, b.account.ID)
	require.ErrorIs(t, err, secretbox.ErrOpen, "another secret key cannot decrypt it")
	require.ErrorContains(t, err, "secret key")
}

func TestSigningSecretIsCreatedForAnAccountWithoutOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	// An account whose creation stopped before its secret was stored.
	a, err := b.store.CreateAccount(ctx, account.Account{Name: "Interrupted"})
	require.NoError(t, err)
	secret, err := b.svc.SigningSecret(ctx, a.ID)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(secret, account.SigningSecretPrefix))
	again, err := b.svc.SigningSecret(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, secret, again)
}

func TestServiceWithoutSealer(t *testing.T) {
	t.Parallel()
	store := postgres.NewAccountStore(pgtest.New(t))
	svc := &account.Service{Store: store}
	_, err := svc.CreateAccount(t.Context(), "No key", "", "")
	require.Error(t, err)
	list, err := svc.ListAccounts(t.Context())
	require.NoError(t, err)
	require.Empty(t, list, "nothing is written without a sealer")
}

func TestParsers(t *testing.T) {
	t.Parallel()
	perms, err := account.ParsePermissions([]string{" jobs:read", "limits:read", "", "jobs:read"})
	require.NoError(t, err)
	require.Equal(t, []account.Permission{account.JobsRead, account.LimitsRead}, perms, "trimmed, empty entries and duplicates dropped")
	perms, err = account.ParsePermissions(nil)
	require.NoError(t, err)
	require.Nil(t, perms, "nothing given means all, as nil")
	_, err = account.ParsePermissions([]string{"jobs:read", "jobs:admin"})
	require.ErrorIs(t, err, account.ErrInvalid)
	require.ErrorContains(t, err, `"jobs:admin"`, "the error names the unknown permission")

	scopes, err := account.ParseScopes([]string{"webhooks:manage", "usage:read"})
	require.NoError(t, err)
	require.Equal(t, []account.Scope{account.ScopeWebhooksManage, account.ScopeUsageRead}, scopes)
	_, err = account.ParseScopes([]string{"limits:read"})
	require.ErrorIs(t, err, account.ErrInvalid)
	require.ErrorContains(t, err, `"limits:read"`, "a permission of the other API is not a scope")

	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"standard is a reconciliation plan", "standard", true},
		{"pro is a reconciliation plan", "pro", true},
		{"plan names are lower case", "Pro", false},
		{"free is not a reconciliation plan", "free", false},
		{"an empty plan is not a plan", "", false},
	} {
		p, err := account.ParseReconPlan(tc.in)
		if tc.ok {
			require.NoError(t, err, tc.name)
			require.Equal(t, account.ReconPlan(tc.in), p, tc.name)
		} else {
			require.ErrorIs(t, err, account.ErrInvalid, tc.name)
		}
	}
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"free is a parsing plan", "free", true},
		{"starter is a parsing plan", "starter", true},
		{"pro is a parsing plan", "pro", true},
		{"business is a parsing plan", "business", true},
		{"standard is not a parsing plan", "standard", false},
		{"an empty plan is not a plan", "", false},
	} {
		p, err := account.ParseParsePlan(tc.in)
		if tc.ok {
			require.NoError(t, err, tc.name)
			require.Equal(t, account.ParsePlan(tc.in), p, tc.name)
		} else {
			require.ErrorIs(t, err, account.ErrInvalid, tc.name)
		}
	}
}

// TestCredentialCache: with CacheTTL, a known token or key is looked up once per TTL, a
// revocation made elsewhere takes effect when the TTL runs out, expiry is still checked on every
// call, and unknown credentials are never remembered.
func TestCredentialCache(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	const ttl = 5 * time.Second
	cached := &account.Service{Store: b.store, Now: b.clock.Now, TokenTTL: 8 * time.Second, CacheTTL: ttl}
	// The other process: it revokes, and its cache is not the one under test.
	admin := b.svc

	key, plain, err := admin.CreateAPIKey(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	client, secret, err := admin.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	token, _, err := cached.IssueToken(ctx, client.ID, secret, account.Production, nil)
	require.NoError(t, err)
	unknown, _, _ := account.NewAPIKey()

	lookups := func(f func()) int {
		t.Helper()
		before := b.store.Lookups()
		f()
		return b.store.Lookups() - before
	}
	authKey := func() error { _, err := cached.AuthenticateAPIKey(ctx, plain); return err }
	authToken := func() error { _, err := cached.AuthenticateToken(ctx, token, account.Production); return err }

	require.Equal(t, 2, lookups(func() {
		for range 3 {
			require.NoError(t, authKey())
			require.NoError(t, authToken())
		}
	}), "three uses of each within the TTL: one lookup each")
	require.Equal(t, 2, lookups(func() {
		_, err := cached.AuthenticateAPIKey(ctx, unknown)
		require.ErrorIs(t, err, account.ErrInvalidCredentials)
		_, err = cached.AuthenticateAPIKey(ctx, unknown)
		require.ErrorIs(t, err, account.ErrInvalidCredentials)
	}), "an unknown key is looked up every time")
	_, err = cached.AuthenticateToken(ctx, token, account.Sandbox)
	require.ErrorIs(t, err, account.ErrInvalidCredentials, "a cached token is still bound to its environment")

	require.NoError(t, admin.RevokeAPIKey(ctx, audit.Operator, uuid.Nil, key.ID))
	require.NoError(t, admin.RevokeClient(ctx, audit.Operator, uuid.Nil, client.ID))
	b.clock.Advance(ttl - time.Second)
	require.NoError(t, authKey(), "within the TTL the process has not heard of the revocation")
	require.NoError(t, authToken())

	b.clock.Advance(time.Second)
	require.Equal(t, 2, lookups(func() {
		require.ErrorIs(t, authKey(), account.ErrInvalidCredentials, "once the TTL is over the revoked key is refused")
		require.ErrorIs(t, authToken(), account.ErrInvalidCredentials, "and so is the revoked client's token")
	}))
	require.Equal(t, 0, lookups(func() {
		require.ErrorIs(t, authKey(), account.ErrInvalidCredentials)
	}), "the revocation is cached too")

	// Expiry is checked against the clock, not the cache.
	client2, secret2, err := admin.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	token2, _, err := cached.IssueToken(ctx, client2.ID, secret2, account.Production, nil)
	require.NoError(t, err)
	b.clock.Advance(4 * time.Second)
	_, err = cached.AuthenticateToken(ctx, token2, account.Production)
	require.NoError(t, err)
	b.clock.Advance(4 * time.Second)
	require.Equal(t, 0, lookups(func() {
		_, err = cached.AuthenticateToken(ctx, token2, account.Production)
	}), "still cached")
	require.ErrorIs(t, err, account.ErrTokenExpired, "but expired: the token lived 8 s")

	uncached := &account.Service{Store: b.store, Now: b.clock.Now}
	_, plain3, err := admin.CreateAPIKey(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	require.Equal(t, 3, lookups(func() {
		for range 3 {
			_, err := uncached.AuthenticateAPIKey(ctx, plain3)
			require.NoError(t, err)
		}
	}), "without a CacheTTL every call looks up")
}

// TestRotateClientSecretWithOverlap: after a rotation the new secret works at once and the
// previous one until the overlap ends, so that an integration can switch without a gap; with no
// overlap the previous one stops at once. Revoked and other accounts' clients are not rotated.
func TestRotateClientSecretWithOverlap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	client, first, err := b.svc.CreateClient(ctx, audit.Operator, b.account.ID, nil)
	require.NoError(t, err)
	works := func(secret string) bool {
		_, _, err := b.svc.IssueToken(ctx, client.ID, secret, account.Production, nil)
		if err != nil {
			require.ErrorIs(t, err, account.ErrInvalidCredentials)
		}
		return err == nil
	}

	second, err := b.svc.RotateClientSecret(ctx, audit.Operator, b.account.ID, client.ID, time.Hour)
	require.NoError(t, err)
	require.NotEqual(t, first, second)
	require.True(t, works(second), "the new secret works at once")
	require.True(t, works(first), "the previous one during the overlap")
	got, err := b.store.Client(ctx, client.ID)
	require.NoError(t, err)
	require.True(t, got.SecretSince.Equal(b.clock.Now()))
	require.True(t, got.PreviousExpiresAt.Equal(b.clock.Now().Add(time.Hour)))

	b.clock.Advance(time.Hour)
	require.False(t, works(first), "not after it")
	require.True(t, works(second))

	third, err := b.svc.RotateClientSecret(ctx, audit.Operator, b.account.ID, client.ID, 0)
	require.NoError(t, err)
	require.False(t, works(second), "no overlap: the previous secret stops at once")
	require.True(t, works(third))

	other, err := b.svc.CreateAccount(ctx, "Other", "", "")
	require.NoError(t, err)
	_, err = b.svc.RotateClientSecret(ctx, audit.Operator, other.ID, client.ID, time.Hour)
	require.ErrorIs(t, err, account.ErrNotFound, "not through another account")
	_, err = b.svc.RotateClientSecret(ctx, audit.Operator, b.account.ID, client.ID, account.MaxRotationOverlap+time.Hour)
	require.ErrorIs(t, err, account.ErrInvalid)
	require.NoError(t, b.svc.RevokeClient(ctx, audit.Operator, b.account.ID, client.ID))
	_, err = b.svc.RotateClientSecret(ctx, audit.Operator, b.account.ID, client.ID, time.Hour)
	require.ErrorIs(t, err, account.ErrRevoked)
	require.True(t, works(third) == false, "revoked")
}
