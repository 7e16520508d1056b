package postgres_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/webhook"
)

// hookBundle is a parsing job store (insert-only queue) with the webhook store of the same
// database.
type hookBundle struct {
	*parseBundle
	hooks *postgres.WebhookStore
}

func setupHooks(t *testing.T) *hookBundle {
	t.Helper()
	b := setupParseStore(t)
	return &hookBundle{parseBundle: b, hooks: postgres.NewWebhookStore(b.db)}
}

// endpoint registers an endpoint of acc subscribed to events (nil: every type).
func (b *hookBundle) endpoint(t *testing.T, acc account.Account, events ...webhook.EventType) webhook.Endpoint {
	t.Helper()
	e := newEndpoint(acc, "https://hooks.example/"+uuid.NewString(), b.now)
	e.Events = events
	require.NoError(t, b.hooks.CreateEndpoint(t.Context(), e, webhook.MaxEndpoints, idempotency.Key{}))
	return e
}

// createCharged stores a job of the bundle's account created at at, charged to c.
func (b *hookBundle) createCharged(t *testing.T, at time.Time, c quota.Charge) (parsejob.Job, error) {
	t.Helper()
	j := b.newJob(b.account, at)
	return j, b.store.Create(t.Context(), j, fileOf(j.FileName, []byte("Date,Description,Amount\n")), c, idempotency.Key{})
}

// storedEvent is a webhook_events row with its body decoded.
type storedEvent struct {
	ID        uuid.UUID `db:"id"`
	Type      string    `db:"type"`
	Body      []byte    `db:"body"`
	CreatedAt time.Time `db:"created_at"`
	// Event, Data and Timestamp are the body's fields.
	Event     string
	Data      map[string]any
	Timestamp string
}

// events returns the events of type typ, oldest first, checking that each body is exactly a
// {event, data, timestamp} JSON object of that type.
func (b *hookBundle) events(t *testing.T, typ webhook.EventType) []storedEvent {
	t.Helper()
	var evs []storedEvent
	require.NoError(t, b.db.SelectContext(t.Context(), &evs,
		`SELECT id, type, body, created_at FROM webhook_events WHERE type = $1 ORDER BY created_at, id`, string(typ)))
	for i := range evs {
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(evs[i].Body, &fields), "the body is JSON")
		require.ElementsMatch(t, []string{"event", "data", "timestamp"}, slices.Collect(maps.Keys(fields)))
		require.NoError(t, json.Unmarshal(fields["event"], &evs[i].Event))
		require.NoError(t, json.Unmarshal(fields["data"], &evs[i].Data))
		require.NoError(t, json.Unmarshal(fields["timestamp"], &evs[i].Timestamp))
		require.Equal(t, string(typ), evs[i].Event)
	}
	return evs
}

// jobEvents returns the types of the events about job id, oldest first.
func (b *hookBundle) jobEvents(t *testing.T, id uuid.UUID) []string {
	t.Helper()
	types := []string{}
	require.NoError(t, b.db.SelectContext(t.Context(), &types, `
SELECT type FROM webhook_events WHERE convert_from(body, 'UTF8')::jsonb -> 'data' ->> 'job_id' = $1 ORDER BY created_at, id`, id.String()))
	return types
}

// deliveryOf returns the id of the delivery of job id's event of type typ to endpoint e.
func (b *hookBundle) deliveryOf(t *testing.T, id uuid.UUID, typ webhook.EventType, e webhook.Endpoint) uuid.UUID {
	t.Helper()
	var d uuid.UUID
	require.NoError(t, b.db.GetContext(t.Context(), &d, `
SELECT d.id FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
 WHERE ev.type = $1 AND convert_from(ev.body, 'UTF8')::jsonb -> 'data' ->> 'job_id' = $2 AND d.endpoint_id = $3`,
		string(typ), id.String(), e.ID))
	return d
}

