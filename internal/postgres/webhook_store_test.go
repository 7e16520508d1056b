package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/webhook"
)

func setupWebhookStore(t *testing.T) (*postgres.WebhookStore, account.Account, time.Time) {
	t.Helper()
	db := pgtest.New(t)
	acc, err := postgres.NewAccountStore(db).CreateAccount(t.Context(), account.Account{Name: "Acme"})
	require.NoError(t, err)
	return postgres.NewWebhookStore(db), acc, time.Date(2024, 3, 15, 10, 30, 0, 123456000, time.UTC)
}

func newEndpoint(acc account.Account, url string, at time.Time) webhook.Endpoint {
	return webhook.Endpoint{ID: uuid.New(), AccountID: acc.ID, URL: url, Enabled: true, CreatedAt: at}
}

func TestWebhookStoreKeepsEndpoints(t *testing.T) {
	t.Parallel()
	store, acc, now := setupWebhookStore(t)
	ctx := t.Context()

	all := newEndpoint(acc, "https://hooks.example/all", now)
	some := newEndpoint(acc, "https://hooks.example/some", now.Add(time.Second))
	some.Events = []webhook.EventType{webhook.EventJobCompleted, webhook.EventJobFailed}
	some.Description = "ERP \x00 import"
	require.NoError(t, store.CreateEndpoint(ctx, some, webhook.MaxEndpoints, idempotency.Key{}))
	require.NoError(t, store.CreateEndpoint(ctx, all, webhook.MaxEndpoints, idempotency.Key{}))

	got, err := store.Endpoints(ctx, acc.ID)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, all.ID, got[0].ID, "oldest first")
	require.Nil(t, got[0].Events, "no list: every event type")
	require.Equal(t, webhook.AllEvents, got[0].EventTypes())
	require.Equal(t, some.Events, got[1].Events)
	require.Equal(t, "ERP \uFFFD import", got[1].Description, "text is made storable")
	require.True(t, got[1].CreatedAt.Equal(some.CreatedAt))

	_, err = store.Endpoint(ctx, uuid.New(), all.ID, false)
	require.ErrorIs(t, err, webhook.ErrNotFound, "another account's endpoint")
	require.ErrorIs(t, store.DeleteEndpoint(ctx, uuid.New(), all.ID, now), webhook.ErrNotFound)

	require.NoError(t, store.DeleteEndpoint(ctx, acc.ID, all.ID, now))
	require.ErrorIs(t, store.DeleteEndpoint(ctx, acc.ID, all.ID, now), webhook.ErrNotFound, "deleted once")
	_, err = store.Endpoint(ctx, acc.ID, all.ID, false)
	require.ErrorIs(t, err, webhook.ErrNotFound)
	kept, err := store.Endpoint(ctx, acc.ID, all.ID, true)
	require.NoError(t, err, "a deleted endpoint can still be replayed")
	require.Equal(t, all.URL, kept.URL)
	got, err = store.Endpoints(ctx, acc.ID)
	require.NoError(t, err)
	require.Len(t, got, 1)
}

func TestWebhookStoreRecordsTheIdempotencyKeyWithTheEndpoint(t *testing.T) {
	t.Parallel()
	store, acc, now := setupWebhookStore(t)
	ctx := t.Context()
	k := idempotency.Key{AccountID: acc.ID, Scope: webhook.IdempotencyScope, Key: "k-1", Hash: []byte("request")}
	_, claimed, err := store.ClaimKey(ctx, k, now)
	require.NoError(t, err)
	require.True(t, claimed)
	e := newEndpoint(acc, "https://hooks.example/a", now)
	k.ResourceID = e.ID
	require.NoError(t, store.CreateEndpoint(ctx, e, webhook.MaxEndpoints, k))
	rec, claimed, err := store.ClaimKey(ctx, k, now.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, claimed)
	require.True(t, rec.Done)
	require.Equal(t, e.ID, rec.ResourceID)
}

func TestWebhookStoreHoldsTheEndpointLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	store, acc, now := setupWebhookStore(t)
	const tries, max = 12, 5
	errs := make([]error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			errs[i] = store.CreateEndpoint(t.Context(), newEndpoint(acc, fmt.Sprintf("https://hooks.example/%d", i), now), max, idempotency.Key{})
		})
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		if err == nil {
			created++
			continue
		}
		require.ErrorIs(t, err, webhook.ErrTooManyEndpoints)
	}
	require.Equal(t, max, created)
	require.NoError(t, store.DeleteEndpoint(t.Context(), acc.ID, mustFirst(t, store, acc).ID, now))
	require.NoError(t, store.CreateEndpoint(t.Context(), newEndpoint(acc, "https://hooks.example/again", now), max, idempotency.Key{}),
		"a deleted endpoint frees its place")
}

func mustFirst(t *testing.T, store *postgres.WebhookStore, acc account.Account) webhook.Endpoint {
	t.Helper()
	all, err := store.Endpoints(t.Context(), acc.ID)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	return all[0]
}
