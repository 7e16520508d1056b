package contracttests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// newReceiver is a webhook endpoint on loopback that answers every request with status.
func newReceiver(t *testing.T, status int) *hookReceiver {
	t.Helper()
	return newHookReceiver(t, answer(status))
}

// webhookCaller calls the webhook operations with one API key.
type webhookCaller struct {
	pc  *parseclient.ClientWithResponses
	key string
}

func (c webhookCaller) create(t *testing.T, idemKey string, body parseclient.CreateWebhookJSONRequestBody) *parseclient.CreateWebhookResponse {
	t.Helper()
	var params *parseclient.CreateWebhookParams
	if idemKey != "" {
		params = &parseclient.CreateWebhookParams{IdempotencyKey: &idemKey}
	}
	r, err := c.pc.CreateWebhookWithResponse(context.Background(), params, body, bearer(c.key))
	require.NoError(t, err)
	return r
}

func (c webhookCaller) list(t *testing.T) []parseclient.WebhookEndpoint {
	t.Helper()
	r, err := c.pc.ListWebhooksWithResponse(context.Background(), bearer(c.key))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return r.JSON200.Data.Webhooks
}

func (c webhookCaller) test(t *testing.T, body parseclient.TestWebhookJSONRequestBody) *parseclient.TestWebhookResponse {
	t.Helper()
	r, err := c.pc.TestWebhookWithResponse(context.Background(), body, bearer(c.key))
	require.NoError(t, err)
	return r
}

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "A")
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	other := webhookCaller{pc: c.pc, key: s.newTenant(t, "B").APIKey}

	t.Run("an endpoint is registered with every event by default, listed oldest first and deleted", func(t *testing.T) {
		first := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/first"})
		require.Equal(t, http.StatusCreated, first.StatusCode(), string(first.Body))
		created := first.JSON201.Data
		require.Equal(t, "/api/v1/webhooks/"+created.Id.String(), first.HTTPResponse.Header.Get("Location"))
		require.True(t, strings.HasPrefix(created.SigningSecret, "whsec_"))
		require.Equal(t, []parseclient.WebhookEventType{"job.created", "job.completed", "job.failed", "job.review", "usage.threshold"}, created.Events)
		require.Nil(t, created.Description)
		require.True(t, created.Enabled)
		require.Nil(t, created.DisabledReason)

		note := "ERP import"
		second := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/second",
			Events: &[]parseclient.WebhookEventType{"job.completed", "job.failed"}, Description: &note})
		require.Equal(t, http.StatusCreated, second.StatusCode(), string(second.Body))
		require.Equal(t, created.SigningSecret, second.JSON201.Data.SigningSecret, "one signing secret per account")

		listed := c.list(t)
		require.GreaterOrEqual(t, len(listed), 2)
		ids := map[uuid.UUID]parseclient.WebhookEndpoint{}
		for _, e := range listed {
			ids[e.Id] = e
		}
		require.Equal(t, []parseclient.WebhookEventType{"job.completed", "job.failed"}, ids[second.JSON201.Data.Id].Events)
		require.Equal(t, &note, ids[second.JSON201.Data.Id].Description)
		require.Empty(t, other.list(t), "another account sees none of them")

		notYours, err := other.pc.DeleteWebhookWithResponse(context.Background(), created.Id, bearer(other.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, notYours.StatusCode())

		del, err := c.pc.DeleteWebhookWithResponse(context.Background(), created.Id, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, del.StatusCode(), string(del.Body))
		require.Equal(t, created.Id, del.JSON200.Data.Id)
		again, err := c.pc.DeleteWebhookWithResponse(context.Background(), created.Id, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, again.StatusCode(), "a deleted endpoint is gone")
		for _, e := range c.list(t) {
			require.NotEqual(t, created.Id, e.Id)
		}
	})

	t.Run("a repeated registration with one Idempotency-Key replays the first answer", func(t *testing.T) {
		body := parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/idem"}
		first := c.create(t, "hook-key-1", body)
		require.Equal(t, http.StatusCreated, first.StatusCode(), string(first.Body))
		again := c.create(t, "hook-key-1", body)
		require.Equal(t, http.StatusCreated, again.StatusCode(), string(again.Body))
		require.Equal(t, "true", again.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.Equal(t, first.JSON201.Data, again.JSON201.Data)
		body.Url = "http://127.0.0.1:9/other"
		reused := c.create(t, "hook-key-1", body)
		require.Equal(t, http.StatusUnprocessableEntity, reused.StatusCode(), string(reused.Body))
	})

	t.Run("unacceptable URLs are refused with 400", func(t *testing.T) {
		for _, url := range []string{
			"http://hooks.example.com/plain-http", // http only for allowed hosts
			"https://10.0.0.1/private",
			"https://169.254.169.254/latest/meta-data",
			"https://user:secret@127.0.0.1/creds",
			"ftp://127.0.0.1/file",
			"https:///no-host",
		} {
			r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: url})
			require.Equal(t, http.StatusBadRequest, r.StatusCode(), "%s: %s", url, r.Body)
			require.Equal(t, parseclient.ErrorCodeInvalidRequest, r.JSON400.Error, url)
		}
	})
}

