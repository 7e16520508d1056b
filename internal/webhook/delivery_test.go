package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/webhook"
)

// deliveryNow is the fixed clock of the delivery tests; deliveryJitter postpones every retry by
// half of MaxJitter of its offset.
var (
	deliveryNow    = time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	deliveryJitter = 0.5
)

// due is when a retry at offset after first is due under deliveryJitter.
func due(first time.Time, offset time.Duration) time.Time {
	return first.Add(offset + time.Duration(float64(offset)*webhook.MaxJitter*deliveryJitter))
}

// finish is one FinishDelivery call.
type finish struct {
	id     uuid.UUID
	status webhook.DeliveryStatus
	reason string
	at     time.Time
}

// fakeDeliveries is an in-memory DeliveryStore holding one task and the deliveries to list. Deliver
// calls it from the test's goroutine only, and listings only read it.
type fakeDeliveries struct {
	task      webhook.Task
	recordErr error
	recorded  []webhook.Outcome
	finished  []finish
	list      []webhook.Delivery // newest first, CreatedAt distinct
}

func (f *fakeDeliveries) DeliveryTask(_ context.Context, id uuid.UUID) (webhook.Task, error) {
	if id != f.task.ID {
		return webhook.Task{}, webhook.ErrNotFound
	}
	return f.task, nil
}

func (f *fakeDeliveries) RecordAttempt(_ context.Context, o webhook.Outcome) error {
	if f.recordErr != nil {
		return f.recordErr
	}
	f.recorded = append(f.recorded, o)
	return nil
}

func (f *fakeDeliveries) FinishDelivery(_ context.Context, id uuid.UUID, status webhook.DeliveryStatus, reason string, at time.Time) error {
	f.finished = append(f.finished, finish{id: id, status: status, reason: reason, at: at})
	return nil
}

func (f *fakeDeliveries) Deliveries(_ context.Context, endpointID uuid.UUID, after *webhook.DeliveryMark, limit int) ([]webhook.Delivery, error) {
	out := []webhook.Delivery{}
	for _, d := range f.list {
		if d.EndpointID != endpointID || after != nil && !d.CreatedAt.Before(after.CreatedAt) {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, d)
	}
	return out, nil
}

// fakeEndpoints is the Store of ListDeliveries' endpoint check; other methods are not used.
type fakeEndpoints struct {
	webhook.Store
	endpoints []webhook.Endpoint
}

func (f fakeEndpoints) Endpoint(_ context.Context, accountID, id uuid.UUID, _ bool) (webhook.Endpoint, error) {
	for _, e := range f.endpoints {
		if e.ID == id && e.AccountID == accountID {
			return e, nil
		}
	}
	return webhook.Endpoint{}, webhook.ErrNotFound
}

type fakeSecrets string

func (s fakeSecrets) SigningSecret(context.Context, uuid.UUID) (string, error) { return string(s), nil }

// deliveryBundle is a Service delivering one pending task to a loopback receiver.
type deliveryBundle struct {
	svc    *webhook.Service
	store  *fakeDeliveries
	rcv    *receiver
	task   webhook.Task
	secret string
}

// storedBody is a delivery's body as stored, with bytes a re-encoding would change.
var storedBody = []byte("{\"event\":\"job.completed\",  \"data\":{\"bank_name\":\"Caf\u00e9 \\u00e9\"},\"timestamp\":\"2025-04-01T07:59:00Z\"}\n")

// setupDelivery starts a receiver answering with h and a Service whose store holds a first
// attempt of a delivery to it, changed by prepare when given.
func setupDelivery(t *testing.T, h http.HandlerFunc, prepare func(*webhook.Task)) deliveryBundle {
	t.Helper()
	rcv := newReceiver(t, h)
	accountID := uuid.New()
	ep := webhook.Endpoint{ID: uuid.New(), AccountID: accountID, URL: rcv.URL + "/hook", Enabled: true,
		CreatedAt: deliveryNow.Add(-48 * time.Hour)}
	task := webhook.Task{
		Delivery: webhook.Delivery{ID: uuid.New(), EndpointID: ep.ID, AccountID: accountID, Event: webhook.EventJobCompleted,
			Status: webhook.DeliveryPending, CreatedAt: deliveryNow.Add(-time.Minute)},
		Endpoint: ep, Body: storedBody,
	}
	if prepare != nil {
		prepare(&task)
	}
	store := &fakeDeliveries{task: task}
	secret := webhook.NewSecret()
	sender := webhook.NewSender(loopbackPolicy(t))
	sender.Timeout = 5 * time.Second
	svc := &webhook.Service{Store: fakeEndpoints{endpoints: []webhook.Endpoint{ep}}, Secrets: fakeSecrets(secret), Sender: sender,
		Deliveries: store, Jitter: func() float64 { return deliveryJitter }, Now: func() time.Time { return deliveryNow }}
	return deliveryBundle{svc: svc, store: store, rcv: rcv, task: task, secret: secret}
}

