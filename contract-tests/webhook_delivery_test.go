package contracttests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// hookReceiver is a webhook endpoint on loopback that records every request by delivery id and
// answers as respond says for the attempt-th request of that delivery (1 for the first).
type hookReceiver struct {
	*httptest.Server
	respond func(attempt int, w http.ResponseWriter)

	mu   sync.Mutex
	byID map[string][]hookRequest
	log  []hookRequest // every request, in the order of arrival
}

type hookRequest struct {
	at     time.Time
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, respond func(attempt int, w http.ResponseWriter)) *hookReceiver {
	t.Helper()
	r := &hookReceiver{respond: respond, byID: map[string][]hookRequest{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id := req.Header.Get("X-Service-Delivery-Id")
		r.mu.Lock()
		got := hookRequest{at: time.Now(), header: req.Header.Clone(), body: body}
		r.byID[id] = append(r.byID[id], got)
		r.log = append(r.log, got)
		attempt := len(r.byID[id])
		r.mu.Unlock()
		r.respond(attempt, w)
	}))
	t.Cleanup(r.Close)
	return r
}

// answer responds with status to every request.
func answer(status int) func(int, http.ResponseWriter) {
	return func(_ int, w http.ResponseWriter) { w.WriteHeader(status) }
}

// received returns a copy of the requests received, in the order they arrived.
func (r *hookReceiver) received() []hookRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookRequest(nil), r.log...)
}

// deliveries returns a copy of the requests received, by delivery id.
func (r *hookReceiver) deliveries() map[string][]hookRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]hookRequest, len(r.byID))
	for id, reqs := range r.byID {
		out[id] = append([]hookRequest(nil), reqs...)
	}
	return out
}

