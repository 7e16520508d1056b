package postgres_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type storeBundle struct {
	db      *sqlx.DB
	store   *postgres.AccountStore
	account account.Account
	now     time.Time
}

func setupStore(t *testing.T) *storeBundle {
	t.Helper()
	db := pgtest.New(t)
	store := postgres.NewAccountStore(db)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	a, err := store.CreateAccount(t.Context(), account.Account{ID: uuid.New(), Name: "Acme", CreatedAt: now})
	require.NoError(t, err)
	return &storeBundle{db: db, store: store, account: a, now: now}
}

func (b *storeBundle) client(t *testing.T) account.Client {
	t.Helper()
	_, hash := account.NewClientSecret()
	c := account.Client{ID: account.NewClientID(), AccountID: b.account.ID, Permissions: account.AllPermissions, SecretHash: hash, CreatedAt: b.now}
	require.NoError(t, b.store.CreateClient(t.Context(), c, audit.Operator))
	return c
}

func TestAccounts(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	require.Equal(t, account.ReconStandard, b.account.ReconPlan, "the table's default plan")
	require.Equal(t, account.ParseFree, b.account.ParsePlan)
	require.True(t, b.account.CreatedAt.Equal(b.now))

	got, err := b.store.Account(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, b.account.ID, got.ID)
	require.Equal(t, "Acme", got.Name)

	generated, err := b.store.CreateAccount(ctx, account.Account{Name: "Beta", ReconPlan: account.ReconPro, ParsePlan: account.ParseStarter})
	require.NoError(t, err)
	require.NotEqual(t, uuid.Nil, generated.ID, "a zero ID is generated")
	require.False(t, generated.CreatedAt.IsZero(), "a zero time is now()")

	list, err := b.store.ListAccounts(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, b.account.ID, list[0].ID, "oldest first")

	_, err = b.store.Account(ctx, uuid.New())
	require.ErrorIs(t, err, account.ErrNotFound)

	for _, tc := range []struct {
		name string
		a    account.Account
		want error
	}{
		{"the same id twice is a conflict", account.Account{ID: b.account.ID, Name: "Again"}, account.ErrConflict},
		{"an unknown plan breaks the table's check", account.Account{Name: "X", ReconPlan: "gold"}, account.ErrInvalid},
		{"an empty name breaks the table's check", account.Account{Name: ""}, account.ErrInvalid},
	} {
		_, err := b.store.CreateAccount(ctx, tc.a)
		require.ErrorIs(t, err, tc.want, tc.name)
	}
}

func TestClients(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	c := b.client(t)

	got, err := b.store.Client(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, c.ID, got.ID)
	require.Equal(t, c.AccountID, got.AccountID)
	require.Equal(t, c.Permissions, got.Permissions)
	require.Equal(t, c.SecretHash, got.SecretHash)
	require.Nil(t, got.RevokedAt)

	_, err = b.store.Client(ctx, "cli_unknown")
	require.ErrorIs(t, err, account.ErrNotFound)

	_, hash := account.NewClientSecret()
	for _, tc := range []struct {
		name string
		c    account.Client
		want error
	}{
		{"an unknown account is not found", account.Client{ID: account.NewClientID(), AccountID: uuid.New(), Permissions: account.AllPermissions, SecretHash: hash}, account.ErrNotFound},
		{"the same client id twice is a conflict", account.Client{ID: c.ID, AccountID: b.account.ID, Permissions: account.AllPermissions, SecretHash: hash}, account.ErrConflict},
		{"an unknown permission breaks the table's check", account.Client{ID: account.NewClientID(), AccountID: b.account.ID, Permissions: []account.Permission{"jobs:delete"}, SecretHash: hash}, account.ErrInvalid},
		{"no permissions breaks the table's check", account.Client{ID: account.NewClientID(), AccountID: b.account.ID, SecretHash: hash}, account.ErrInvalid},
		{"a hash that is not SHA-256 breaks the table's check", account.Client{ID: account.NewClientID(), AccountID: b.account.ID, Permissions: account.AllPermissions, SecretHash: []byte("cs_plain")}, account.ErrInvalid},
		{"an id without the cli_ prefix breaks the table's check", account.Client{ID: "client-1234567890123456", AccountID: b.account.ID, Permissions: account.AllPermissions, SecretHash: hash}, account.ErrInvalid},
	} {
		require.ErrorIs(t, b.store.CreateClient(ctx, tc.c, audit.Operator), tc.want, tc.name)
	}

	revokedAt := b.now.Add(time.Hour)
	require.NoError(t, b.store.RevokeClient(ctx, uuid.Nil, c.ID, revokedAt, audit.Operator))
	require.ErrorIs(t, b.store.RevokeClient(ctx, uuid.Nil, c.ID, revokedAt.Add(time.Hour), audit.Operator), account.ErrRevoked)
	require.ErrorIs(t, b.store.RevokeClient(ctx, uuid.Nil, "cli_unknown", revokedAt, audit.Operator), account.ErrNotFound)
	got, err = b.store.Client(ctx, c.ID)
	require.NoError(t, err)
	require.NotNil(t, got.RevokedAt)
	require.True(t, got.RevokedAt.Equal(revokedAt), "a second revocation keeps the first time")
}