// answer is a handler answering status, with a Retry-After when retryAfter is not "".
func answer(status int, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
	}
}

func TestDeliverSendsTheStoredBodySignedAndRecordsTheSuccess(t *testing.T) {
	t.Parallel()
	type request struct {
		method string
		header http.Header
		body   []byte
	}
	got := make(chan request, 1)
	b := setupDelivery(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- request{method: r.Method, header: r.Header.Clone(), body: body}
		w.WriteHeader(http.StatusOK)
	}, nil)

	next, err := b.svc.Deliver(context.Background(), b.task.ID)

	require.NoError(t, err)
	require.True(t, next.IsZero(), "a succeeded delivery has no next attempt")
	require.EqualValues(t, 1, b.rcv.hits.Load())
	r := <-got
	require.Equal(t, http.MethodPost, r.method)
	require.Equal(t, storedBody, r.body, "the stored body bytes, unchanged")
	require.Equal(t, b.task.ID.String(), r.header.Get("X-Service-Delivery-Id"))
	require.Equal(t, b.task.ID.String(), r.header.Get("webhook-id"))
	ts := strconv.FormatInt(deliveryNow.Unix(), 10)
	require.Equal(t, ts, r.header.Get("X-Service-Timestamp"), "signed at the Service's clock")
	m := hmac.New(sha256.New, []byte(b.secret))
	m.Write([]byte(ts + "."))
	m.Write(storedBody)
	require.Equal(t, hex.EncodeToString(m.Sum(nil)), r.header.Get("X-Service-Signature"))
	_, err = parseclient.VerifyWebhookAt(b.secret, r.header, r.body, 0, deliveryNow)
	require.NoError(t, err)

	require.Empty(t, b.store.finished)
	require.Len(t, b.store.recorded, 1)
	o := b.store.recorded[0]
	require.Equal(t, b.task.ID, o.DeliveryID)
	require.Equal(t, b.task.Endpoint.ID, o.EndpointID)
	require.Equal(t, webhook.DeliverySucceeded, o.Status)
	require.Equal(t, deliveryNow, o.FirstAttemptAt, "the first attempt starts the schedule")
	require.Equal(t, 1, o.Attempt.Number)
	require.Equal(t, deliveryNow, o.Attempt.At)
	require.True(t, o.Attempt.Success)
	require.Equal(t, http.StatusOK, o.Attempt.StatusCode)
	require.Empty(t, o.Attempt.Error)
	require.Positive(t, o.Attempt.Duration)
}