// waitFor polls until the receiver has seen n delivery ids, each at least attempts times.
func (r *hookReceiver) waitFor(t *testing.T, n, attempts int, timeout time.Duration) map[string][]hookRequest {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := r.deliveries()
		done := 0
		for _, reqs := range got {
			if len(reqs) >= attempts {
				done++
			}
		}
		if done >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the receiver has %d of %d deliveries with %d attempts", timeout, done, n, attempts)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// deliveredEvent is a delivery body.
type deliveredEvent struct {
	Event     string         `json:"event"`
	Data      map[string]any `json:"data"`
	Timestamp time.Time      `json:"timestamp"`
}

// requireSigned checks that a request carries both signatures of secret over its body, signed
// within a minute of its arrival, and that its two delivery id headers agree, and returns the
// body.
func requireSigned(t *testing.T, secret, id string, req hookRequest) deliveredEvent {
	t.Helper()
	_, err := parseclient.VerifyWebhookAt(secret, req.header, req.body, time.Minute, req.at)
	require.NoError(t, err, "delivery %s is signed", id)
	require.Equal(t, id, req.header.Get("webhook-id"), "webhook-id is the delivery id")
	require.Equal(t, "application/json", req.header.Get("Content-Type"))
	var ev deliveredEvent
	require.NoError(t, json.Unmarshal(req.body, &ev))
	return ev
}

// deliveriesOf reads every page of an endpoint's deliveries, limit at a time, waiting out the
// account's rate limit (Retry-After) as a client should: polling a thousand jobs' deliveries
// reads ten or twenty pages a time, and can spend a minute's requests in seconds.
func (c webhookCaller) deliveriesOf(t *testing.T, id uuid.UUID, limit int) []parseclient.WebhookDelivery {
	t.Helper()
	var all []parseclient.WebhookDelivery
	params := &parseclient.ListWebhookDeliveriesParams{Limit: &limit}
	for {
		r, err := c.pc.ListWebhookDeliveriesWithResponse(context.Background(), id, params, bearer(c.key))
		require.NoError(t, err)
		if r.StatusCode() == http.StatusTooManyRequests {
			wait, ok := retryAfter(r.HTTPResponse.Header)
			require.True(t, ok, "a 429 has Retry-After")
			time.Sleep(wait)
			continue
		}
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		require.Equal(t, id, r.JSON200.Data.WebhookId)
		all = append(all, r.JSON200.Data.Deliveries...)
		if r.JSON200.Data.NextCursor == nil {
			require.LessOrEqual(t, len(r.JSON200.Data.Deliveries), limit)
			return all
		}
		require.Len(t, r.JSON200.Data.Deliveries, limit, "a page with a next cursor is full")
		params.Cursor = r.JSON200.Data.NextCursor
	}
}

// settledDeliveries polls an endpoint's deliveries until n are listed and none is pending.
func (c webhookCaller) settledDeliveries(t *testing.T, id uuid.UUID, n int, timeout time.Duration) []parseclient.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		all := c.deliveriesOf(t, id, 100)
		pending := 0
		for _, d := range all {
			if d.Status == parseclient.WebhookDeliveryStatusPending {
				pending++
			}
		}
		if len(all) >= n && pending == 0 {
			require.Len(t, all, n)
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %d deliveries listed (want %d), %d pending", timeout, len(all), n, pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestEveryJobEventArrivesSignedAndIsRecorded uploads a statement that completes, one that ends
// in review and one that fails: the endpoint (subscribed to everything) receives job.created
// for each and job.completed, job.review and job.failed, every delivery signed both ways and
// carrying the job's fields; the delivery list shows each one succeeded at the first attempt.
// usage.threshold is checked by TestParseMonthlyJobLimit, where a plan's limit is reached.
func TestEveryJobEventArrivesSignedAndIsRecorded(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "A")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	wc := webhookCaller{pc: pc.pc, key: ten.APIKey}
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	created := wc.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/hooks"})
	require.Equal(t, http.StatusCreated, created.StatusCode(), string(created.Body))
	secret, endpoint := created.JSON201.Data.SigningSecret, created.JSON201.Data.Id

	jobs := map[string]parseclient.Job{}
	for _, f := range []struct {
		name    string
		content []byte
		want    parseclient.JobStatus
	}{
		{"first.csv", simpleCSV(3), parseclient.JobStatusCompleted},
		{"second.sta", unbalancedMT940(), parseclient.JobStatusReview},
		{"third.xml", truncatedCAMT053(t), parseclient.JobStatusFailed},
	} {
		j := pc.wait(t, pc.create(t, f.name, f.content).JobId)
		require.Equal(t, f.want, j.Status, f.name)
		jobs[j.JobId.String()] = j
	}

	got := rcv.waitFor(t, 6, 1, 30*time.Second)
	require.Len(t, got, 6, "three job.created and one final event per job, nothing else")
	seen := map[string]bool{}
	for id, reqs := range got {
		require.Len(t, reqs, 1, "delivery %s succeeded at once and was not repeated", id)
		ev := requireSigned(t, secret, id, reqs[0])
		j, ok := jobs[fmt.Sprint(ev.Data["job_id"])]
		require.True(t, ok, "the event names one of the jobs: %s", reqs[0].body)
		wantStatus := string(j.Status)
		if ev.Event == "job.created" {
			wantStatus = "queued"
		} else {
			require.Equal(t, "job."+map[parseclient.JobStatus]string{parseclient.JobStatusCompleted: "completed",
				parseclient.JobStatusReview: "review", parseclient.JobStatusFailed: "failed"}[j.Status], ev.Event)
			require.EqualValues(t, j.TransactionsCount, ev.Data["transactions_count"])
			if j.BankName != nil {
				require.Equal(t, *j.BankName, ev.Data["bank_name"])
			}
		}
		require.Equal(t, wantStatus, ev.Data["status"])
		require.Equal(t, j.CreatedAt.UTC().Format(time.RFC3339Nano), ev.Data["created_at"], "created_at is the job's, in UTC")
		require.WithinDuration(t, time.Now(), ev.Timestamp, time.Minute)
		seen[ev.Event+" "+j.JobId.String()] = true
	}
	require.Len(t, seen, 6, "no event twice")

	list := wc.settledDeliveries(t, endpoint, 6, 10*time.Second)
	for _, d := range list {
		reqs, ok := got[d.Id.String()]
		require.True(t, ok, "listed delivery %s is one the receiver saw", d.Id)
		var body deliveredEvent
		require.NoError(t, json.Unmarshal(reqs[0].body, &body))
		require.Equal(t, body.Event, string(d.Event))
		require.Equal(t, parseclient.WebhookDeliveryStatusSucceeded, d.Status)
		require.Nil(t, d.StatusReason)
		require.Nil(t, d.NextAttemptAt)
		require.NotNil(t, d.CompletedAt)
		require.Equal(t, 1, d.AttemptsCount)
		require.Len(t, d.Attempts, 1)
		a := d.Attempts[0]
		require.True(t, a.Success)
		require.Equal(t, http.StatusNoContent, *a.StatusCode)
		require.Nil(t, a.Error)
	}
	for i := 1; i < len(list); i++ {
		require.False(t, list[i].CreatedAt.After(list[i-1].CreatedAt), "newest first")
	}
	require.Len(t, wc.deliveriesOf(t, endpoint, 4), 6, "pages of 4 and 2 give the same six")

	t.Run("another account's endpoint, an unknown one and a foreign cursor are refused", func(t *testing.T) {
		other := s.newTenant(t, "B")
		ctx := context.Background()
		r, err := pc.pc.ListWebhookDeliveriesWithResponse(ctx, endpoint, nil, bearer(other.APIKey))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, r.StatusCode(), string(r.Body))
		r, err = pc.pc.ListWebhookDeliveriesWithResponse(ctx, uuid.New(), nil, bearer(ten.APIKey))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, r.StatusCode(), string(r.Body))
		jobsPage, err := pc.pc.ListJobsWithResponse(ctx, &parseclient.ListJobsParams{Limit: ptrTo(1)}, bearer(ten.APIKey))
		require.NoError(t, err)
		require.NotNil(t, jobsPage.JSON200.Data.NextCursor)
		r, err = pc.pc.ListWebhookDeliveriesWithResponse(ctx, endpoint,
			&parseclient.ListWebhookDeliveriesParams{Cursor: jobsPage.JSON200.Data.NextCursor}, bearer(ten.APIKey))
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
		require.Equal(t, parseclient.ErrorCodeInvalidRequest, r.JSON400.Error)
	})
}