// task loads a delivery, which must exist.
func (b *hookBundle) task(t *testing.T, id uuid.UUID) webhook.Task {
	t.Helper()
	task, err := b.hooks.DeliveryTask(t.Context(), id)
	require.NoError(t, err)
	return task
}

// outcomeOf is the outcome of attempt n of delivery d to e at at: pending with a retry a minute
// later when it failed, succeeded otherwise.
func outcomeOf(d uuid.UUID, e webhook.Endpoint, n int, at, first time.Time, success bool) webhook.Outcome {
	o := webhook.Outcome{DeliveryID: d, EndpointID: e.ID, FirstAttemptAt: first, Status: webhook.DeliverySucceeded,
		Attempt: webhook.Attempt{Number: n, At: at, Success: success, StatusCode: 200, Duration: 120 * time.Millisecond}}
	if !success {
		o.Status, o.NextAttemptAt = webhook.DeliveryPending, at.Add(time.Minute)
		o.Attempt.StatusCode, o.Attempt.Error = 503, "The endpoint answered 503 Service Unavailable."
	}
	return o
}

func sameTime(t *testing.T, want, got time.Time, msg string) {
	t.Helper()
	require.True(t, want.Equal(got), "%s: want %s, got %s", msg, want, got)
}

// Create writes the job.created event in its transaction: the body once, one pending delivery per
// subscribed, enabled, undeleted endpoint of the account, and one queued piece of work per delivery;
// nothing when no endpoint subscribes.
func TestWebhookOutboxCreateWritesTheEventItsDeliveriesAndTheirWork(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()

	// No endpoint subscribes yet: no event is written at all.
	b.create(t)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM webhook_events`), "an event nobody subscribes to is not stored")
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery'`))

	all := b.endpoint(t, b.account)
	listed := b.endpoint(t, b.account, webhook.EventJobFailed, webhook.EventJobCreated)
	b.endpoint(t, b.account, webhook.EventJobCompleted, webhook.EventUsageThreshold)
	disabled := b.endpoint(t, b.account)
	_, err := b.db.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'Gone.' WHERE id = $1`, disabled.ID)
	require.NoError(t, err)
	deleted := b.endpoint(t, b.account)
	require.NoError(t, b.hooks.DeleteEndpoint(ctx, b.account.ID, deleted.ID, b.now))
	b.endpoint(t, b.otherAccount(t))

	// Created at 11:30:00.123456 in UTC+1: the event says 10:30:00.123456Z.
	j := b.createAt(t, b.account, b.now.In(time.FixedZone("CET", 3600)))

	evs := b.events(t, webhook.EventJobCreated)
	require.Len(t, evs, 1, "one event for the job")
	ev := evs[0]
	require.Equal(t, map[string]any{"job_id": j.ID.String(), "status": "queued", "bank_name": nil,
		"transactions_count": float64(0), "created_at": "2024-03-15T10:30:00.123456Z"}, ev.Data)
	require.Equal(t, "2024-03-15T10:30:00Z", ev.Timestamp, "seconds precision, UTC")
	sameTime(t, j.CreatedAt, ev.CreatedAt, "the event happened when the job was created")

	var deliveries []struct {
		ID         uuid.UUID `db:"id"`
		EndpointID uuid.UUID `db:"endpoint_id"`
		Status     string    `db:"status"`
		Attempts   int       `db:"attempts"`
		Next       time.Time `db:"next_attempt_at"`
		Work       string    `db:"work"`
		Queue      string    `db:"queue"`
	}
	require.NoError(t, b.db.SelectContext(ctx, &deliveries, `