func TestDeliverDecidesWhatComesNextAfterAnAttempt(t *testing.T) {
	t.Parallel()
	schedule := webhook.DefaultSchedule
	earlier := deliveryNow.Add(-10 * time.Minute)
	tests := []struct {
		name       string
		status     int
		retryAfter string
		prepare    func(*webhook.Task)
		wantStatus webhook.DeliveryStatus
		wantNext   time.Time
		// fromAnswer: wantNext counts from the answer (Retry-After), which came the attempt's
		// duration after deliveryNow.
		fromAnswer  bool
		wantReason  string // prefix
		wantDisable string // exact, "" for none
	}{
		{name: "a 2xx answer succeeds", status: http.StatusNoContent, wantStatus: webhook.DeliverySucceeded},
		{name: "a 500 on the first attempt is retried at the first offset plus jitter",
			status: 500, wantStatus: webhook.DeliveryPending, wantNext: due(deliveryNow, schedule[0])},
		{name: "a 500 on the third attempt counts the offset from the first attempt, not now",
			status: 500, prepare: func(t *webhook.Task) {
				t.AttemptsCount, t.FirstAttemptAt, t.Endpoint.FailingSince = 2, earlier, earlier
			}, wantStatus: webhook.DeliveryPending, wantNext: due(earlier, schedule[2])},
		{name: "a Retry-After later than the offset is honoured",
			status: 503, retryAfter: "120", wantStatus: webhook.DeliveryPending, wantNext: deliveryNow.Add(120 * time.Second), fromAnswer: true},
		{name: "a Retry-After sooner than the offset changes nothing",
			status: 503, retryAfter: "2", wantStatus: webhook.DeliveryPending, wantNext: due(deliveryNow, schedule[0])},
		{name: "a Retry-After of ten days is capped at a day",
			status: 503, retryAfter: "864000", wantStatus: webhook.DeliveryPending, wantNext: deliveryNow.Add(24 * time.Hour), fromAnswer: true},
		{name: "a Retry-After beyond any duration is capped at a day",
			status: 429, retryAfter: "99999999999999999999999", wantStatus: webhook.DeliveryPending, wantNext: deliveryNow.Add(24 * time.Hour), fromAnswer: true},
		{name: "a failure of the last scheduled attempt gives up",
			status: 500, prepare: func(t *webhook.Task) {
				t.AttemptsCount, t.FirstAttemptAt, t.Endpoint.FailingSince = len(schedule), deliveryNow.Add(-25*time.Hour), deliveryNow.Add(-25*time.Hour)
			}, wantStatus: webhook.DeliveryFailed, wantReason: "Given up after 10 attempts; the last one failed: Answered 500."},
		{name: "a failure of the second-to-last attempt is retried at the last offset",
			status: 500, prepare: func(t *webhook.Task) {
				t.AttemptsCount, t.FirstAttemptAt = len(schedule)-1, deliveryNow.Add(-21*time.Hour)
			}, wantStatus: webhook.DeliveryPending, wantNext: due(deliveryNow.Add(-21*time.Hour), schedule[len(schedule)-1])},
		{name: "a 410 fails the delivery and disables the endpoint",
			status: http.StatusGone, wantStatus: webhook.DeliveryFailed, wantReason: "The endpoint answered 410 Gone.",
			wantDisable: "The endpoint answered 410 Gone on 2025-04-01T08:00:00Z."},
		{name: "a failure of an endpoint failing for five days disables it",
			status: 500, prepare: func(t *webhook.Task) { t.Endpoint.FailingSince = deliveryNow.Add(-5 * 24 * time.Hour) },
			wantStatus: webhook.DeliveryFailed, wantReason: "The endpoint was disabled: no delivery succeeded for 5 days.",
			wantDisable: "Every delivery failed for 5 days (since 2025-03-27T08:00:00Z); disabled on 2025-04-01T08:00:00Z."},
		{name: "a failure of an endpoint failing for four days is retried",
			status: 500, prepare: func(t *webhook.Task) { t.Endpoint.FailingSince = deliveryNow.Add(-4 * 24 * time.Hour) },
			wantStatus: webhook.DeliveryPending, wantNext: due(deliveryNow, schedule[0])},
		{name: "a success of an endpoint failing for five days succeeds",
			status: http.StatusOK, prepare: func(t *webhook.Task) { t.Endpoint.FailingSince = deliveryNow.Add(-6 * 24 * time.Hour) },
			wantStatus: webhook.DeliverySucceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupDelivery(t, answer(tt.status, tt.retryAfter), tt.prepare)

			next, err := b.svc.Deliver(context.Background(), b.task.ID)

			require.NoError(t, err)
			require.EqualValues(t, 1, b.rcv.hits.Load())
			require.Empty(t, b.store.finished)
			require.Len(t, b.store.recorded, 1)
			o := b.store.recorded[0]
			want := tt.wantNext
			if tt.fromAnswer {
				require.Positive(t, o.Attempt.Duration)
				want = want.Add(o.Attempt.Duration)
			}
			require.Equal(t, want, next)
			require.Equal(t, tt.wantStatus, o.Status)
			require.Equal(t, want, o.NextAttemptAt)
			require.Equal(t, tt.wantReason, o.Reason)
			require.Equal(t, tt.wantDisable, o.DisableEndpoint)
			require.Equal(t, b.task.AttemptsCount+1, o.Attempt.Number)
			require.Equal(t, tt.status, o.Attempt.StatusCode)
			require.Equal(t, deliveryNow, o.Attempt.At)
			wantFirst := b.task.FirstAttemptAt
			if wantFirst.IsZero() {
				wantFirst = deliveryNow
			}
			require.Equal(t, wantFirst, o.FirstAttemptAt)
		})
	}
}