// TestAFailingEndpointGetsTheSameDeliveryUntilItSucceeds: a receiver that answers 503 with
// Retry-After: 2, then 500, then 204 gets one delivery three times with the same id and body,
// each freshly signed; the second attempt waits for Retry-After although the (scaled) schedule
// says 1 s; the delivery list shows the three attempts.
func TestAFailingEndpointGetsTheSameDeliveryUntilItSucceeds(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*", "STATEMENTD_WEBHOOK_RETRY_SCHEDULE=1s,2s,3s")
	ten := s.newTenant(t, "A")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	wc := webhookCaller{pc: pc.pc, key: ten.APIKey}
	rcv := newHookReceiver(t, func(attempt int, w http.ResponseWriter) {
		switch attempt {
		case 1:
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusInternalServerError)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	events := []parseclient.WebhookEventType{"job.completed"}
	created := wc.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL, Events: &events})
	require.Equal(t, http.StatusCreated, created.StatusCode(), string(created.Body))
	secret, endpoint := created.JSON201.Data.SigningSecret, created.JSON201.Data.Id

	j := pc.wait(t, pc.create(t, "one.csv", simpleCSV(2)).JobId)
	got := rcv.waitFor(t, 1, 3, 30*time.Second)
	require.Len(t, got, 1, "one event, one delivery id")
	for id, reqs := range got {
		require.Len(t, reqs, 3)
		for i, r := range reqs {
			ev := requireSigned(t, secret, id, r)
			require.Equal(t, "job.completed", ev.Event, "attempt %d", i+1)
			require.Equal(t, j.JobId.String(), ev.Data["job_id"])
			require.Equal(t, reqs[0].body, r.body, "every attempt sends the same bytes")
		}
		require.GreaterOrEqual(t, reqs[1].at.Sub(reqs[0].at), 2*time.Second, "Retry-After: 2 beats the 1 s offset")
	}

	list := wc.settledDeliveries(t, endpoint, 1, 10*time.Second)
	d := list[0]
	require.Equal(t, parseclient.WebhookDeliveryStatusSucceeded, d.Status)
	require.Equal(t, 3, d.AttemptsCount)
	require.Len(t, d.Attempts, 3)
	for i, want := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError, http.StatusOK} {
		a := d.Attempts[i]
		require.Equal(t, i+1, a.Attempt)
		require.Equal(t, want, *a.StatusCode)
		require.Equal(t, want == http.StatusOK, a.Success)
		require.Equal(t, want != http.StatusOK, a.Error != nil, "a failed attempt says why")
	}
	require.True(t, wc.list(t)[0].Enabled, "a success keeps the endpoint enabled")
}

// TestAnEndpointAnswering410IsDisabled: the first 410 disables the endpoint, with a reason; the
// delivery is failed, and a later event creates no delivery for it.
func TestAnEndpointAnswering410IsDisabled(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "A")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	wc := webhookCaller{pc: pc.pc, key: ten.APIKey}
	rcv := newHookReceiver(t, answer(http.StatusGone))
	events := []parseclient.WebhookEventType{"job.completed"}
	created := wc.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL, Events: &events})
	require.Equal(t, http.StatusCreated, created.StatusCode(), string(created.Body))
	endpoint := created.JSON201.Data.Id

	pc.wait(t, pc.create(t, "one.csv", simpleCSV(1)).JobId)
	list := wc.settledDeliveries(t, endpoint, 1, 20*time.Second)
	require.Equal(t, parseclient.WebhookDeliveryStatusFailed, list[0].Status)
	require.Equal(t, "The endpoint answered 410 Gone.", *list[0].StatusReason)
	require.Equal(t, http.StatusGone, *list[0].Attempts[0].StatusCode)

	e := wc.list(t)[0]
	require.False(t, e.Enabled)
	require.NotNil(t, e.DisabledReason)
	require.Contains(t, *e.DisabledReason, "410 Gone")

	pc.wait(t, pc.create(t, "two.csv", simpleCSV(1)).JobId)
	require.Len(t, wc.deliveriesOf(t, endpoint, 20), 1, "a disabled endpoint gets no new deliveries")
	require.Len(t, rcv.deliveries(), 1)
}