SELECT d.id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, r.args ->> 'delivery_id' AS work, r.queue
  FROM webhook_deliveries d JOIN river_job r ON r.kind = 'webhook_delivery' AND r.args ->> 'delivery_id' = d.id::text
 WHERE d.event_id = $1`, ev.ID))
	var endpoints []uuid.UUID
	for _, d := range deliveries {
		endpoints = append(endpoints, d.EndpointID)
		require.Equal(t, "pending", d.Status)
		require.Zero(t, d.Attempts)
		sameTime(t, j.CreatedAt, d.Next, "the first attempt is due at once")
		require.Equal(t, d.ID.String(), d.Work, "the queued work names its delivery")
		require.Equal(t, "webhooks", d.Queue)
	}
	require.ElementsMatch(t, []uuid.UUID{all.ID, listed.ID}, endpoints,
		"only the account's enabled, undeleted endpoints that subscribe to job.created")
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM webhook_deliveries`))
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery'`), "one piece of work per delivery")
}

// Complete and Fail announce the outcome (job.completed, job.review, job.failed) with the job's data;
// an attempt that lost its claim announces nothing.
func TestWebhookOutboxJobOutcomesEmitTheirEvents(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()
	b.endpoint(t, b.account)
	done := b.now.Add(90*time.Second + 700*time.Millisecond)

	tests := []struct {
		name string
		// finish ends the job, claimed by attempt 1.
		finish    func(id uuid.UUID) error
		wantEvent webhook.EventType
		wantData  map[string]any
	}{
		{"a completed job emits job.completed with the rows stored and the bank",
			func(id uuid.UUID) error {
				return b.store.Complete(ctx, id, 1, parsejob.Job{Status: parsejob.StatusCompleted, BankName: "Sparkasse",
					TransactionsCount: 99, CompletedAt: &done}, held(manyTransactions(3)))
			},
			webhook.EventJobCompleted,
			map[string]any{"status": "completed", "bank_name": "Sparkasse", "transactions_count": float64(3)}},
		{"a job that needs review emits job.review",
			func(id uuid.UUID) error {
				return b.store.Complete(ctx, id, 1, parsejob.Job{Status: parsejob.StatusReview, CompletedAt: &done}, held(manyTransactions(2)))
			},
			webhook.EventJobReview,
			map[string]any{"status": "review", "bank_name": nil, "transactions_count": float64(2)}},
		{"a failed job emits job.failed",
			func(id uuid.UUID) error {
				return b.store.Fail(ctx, id, 1, parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "broken"}, done)
			},
			webhook.EventJobFailed,
			map[string]any{"status": "failed", "bank_name": nil, "transactions_count": float64(0)}},
	}
	for _, tc := range tests {
		j := b.create(t)
		_, err := b.store.Claim(ctx, j.ID, 1)
		require.NoError(t, err, tc.name)
		require.NoError(t, tc.finish(j.ID), tc.name)
		require.Equal(t, []string{"job.created", string(tc.wantEvent)}, b.jobEvents(t, j.ID), tc.name)
		evs := b.events(t, tc.wantEvent)
		require.Len(t, evs, 1, tc.name)
		tc.wantData["job_id"] = j.ID.String()
		tc.wantData["created_at"] = "2024-03-15T10:30:00.123456Z"
		require.Equal(t, tc.wantData, evs[0].Data, tc.name)
		require.Equal(t, "2024-03-15T10:31:30Z", evs[0].Timestamp, "%s: when the job finished, to the second", tc.name)
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1`, evs[0].ID), tc.name)
	}

	t.Run("a stale attempt emits nothing", func(t *testing.T) {
		j := b.create(t)
		_, err := b.store.Claim(ctx, j.ID, 2)
		require.NoError(t, err)
		require.ErrorIs(t, b.store.Complete(ctx, j.ID, 1, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done},
			held(manyTransactions(1))), attempt.ErrStale)
		require.ErrorIs(t, b.store.Fail(ctx, j.ID, 1, parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "x"}, done), attempt.ErrStale)
		require.NoError(t, b.store.Fail(ctx, j.ID, 2, parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "x"}, done))
		require.ErrorIs(t, b.store.Fail(ctx, j.ID, 2, parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "x"}, done),
			attempt.ErrStale, "a finished job")
		require.Equal(t, []string{"job.created", "job.failed"}, b.jobEvents(t, j.ID), "only the attempt that won emitted")
	})
}

// A Create the quota refuses rolls back its events, deliveries, work and thresholds with the job.
func TestWebhookOutboxQuotaRefusalWritesNoEvent(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	b.endpoint(t, b.account)
	charge := b.charge(1)
	_, err := b.createCharged(t, b.now, charge)
	require.NoError(t, err)
	counts := func() []int {
		return []int{b.count(t, `SELECT count(*) FROM webhook_events`), b.count(t, `SELECT count(*) FROM webhook_deliveries`),
			b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'webhook_delivery'`), b.count(t, `SELECT count(*) FROM usage_thresholds`)}
	}
	before := counts()
	require.Equal(t, []int{3, 3, 3, 2}, before, "the accepted job: job.created and both thresholds")

	refused, err := b.createCharged(t, b.now, charge)
	var qe *quota.Error
	require.ErrorAs(t, err, &qe)
	require.Equal(t, before, counts(), "the refusal rolled its events back")
	require.Empty(t, b.jobEvents(t, refused.ID))
}