func TestAccessTokens(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	c := b.client(t)
	_, hash := account.NewAccessToken()
	tok := account.AccessToken{
		Hash: hash, ClientID: c.ID, AccountID: b.account.ID, Env: account.Sandbox,
		Permissions: []account.Permission{account.JobsRead}, IssuedAt: b.now, ExpiresAt: b.now.Add(time.Hour),
	}
	require.NoError(t, b.store.CreateAccessToken(ctx, tok))

	got, clientRevokedAt, err := b.store.AccessToken(ctx, hash)
	require.NoError(t, err)
	require.Nil(t, clientRevokedAt)
	require.Equal(t, tok.ClientID, got.ClientID)
	require.Equal(t, tok.AccountID, got.AccountID)
	require.Equal(t, tok.Env, got.Env)
	require.Equal(t, tok.Permissions, got.Permissions)
	require.True(t, got.ExpiresAt.Equal(tok.ExpiresAt))

	_, unknown := account.NewAccessToken()
	_, _, err = b.store.AccessToken(ctx, unknown)
	require.ErrorIs(t, err, account.ErrNotFound)

	require.ErrorIs(t, b.store.CreateAccessToken(ctx, tok), account.ErrConflict, "the same hash twice")
	bad := tok
	bad.Hash = unknown
	bad.Env = "staging"
	require.ErrorIs(t, b.store.CreateAccessToken(ctx, bad), account.ErrInvalid, "an unknown environment")
	bad = tok
	bad.Hash = unknown
	bad.ClientID = account.NewClientID()
	require.ErrorIs(t, b.store.CreateAccessToken(ctx, bad), account.ErrNotFound, "an unknown client")

	require.NoError(t, b.store.RevokeClient(ctx, uuid.Nil, c.ID, b.now.Add(time.Minute), audit.Operator))
	_, clientRevokedAt, err = b.store.AccessToken(ctx, hash)
	require.NoError(t, err)
	require.NotNil(t, clientRevokedAt, "the token comes with its client's revocation")

	n, err := b.store.DeleteExpiredAccessTokens(ctx, b.now.Add(30*time.Minute), 100)
	require.NoError(t, err)
	require.Zero(t, n, "an unexpired token is kept")
	n, err = b.store.DeleteExpiredAccessTokens(ctx, b.now.Add(2*time.Hour), 100)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	_, _, err = b.store.AccessToken(ctx, hash)
	require.ErrorIs(t, err, account.ErrNotFound)
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	_, hash, prefix := account.NewAPIKey()
	k := account.APIKey{ID: uuid.New(), AccountID: b.account.ID, Prefix: prefix, Hash: hash, Scopes: account.AllScopes, CreatedAt: b.now}
	require.NoError(t, b.store.CreateAPIKey(ctx, k, audit.Operator))

	got, err := b.store.APIKeyByHash(ctx, hash)
	require.NoError(t, err)
	require.Equal(t, k.ID, got.ID)
	require.Equal(t, k.Prefix, got.Prefix)
	require.Equal(t, k.Scopes, got.Scopes)
	require.Nil(t, got.RevokedAt)

	_, _, otherPrefix := account.NewAPIKey()
	for _, tc := range []struct {
		name string
		k    account.APIKey
		want error
	}{
		{"the same hash twice is a conflict", account.APIKey{AccountID: b.account.ID, Prefix: otherPrefix, Hash: hash, Scopes: account.AllScopes}, account.ErrConflict},
		{"an unknown account is not found", account.APIKey{AccountID: uuid.New(), Prefix: otherPrefix, Hash: account.Hash("x"), Scopes: account.AllScopes}, account.ErrNotFound},
		{"an unknown scope breaks the table's check", account.APIKey{AccountID: b.account.ID, Prefix: otherPrefix, Hash: account.Hash("y"), Scopes: []account.Scope{"limits:read"}}, account.ErrInvalid},
		{"a prefix longer than the display part breaks the table's check", account.APIKey{AccountID: b.account.ID, Prefix: otherPrefix + "abcdef", Hash: account.Hash("z"), Scopes: account.AllScopes}, account.ErrInvalid},
	} {
		require.ErrorIs(t, b.store.CreateAPIKey(ctx, tc.k, audit.Operator), tc.want, tc.name)
	}

	_, err = b.store.APIKeyByHash(ctx, account.Hash("unknown"))
	require.ErrorIs(t, err, account.ErrNotFound)

	require.NoError(t, b.store.RevokeAPIKey(ctx, uuid.Nil, k.ID, b.now.Add(time.Hour), audit.Operator))
	require.ErrorIs(t, b.store.RevokeAPIKey(ctx, uuid.Nil, k.ID, b.now.Add(2*time.Hour), audit.Operator), account.ErrRevoked)
	require.ErrorIs(t, b.store.RevokeAPIKey(ctx, uuid.Nil, uuid.New(), b.now, audit.Operator), account.ErrNotFound)
	got, err = b.store.APIKeyByHash(ctx, hash)
	require.NoError(t, err, "a revoked key is still found, so the caller can tell")
	require.NotNil(t, got.RevokedAt)
	require.True(t, got.RevokedAt.Equal(b.now.Add(time.Hour)))
}