func TestWebhookURLsOnLoopbackAreRefusedUnlessAllowed(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: s.newTenant(t, "A").APIKey}
	for _, url := range []string{"http://127.0.0.1:9/hook", "https://127.0.0.1/hook", "https://localhost/hook", "https://[::1]/hook", "https://[::ffff:127.0.0.1]/hook"} {
		r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: url})
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), "%s: %s", url, r.Body)
	}
}

func TestAnAccountHasAtMostTwentyEndpoints(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: s.newTenant(t, "A").APIKey}
	for i := range 20 {
		r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: fmt.Sprintf("http://127.0.0.1:9/%d", i)})
		require.Equal(t, http.StatusCreated, r.StatusCode(), string(r.Body))
	}
	r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/21"})
	require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
	require.Contains(t, r.JSON400.Detail, "20")
}

func TestWebhookTestSendsASignedSampleEvent(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "A")
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}

	empty := c.test(t, parseclient.TestWebhookJSONRequestBody{})
	require.Equal(t, http.StatusOK, empty.StatusCode(), string(empty.Body))
	require.Empty(t, empty.JSON200.Data.Deliveries, "no endpoints, no deliveries")

	ok := newReceiver(t, http.StatusNoContent)
	failing := newReceiver(t, http.StatusInternalServerError)
	good := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: ok.URL + "/hook"})
	require.Equal(t, http.StatusCreated, good.StatusCode(), string(good.Body))
	bad := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: failing.URL + "/hook"})
	require.Equal(t, http.StatusCreated, bad.StatusCode(), string(bad.Body))
	secret := good.JSON201.Data.SigningSecret

	event := parseclient.WebhookEventType("job.review")
	res := c.test(t, parseclient.TestWebhookJSONRequestBody{Event: &event})
	require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
	require.Equal(t, event, res.JSON200.Data.Event)
	require.Len(t, res.JSON200.Data.Deliveries, 2, "every enabled endpoint")
	outcomes := map[uuid.UUID]parseclient.WebhookTestDelivery{}
	for _, d := range res.JSON200.Data.Deliveries {
		outcomes[d.WebhookId] = d
	}
	g := outcomes[good.JSON201.Data.Id]
	require.True(t, g.Success)
	require.Equal(t, http.StatusNoContent, *g.StatusCode)
	require.Nil(t, g.Error)
	b := outcomes[bad.JSON201.Data.Id]
	require.False(t, b.Success)
	require.Equal(t, http.StatusInternalServerError, *b.StatusCode)
	require.NotNil(t, b.Error)

	got := ok.received()
	require.Len(t, got, 1, "a test delivery is attempted once")
	sample, err := parseclient.VerifyWebhook(secret, got[0].header, got[0].body, time.Minute)
	require.NoError(t, err, "signed like a real delivery")
	require.Equal(t, event, sample.Event, "VerifyWebhook returns the event it verified")
	require.Equal(t, g.DeliveryId.String(), got[0].header.Get("X-Service-Delivery-Id"))
	require.Equal(t, g.DeliveryId.String(), got[0].header.Get("webhook-id"))
	var delivered struct {
		Event     string          `json:"event"`
		Data      json.RawMessage `json:"data"`
		Timestamp time.Time       `json:"timestamp"`
	}
	require.NoError(t, json.Unmarshal(got[0].body, &delivered))
	require.Equal(t, "job.review", delivered.Event)
	require.Contains(t, string(delivered.Data), `"status":"review"`)
	require.Len(t, failing.received(), 1, "and not retried")

	one := c.test(t, parseclient.TestWebhookJSONRequestBody{WebhookId: &good.JSON201.Data.Id})
	require.Equal(t, http.StatusOK, one.StatusCode(), string(one.Body))
	require.Len(t, one.JSON200.Data.Deliveries, 1)
	require.Equal(t, parseclient.WebhookEventType("job.completed"), one.JSON200.Data.Event, "job.completed by default")
	require.Len(t, ok.received(), 2)

	unknown := uuid.New()
	missing := c.test(t, parseclient.TestWebhookJSONRequestBody{WebhookId: &unknown})
	require.Equal(t, http.StatusNotFound, missing.StatusCode(), string(missing.Body))
}

// TestWebhookTestTakesAnEmptyBody (issue 27's spec fix): both fields of POST /webhooks/test are
// optional, and so is its body: a POST without one, or with {}, sends a job.completed test
// event to every enabled endpoint, answered as the spec says.
func TestWebhookTestTakesAnEmptyBody(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "Empty test")
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	created := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/hook"})
	require.Equal(t, http.StatusCreated, created.StatusCode(), string(created.Body))

	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"no body at all", "", ""},
		{"an empty JSON object", "application/json", "{}"},
	} {
		resp, err := c.pc.TestWebhookWithBodyWithResponse(t.Context(), tc.contentType, strings.NewReader(tc.body), bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode(), "%s: %s", tc.name, resp.Body)
		require.Len(t, resp.JSON200.Data.Deliveries, 1, tc.name)
		require.True(t, resp.JSON200.Data.Deliveries[0].Success, tc.name)
		require.Equal(t, parseclient.WebhookEventTypeJobCompleted, resp.JSON200.Data.Event, tc.name)
	}
	require.Len(t, rcv.waitFor(t, 2, 1, 10*time.Second), 2, "both tests were delivered")
}