// usage.threshold is announced when a job reaches 80% and 100% of the limit, once per period
// whatever happens to the count, and again in the next period.
func TestWebhookOutboxUsageThresholdsAreAnnouncedOncePerPeriod(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	b.endpoint(t, b.account, webhook.EventUsageThreshold)
	charge := b.charge(5)
	// Each job is created a minute after the one before (in the month of base), so the events
	// are ordered by when they happened.
	jobs := 0
	create := func(base time.Time, c quota.Charge, n int) {
		t.Helper()
		for range n {
			jobs++
			_, err := b.createCharged(t, base.Add(time.Duration(jobs)*time.Minute), c)
			require.NoError(t, err)
		}
	}
	threshold := func(pct, created int, start, end string) map[string]any {
		return map[string]any{"threshold_percent": float64(pct), "jobs_created": float64(created), "jobs_limit": float64(5),
			"period_start": start, "period_end": end}
	}
	march := func(pct, created int) map[string]any {
		return threshold(pct, created, "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z")
	}
	data := func() []map[string]any {
		out := []map[string]any{}
		for _, ev := range b.events(t, webhook.EventUsageThreshold) {
			out = append(out, ev.Data)
		}
		return out
	}

	create(b.now, charge, 3)
	require.Empty(t, data(), "3 of 5 is below 80%")
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM webhook_events`), "job.created has no subscriber")
	create(b.now, charge, 1)
	require.Equal(t, []map[string]any{march(80, 4)}, data(), "the 4th job reaches 80%")
	create(b.now, charge, 1)
	require.Equal(t, []map[string]any{march(80, 4), march(100, 5)}, data(), "the 5th job reaches 100%")
	require.Equal(t, "2024-03-15T10:35:00Z", b.events(t, webhook.EventUsageThreshold)[1].Timestamp, "when the 5th job was created")
	reached, err := b.store.ThresholdsReached(t.Context(), b.account.ID, parsejob.QuotaScope, charge.Period)
	require.NoError(t, err)
	require.Equal(t, []parsejob.Threshold{{Percent: 80, ReachedAt: time.Date(2024, 3, 15, 10, 34, 0, 123456000, time.UTC)},
		{Percent: 100, ReachedAt: time.Date(2024, 3, 15, 10, 35, 0, 123456000, time.UTC)}}, reached, "the dashboard lists them")
	perDay, err := b.store.JobsPerDay(t.Context(), b.account.ID, charge.Period, charge.Period.AddDate(0, 0, 16))
	require.NoError(t, err)
	require.Len(t, perDay, 16)
	require.Equal(t, 5, perDay[14], "the five jobs of 15 March")
	require.Equal(t, 5, perDay[0]+perDay[14]+perDay[15], "and no other day's")

	// The count starts again (as if the quota row were lost), but the thresholds were announced.
	_, err = b.db.ExecContext(t.Context(), `DELETE FROM job_quota WHERE account_id = $1`, b.account.ID)
	require.NoError(t, err)
	create(b.now, charge, 5)
	require.Len(t, data(), 2, "each threshold is announced once in a period")

	april := b.now.AddDate(0, 1, 0)
	start, reset := quota.Period(april)
	create(april, quota.Charge{Scope: parsejob.QuotaScope, Period: start, Limit: 5, ResetAt: reset, Announce: parsejob.UsageThresholds}, 4)
	require.Equal(t, []map[string]any{march(80, 4), march(100, 5), threshold(80, 4, "2024-04-01T00:00:00Z", "2024-05-01T00:00:00Z")},
		data(), "a new period announces its thresholds again")
}

// RecordAttempt stores each attempt once (in order), the delivery's new state and the endpoint's
// failing streak; disabling the endpoint fails its other pending deliveries.
func TestWebhookDeliveryRecordAttemptKeepsTheDeliveryAndTheEndpointStreak(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()
	e := b.endpoint(t, b.account)
	other := b.endpoint(t, b.account)
	jobs, ids := make([]uuid.UUID, 3), make([]uuid.UUID, 3)
	for i := range ids {
		jobs[i] = b.create(t).ID
		ids[i] = b.deliveryOf(t, jobs[i], webhook.EventJobCreated, e)
	}
	t1 := b.now.Add(time.Second)
	failingSince := func() time.Time { t.Helper(); return b.task(t, ids[0]).Endpoint.FailingSince }

	// Attempt 1 fails: the delivery waits for its retry, the endpoint starts failing.
	first := outcomeOf(ids[0], e, 1, t1, t1, false)
	require.NoError(t, b.hooks.RecordAttempt(ctx, first))
	got := b.task(t, ids[0])
	require.Equal(t, webhook.DeliveryPending, got.Status)
	require.Equal(t, 1, got.AttemptsCount)
	sameTime(t, t1, got.FirstAttemptAt, "first attempt")
	sameTime(t, t1.Add(time.Minute), got.NextAttemptAt, "next attempt")
	require.Nil(t, got.CompletedAt)
	sameTime(t, t1, failingSince(), "the endpoint's failing streak starts")

	require.ErrorIs(t, b.hooks.RecordAttempt(ctx, first), attempt.ErrStale, "an attempt is recorded once")
	require.ErrorIs(t, b.hooks.RecordAttempt(ctx, outcomeOf(ids[0], e, 3, t1, t1, false)), attempt.ErrStale, "attempt 2 comes first")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM webhook_attempts WHERE delivery_id = $1`, ids[0]))

	t2 := t1.Add(time.Minute)
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(ids[0], e, 2, t2, t1, false)))
	sameTime(t, t1, failingSince(), "a later failure does not move the streak's start")

	t3 := t2.Add(time.Minute)
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(ids[0], e, 3, t3, t1, true)))
	got = b.task(t, ids[0])
	require.Equal(t, webhook.DeliverySucceeded, got.Status)
	require.Equal(t, 3, got.AttemptsCount)
	require.Empty(t, got.Reason)
	require.True(t, got.NextAttemptAt.IsZero())
	require.NotNil(t, got.CompletedAt)
	sameTime(t, t3, *got.CompletedAt, "completed")
	require.True(t, failingSince().IsZero(), "a success ends the streak")
	require.ErrorIs(t, b.hooks.RecordAttempt(ctx, outcomeOf(ids[0], e, 4, t3, t1, true)), attempt.ErrStale, "the delivery is finished")

	// The next failure starts a new streak; then the endpoint is disabled.
	t4 := t3.Add(time.Hour)
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(ids[1], e, 1, t4, t4, false)))
	sameTime(t, t4, failingSince(), "a new streak")
	gone := outcomeOf(ids[1], e, 2, t4.Add(time.Minute), t4, false)
	gone.Status, gone.Reason, gone.NextAttemptAt = webhook.DeliveryFailed, "The endpoint answered 410 Gone.", time.Time{}
	gone.Attempt.StatusCode, gone.Attempt.Error = 410, "The endpoint answered 410 Gone."
	gone.DisableEndpoint = "Gone for good."
	require.NoError(t, b.hooks.RecordAttempt(ctx, gone))

	for _, tc := range []struct {
		name       string
		id         uuid.UUID
		wantStatus webhook.DeliveryStatus
		wantReason string
	}{
		{"the delivery that succeeded stays so", ids[0], webhook.DeliverySucceeded, ""},
		{"the delivery whose attempt disabled the endpoint failed for its own reason", ids[1], webhook.DeliveryFailed, "The endpoint answered 410 Gone."},
		{"the endpoint's other pending delivery fails", ids[2], webhook.DeliveryFailed, "The endpoint was disabled."},
		{"another endpoint's delivery is left alone", b.deliveryOf(t, jobs[2], webhook.EventJobCreated, other),
			webhook.DeliveryPending, ""},
	} {
		got := b.task(t, tc.id)
		require.Equal(t, tc.wantStatus, got.Status, tc.name)
		require.Equal(t, tc.wantReason, got.Reason, tc.name)
	}
	task := b.task(t, ids[2])
	require.False(t, task.Endpoint.Enabled)
	require.Equal(t, "Gone for good.", task.Endpoint.DisabledReason)
	require.NotNil(t, task.CompletedAt)
	sameTime(t, gone.Attempt.At, *task.CompletedAt, "failed when the endpoint was disabled")
	require.True(t, task.NextAttemptAt.IsZero())
}