func TestSigningSecrets(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	_, err := b.store.SigningSecret(ctx, b.account.ID)
	require.ErrorIs(t, err, account.ErrNotFound, "none yet")
	_, err = b.store.AnySigningSecret(ctx)
	require.ErrorIs(t, err, account.ErrNotFound, "none in the database")

	first := bytes.Repeat([]byte{1}, 60)
	require.NoError(t, b.store.SetSigningSecret(ctx, b.account.ID, first, b.now, nil))
	got, err := b.store.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, first, got)
	got, err = b.store.AnySigningSecret(ctx)
	require.NoError(t, err)
	require.Equal(t, first, got)

	second := bytes.Repeat([]byte{2}, 60)
	require.NoError(t, b.store.SetSigningSecret(ctx, b.account.ID, second, b.now.Add(time.Hour), nil))
	got, err = b.store.SigningSecret(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, second, got, "setting again replaces it")

	require.ErrorIs(t, b.store.SetSigningSecret(ctx, uuid.New(), first, b.now, nil), account.ErrNotFound, "an unknown account")
	require.ErrorIs(t, b.store.SetSigningSecret(ctx, b.account.ID, []byte("short"), b.now, nil), account.ErrInvalid, "too short to be sealed")
}

func TestDeletingAnAccountDeletesItsCredentials(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	c := b.client(t)
	_, hash := account.NewAccessToken()
	require.NoError(t, b.store.CreateAccessToken(ctx, account.AccessToken{
		Hash: hash, ClientID: c.ID, AccountID: b.account.ID, Env: account.Production,
		Permissions: account.AllPermissions, IssuedAt: b.now, ExpiresAt: b.now.Add(time.Hour),
	}))
	require.NoError(t, b.store.SetSigningSecret(ctx, b.account.ID, bytes.Repeat([]byte{1}, 60), b.now, nil))

	_, err := b.db.ExecContext(ctx, `DELETE FROM accounts WHERE id = $1`, b.account.ID)
	require.NoError(t, err)
	_, _, err = b.store.AccessToken(ctx, hash)
	require.ErrorIs(t, err, account.ErrNotFound)
	_, err = b.store.Client(ctx, c.ID)
	require.ErrorIs(t, err, account.ErrNotFound)
	_, err = b.store.SigningSecret(ctx, b.account.ID)
	require.ErrorIs(t, err, account.ErrNotFound)
}