func TestDeliverFinishesOrWaitsWithoutSending(t *testing.T) {
	t.Parallel()
	later := deliveryNow.Add(time.Minute)
	tests := []struct {
		name       string
		prepare    func(*webhook.Task)
		unknown    bool
		wantNext   time.Time
		wantFinish []webhook.DeliveryStatus
		wantReason string
	}{
		{name: "a delivery to a deleted endpoint is cancelled",
			prepare:    func(t *webhook.Task) { t.EndpointDeleted = true },
			wantFinish: []webhook.DeliveryStatus{webhook.DeliveryCancelled}, wantReason: "The endpoint was deleted."},
		{name: "a delivery to a disabled endpoint fails with the endpoint's reason",
			prepare: func(t *webhook.Task) {
				t.Endpoint.Enabled, t.Endpoint.DisabledReason = false, "The endpoint answered 410 Gone on 2025-03-31T08:00:00Z."
			},
			wantFinish: []webhook.DeliveryStatus{webhook.DeliveryFailed},
			wantReason: "The endpoint is disabled: The endpoint answered 410 Gone on 2025-03-31T08:00:00Z."},
		{name: "a delivery whose next attempt is not yet due returns when it is",
			prepare: func(t *webhook.Task) {
				t.AttemptsCount, t.FirstAttemptAt, t.NextAttemptAt = 1, deliveryNow.Add(-time.Minute), later
			},
			wantNext: later},
		{name: "a succeeded delivery is left alone",
			prepare: func(t *webhook.Task) { t.Status = webhook.DeliverySucceeded }},
		{name: "an unknown delivery is nothing to do", unknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupDelivery(t, answer(http.StatusOK, ""), tt.prepare)
			id := b.task.ID
			if tt.unknown {
				id = uuid.New()
			}

			next, err := b.svc.Deliver(context.Background(), id)

			require.NoError(t, err)
			require.Equal(t, tt.wantNext, next)
			require.Zero(t, b.rcv.hits.Load(), "no request is sent")
			require.Empty(t, b.store.recorded)
			var statuses []webhook.DeliveryStatus
			for _, f := range b.store.finished {
				statuses = append(statuses, f.status)
				require.Equal(t, b.task.ID, f.id)
				require.Equal(t, tt.wantReason, f.reason)
				require.Equal(t, deliveryNow, f.at)
			}
			require.Equal(t, tt.wantFinish, statuses)
		})
	}
}

func TestDeliverWhenTheAttemptCannotBeRecorded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		recordErr error
		wantErr   bool
	}{
		{name: "a stale attempt (another run recorded it) is nothing more to do", recordErr: attempt.ErrStale},
		{name: "any other failure is an error, so the work runs again", recordErr: errors.New("connection reset"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupDelivery(t, answer(500, ""), nil)
			b.store.recordErr = tt.recordErr

			next, err := b.svc.Deliver(context.Background(), b.task.ID)

			require.True(t, next.IsZero())
			require.EqualValues(t, 1, b.rcv.hits.Load())
			if tt.wantErr {
				require.ErrorIs(t, err, tt.recordErr)
				require.ErrorContains(t, err, b.task.ID.String())
			} else {
				require.NoError(t, err)
			}
		})
	}
}

func TestDeliverCancelledDuringTheAttemptRecordsNothing(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := setupDelivery(t, func(_ http.ResponseWriter, r *http.Request) {
		cancel()
		hang(r)
	}, nil)

	next, err := b.svc.Deliver(ctx, b.task.ID)

	require.ErrorIs(t, err, context.Canceled)
	require.True(t, next.IsZero())
	require.EqualValues(t, 1, b.rcv.hits.Load())
	require.Empty(t, b.store.recorded, "the attempt is ours to retry, not the endpoint's failure")
	require.Empty(t, b.store.finished)
}