// Deleting an endpoint cancels its pending deliveries only; FinishDelivery ends pending ones only.
func TestWebhookDeliveryDeleteEndpointCancelsItsPendingDeliveries(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()
	e := b.endpoint(t, b.account)
	other := b.endpoint(t, b.account)
	first, second := b.create(t).ID, b.create(t).ID
	succeeded := b.deliveryOf(t, first, webhook.EventJobCreated, e)
	pending := b.deliveryOf(t, second, webhook.EventJobCreated, e)
	kept := b.deliveryOf(t, second, webhook.EventJobCreated, other)
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(succeeded, e, 1, b.now, b.now, true)))

	deletedAt := b.now.Add(time.Hour)
	require.NoError(t, b.hooks.DeleteEndpoint(ctx, b.account.ID, e.ID, deletedAt))
	for _, tc := range []struct {
		name       string
		id         uuid.UUID
		wantStatus webhook.DeliveryStatus
		wantReason string
	}{
		{"a pending delivery is cancelled", pending, webhook.DeliveryCancelled, "The endpoint was deleted."},
		{"a succeeded delivery stays succeeded", succeeded, webhook.DeliverySucceeded, ""},
		{"another endpoint's delivery stays pending", kept, webhook.DeliveryPending, ""},
	} {
		got := b.task(t, tc.id)
		require.Equal(t, tc.wantStatus, got.Status, tc.name)
		require.Equal(t, tc.wantReason, got.Reason, tc.name)
	}
	cancelled := b.task(t, pending)
	require.True(t, cancelled.EndpointDeleted, "the task knows its endpoint is gone")
	require.Equal(t, e.ID, cancelled.Endpoint.ID)
	require.NotNil(t, cancelled.CompletedAt)
	sameTime(t, deletedAt, *cancelled.CompletedAt, "cancelled when the endpoint was deleted")
	require.True(t, cancelled.NextAttemptAt.IsZero())
	require.False(t, b.task(t, kept).EndpointDeleted)

	for _, tc := range []struct {
		name string
		id   uuid.UUID
	}{
		{"a cancelled delivery cannot be finished", pending},
		{"a succeeded delivery cannot be finished", succeeded},
		{"an unknown delivery cannot be finished", uuid.New()},
	} {
		require.ErrorIs(t, b.hooks.FinishDelivery(ctx, tc.id, webhook.DeliveryFailed, "late", deletedAt), attempt.ErrStale, tc.name)
	}
	require.NoError(t, b.hooks.FinishDelivery(ctx, kept, webhook.DeliveryFailed, "The endpoint is disabled: x", deletedAt))
	got := b.task(t, kept)
	require.Equal(t, webhook.DeliveryFailed, got.Status)
	require.Equal(t, "The endpoint is disabled: x", got.Reason)
	require.ErrorIs(t, b.hooks.FinishDelivery(ctx, kept, webhook.DeliveryFailed, "again", deletedAt), attempt.ErrStale, "finished once")
}