// TestCredentialChangesAreAudited: creating and revoking clients and keys, and rotating the
// signing secret, each write their audit event in the same statement; a revocation through
// another account finds nothing and writes nothing; the lists show who created what and when it
// was last used.
func TestCredentialChangesAreAudited(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx := t.Context()
	other, err := b.store.CreateAccount(ctx, account.Account{ID: uuid.New(), Name: "Other"})
	require.NoError(t, err)
	alice := audit.Actor{Name: "alice@example.com", Address: "203.0.113.9"}

	_, hash := account.NewClientSecret()
	c := account.Client{ID: account.NewClientID(), AccountID: b.account.ID, Permissions: account.AllPermissions, SecretHash: hash,
		CreatedAt: b.now, CreatedBy: alice.Name}
	require.NoError(t, b.store.CreateClient(ctx, c, alice))
	_, keyHash, prefix := account.NewAPIKey()
	k := account.APIKey{ID: uuid.New(), AccountID: b.account.ID, Prefix: prefix, Hash: keyHash, Scopes: account.AllScopes,
		CreatedAt: b.now.Add(time.Minute)}
	require.NoError(t, b.store.CreateAPIKey(ctx, k, alice))

	require.ErrorIs(t, b.store.RevokeClient(ctx, other.ID, c.ID, b.now, alice), account.ErrNotFound, "not through another account")
	require.ErrorIs(t, b.store.RevokeAPIKey(ctx, other.ID, k.ID, b.now, alice), account.ErrNotFound)
	require.NoError(t, b.store.RevokeClient(ctx, b.account.ID, c.ID, b.now.Add(2*time.Minute), alice))
	require.NoError(t, b.store.RevokeAPIKey(ctx, b.account.ID, k.ID, b.now.Add(3*time.Minute), alice))
	require.ErrorIs(t, b.store.RevokeAPIKey(ctx, b.account.ID, k.ID, b.now.Add(4*time.Minute), alice), account.ErrRevoked,
		"a second revocation changes nothing and is not logged")
	require.NoError(t, b.store.SetSigningSecret(ctx, b.account.ID, bytes.Repeat([]byte{7}, 60), b.now.Add(5*time.Minute), &alice))
	// A failed change leaves no event: a client of an unknown account.
	c2 := c
	c2.ID, c2.AccountID = account.NewClientID(), uuid.New()
	require.ErrorIs(t, b.store.CreateClient(ctx, c2, alice), account.ErrNotFound)

	events, err := postgres.NewAuditStore(b.db).Events(ctx, b.account.ID, 0, 10)
	require.NoError(t, err)
	var got []string
	for _, e := range events {
		require.Equal(t, alice, e.Actor)
		got = append(got, e.Action+" "+e.Target)
	}
	require.Equal(t, []string{
		audit.SigningRotated + " ",
		audit.KeyRevoked + " " + prefix,
		audit.ClientRevoked + " " + c.ID,
		audit.KeyCreated + " " + prefix,
		audit.ClientCreated + " " + c.ID,
	}, got, "newest first")
	older, err := postgres.NewAuditStore(b.db).Events(ctx, b.account.ID, events[1].ID, 10)
	require.NoError(t, err)
	require.Len(t, older, 3, "paged by id")
	none, err := postgres.NewAuditStore(b.db).Events(ctx, other.ID, 0, 10)
	require.NoError(t, err)
	require.Empty(t, none, "nothing of another account")

	require.NoError(t, b.store.ClientUsed(ctx, c.ID, b.now.Add(10*time.Minute)))
	require.NoError(t, b.store.ClientUsed(ctx, c.ID, b.now.Add(10*time.Minute+30*time.Second)), "within the minute: kept")
	require.NoError(t, b.store.APIKeyUsed(ctx, k.ID, b.now.Add(12*time.Minute)))
	clients, err := b.store.Clients(ctx, b.account.ID)
	require.NoError(t, err)
	require.Len(t, clients, 1)
	require.Equal(t, alice.Name, clients[0].CreatedBy)
	require.NotNil(t, clients[0].RevokedAt)
	require.True(t, clients[0].LastUsedAt.Equal(b.now.Add(10*time.Minute)), "stored at most once a minute")
	keys, err := b.store.APIKeys(ctx, b.account.ID)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.Equal(t, alice.Name, keys[0].CreatedBy)
	require.True(t, keys[0].LastUsedAt.Equal(b.now.Add(12*time.Minute)))
	otherClients, err := b.store.Clients(ctx, other.ID)
	require.NoError(t, err)
	require.Empty(t, otherClients)
}