func TestListDeliveries(t *testing.T) {
	t.Parallel()
	accountID := uuid.New()
	ep := webhook.Endpoint{ID: uuid.New(), AccountID: accountID, Enabled: true}
	other := webhook.Endpoint{ID: uuid.New(), AccountID: accountID, Enabled: true}
	store := &fakeDeliveries{}
	var want []uuid.UUID // ep's deliveries, newest first
	for i := range 7 {
		d := webhook.Delivery{ID: uuid.New(), EndpointID: ep.ID, AccountID: accountID, Status: webhook.DeliveryPending,
			CreatedAt: deliveryNow.Add(-time.Duration(i) * time.Minute)}
		if i%3 == 1 {
			d.EndpointID = other.ID // interleaved: 2 of other, 5 of ep
		} else {
			want = append(want, d.ID)
		}
		store.list = append(store.list, d)
	}
	require.Len(t, want, 5)
	svc := &webhook.Service{Store: fakeEndpoints{endpoints: []webhook.Endpoint{ep, other}}, Deliveries: store,
		Now: func() time.Time { return deliveryNow }}
	ctx := context.Background()

	t.Run("pages of 2 over 5 deliveries are 2, 2 and 1, newest first", func(t *testing.T) {
		t.Parallel()
		var got []uuid.UUID
		var sizes []int
		cursor := ""
		for range 4 {
			page, err := svc.ListDeliveries(ctx, accountID, ep.ID, cursor, 2)
			require.NoError(t, err)
			sizes = append(sizes, len(page.Deliveries))
			for _, d := range page.Deliveries {
				got = append(got, d.ID)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		require.Equal(t, []int{2, 2, 1}, sizes)
		require.Equal(t, want, got)
	})

	t.Run("a page holding the last delivery exactly has no next cursor", func(t *testing.T) {
		t.Parallel()
		page, err := svc.ListDeliveries(ctx, accountID, ep.ID, "", 5)
		require.NoError(t, err)
		require.Len(t, page.Deliveries, 5)
		require.Empty(t, page.NextCursor)
	})

	otherPage, err := svc.ListDeliveries(ctx, accountID, other.ID, "", 1)
	require.NoError(t, err)
	require.NotEmpty(t, otherPage.NextCursor)
	tests := []struct {
		name              string
		account, endpoint uuid.UUID
		cursor            string
		wantErr           error
	}{
		{name: "an unknown endpoint is not found", account: accountID, endpoint: uuid.New(), wantErr: webhook.ErrNotFound},
		{name: "another account's endpoint is not found", account: uuid.New(), endpoint: ep.ID, wantErr: webhook.ErrNotFound},
		{name: "a cursor of another endpoint's deliveries is refused", account: accountID, endpoint: ep.ID,
			cursor: otherPage.NextCursor, wantErr: cursor.ErrBad},
		{name: "a cursor the service did not make is refused", account: accountID, endpoint: ep.ID,
			cursor: "not-a-cursor!", wantErr: cursor.ErrBad},
		{name: "a cursor of another list is refused", account: accountID, endpoint: ep.ID,
			cursor: cursor.Encode(struct{ A string }{"x"}), wantErr: cursor.ErrBad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := svc.ListDeliveries(ctx, tt.account, tt.endpoint, tt.cursor, 2)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

// An endpoint that is slow to answer holds at most EndpointConcurrency attempts of a process:
// a further delivery to it makes no attempt and is due again a second or two later, so that
// it does not hold a worker other endpoints' deliveries need.
func TestDeliverWaitsWhileItsEndpointIsBusy(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	b := setupDelivery(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	}, nil)
	b.svc.EndpointConcurrency = 1

	first := make(chan error, 1)
	go func() {
		_, err := b.svc.Deliver(context.Background(), b.task.ID)
		first <- err
	}()
	<-arrived
	next, err := b.svc.Deliver(context.Background(), b.task.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, next.Sub(deliveryNow), time.Second)
	require.Less(t, next.Sub(deliveryNow), 2*time.Second)
	require.EqualValues(t, 1, b.rcv.hits.Load(), "no second request while the first is unanswered")

	close(release)
	require.NoError(t, <-first)
	require.Len(t, b.store.recorded, 1, "the wait counted no attempt")
	next, err = b.svc.Deliver(context.Background(), b.task.ID)
	require.NoError(t, err)
	require.True(t, next.IsZero())
	require.EqualValues(t, 2, b.rcv.hits.Load(), "the slot is free again once the first attempt ended")
}