// Deliveries pages an endpoint's deliveries newest first without gaps or repeats (ties on
// created_at broken by id), each with its attempts in order.
func TestWebhookDeliveriesPagesNewestFirstWithTheirAttempts(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()
	e := b.endpoint(t, b.account)
	other := b.endpoint(t, b.account)
	// 25 jobs, three to a second, so that pages break between deliveries of the same instant.
	var want []webhook.Delivery
	for i := range 25 {
		id := b.createAt(t, b.account, b.now.Add(time.Duration(i/3)*time.Second)).ID
		want = append(want, b.task(t, b.deliveryOf(t, id, webhook.EventJobCreated, e)).Delivery)
	}
	slices.SortFunc(want, func(x, y webhook.Delivery) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare(y.ID[:], x.ID[:])
	})
	retried := want[7].ID
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(retried, e, 1, b.now, b.now, false)))
	require.NoError(t, b.hooks.RecordAttempt(ctx, outcomeOf(retried, e, 2, b.now.Add(time.Minute), b.now, true)))

	var got []webhook.Delivery
	var after *webhook.DeliveryMark
	var sizes []int
	for range 10 { // at most 10 pages, so a listing that repeats itself ends the loop
		page, err := b.hooks.Deliveries(ctx, e.ID, after, 10)
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		sizes = append(sizes, len(page))
		got = append(got, page...)
		last := page[len(page)-1]
		after = &webhook.DeliveryMark{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	require.Equal(t, []int{10, 10, 5}, sizes)
	ids := func(ds []webhook.Delivery) []uuid.UUID {
		out := make([]uuid.UUID, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return out
	}
	require.Equal(t, ids(want), ids(got), "every delivery once, newest first")

	for _, d := range got {
		require.Equal(t, e.ID, d.EndpointID, "only the endpoint's deliveries")
		require.Equal(t, b.account.ID, d.AccountID)
		require.Equal(t, webhook.EventJobCreated, d.Event)
		if d.ID == retried {
			continue
		}
		require.NotNil(t, d.Attempts, "no attempts is an empty list, not nil")
		require.Empty(t, d.Attempts)
		require.Equal(t, webhook.DeliveryPending, d.Status)
	}
	r := got[7]
	require.Equal(t, webhook.DeliverySucceeded, r.Status)
	require.Equal(t, 2, r.AttemptsCount)
	require.Len(t, r.Attempts, 2)
	require.Equal(t, webhook.Attempt{Number: 1, At: b.now.Truncate(time.Microsecond), Success: false, StatusCode: 503,
		Error: "The endpoint answered 503 Service Unavailable.", Duration: 120 * time.Millisecond}, r.Attempts[0], "oldest first")
	require.Equal(t, webhook.Attempt{Number: 2, At: b.now.Add(time.Minute).Truncate(time.Microsecond), Success: true, StatusCode: 200,
		Duration: 120 * time.Millisecond}, r.Attempts[1])

	none, err := b.hooks.Deliveries(ctx, e.ID, nil, 0)
	require.NoError(t, err)
	require.Empty(t, none, "a limit of 0 lists nothing")
	otherPage, err := b.hooks.Deliveries(ctx, other.ID, nil, 100)
	require.NoError(t, err)
	require.Len(t, otherPage, 25, "the other endpoint has its own 25")
	unknown, err := b.hooks.Deliveries(ctx, uuid.New(), nil, 10)
	require.NoError(t, err)
	require.Empty(t, unknown)
}

// DeliveryTask returns the stored body byte for byte with the delivery and its endpoint, says when
// the endpoint was deleted, and ErrNotFound for an unknown delivery.
func TestWebhookDeliveryTaskCarriesTheStoredBodyAndTheEndpoint(t *testing.T) {
	t.Parallel()
	b := setupHooks(t)
	ctx := t.Context()
	e := b.endpoint(t, b.account, webhook.EventJobCreated)
	j := b.create(t)
	id := b.deliveryOf(t, j.ID, webhook.EventJobCreated, e)

	var body []byte
	require.NoError(t, b.db.GetContext(ctx, &body, `SELECT ev.body FROM webhook_events ev JOIN webhook_deliveries d ON d.event_id = ev.id WHERE d.id = $1`, id))
	task := b.task(t, id)
	require.Equal(t, body, task.Body, "the body byte for byte, as every attempt sends it")
	require.Equal(t, id, task.ID)
	require.Equal(t, b.account.ID, task.AccountID)
	require.Equal(t, webhook.EventJobCreated, task.Event)
	require.Equal(t, webhook.DeliveryPending, task.Status)
	require.Zero(t, task.AttemptsCount)
	require.True(t, task.FirstAttemptAt.IsZero(), "no attempt yet")
	sameTime(t, j.CreatedAt, task.CreatedAt, "created with the event")
	sameTime(t, j.CreatedAt, task.NextAttemptAt, "due at once")
	require.Equal(t, time.UTC, task.CreatedAt.Location())
	require.Equal(t, e.ID, task.Endpoint.ID)
	require.Equal(t, e.URL, task.Endpoint.URL)
	require.Equal(t, e.Events, task.Endpoint.Events)
	require.True(t, task.Endpoint.Enabled)
	require.False(t, task.EndpointDeleted)

	require.NoError(t, b.hooks.DeleteEndpoint(ctx, b.account.ID, e.ID, b.now))
	require.True(t, b.task(t, id).EndpointDeleted)

	_, err := b.hooks.DeliveryTask(ctx, uuid.New())
	require.ErrorIs(t, err, webhook.ErrNotFound)
}

// The sweep announces the parse jobs it fails (job.failed) and fails the deliveries whose queued
// work was discarded.
func TestWebhookOutboxSweepEmitsJobFailedAndFailsAbandonedDeliveries(t *testing.T) {
	t.Parallel()
	qb := setupQueue(t, nil)
	b := &hookBundle{parseBundle: newParseBundle(t, qb.db, qb.enqueuer), hooks: postgres.NewWebhookStore(qb.db)}
	e := b.endpoint(t, b.account)
	j := b.create(t)
	qb.setQueueState(t, "parse_jobs", j.ID, queueDiscarded)
	abandoned := b.deliveryOf(t, j.ID, webhook.EventJobCreated, e)
	_, err := b.db.ExecContext(t.Context(), `
UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE kind = 'webhook_delivery' AND args ->> 'delivery_id' = $1`, abandoned.String())
	require.NoError(t, err)

	qb.sweep(t)

	require.Equal(t, []string{"job.created", "job.failed"}, b.jobEvents(t, j.ID), "the swept job announces its failure")
	evs := b.events(t, webhook.EventJobFailed)
	require.Len(t, evs, 1)
	require.Equal(t, "failed", evs[0].Data["status"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1`, evs[0].ID))
	got := b.task(t, abandoned)
	require.Equal(t, webhook.DeliveryFailed, got.Status, "a delivery whose work was discarded fails")
	require.Equal(t, "The delivery could not be made.", got.Reason)
}
