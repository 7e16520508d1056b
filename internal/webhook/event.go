// Package webhook holds the rules of the Parsing API's webhooks: which events exist and what
// their delivery body looks like (Body), how a delivery is signed (Headers), which endpoint URLs
// are acceptable (Policy), and how one delivery attempt is made (Sender), with the SSRF guard
// that checks every address actually dialled; and the endpoints themselves: registering,
// listing, deleting and testing them (Service). Storage is behind interfaces implemented
// elsewhere; this package knows nothing of SQL or of serving HTTP.
//
// The account's signing secret is made by account.NewSigningSecret ("whsec_" + base64 of 32
// random bytes); NewSecret here is the same function, so there is one definition of its form.
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
)

// EventType is the kind of a webhook event, as in the API's WebhookEventType.
type EventType string

// The event types.
const (
	EventJobCreated     EventType = "job.created"
	EventJobCompleted   EventType = "job.completed"
	EventJobFailed      EventType = "job.failed"
	EventJobReview      EventType = "job.review"
	EventUsageThreshold EventType = "usage.threshold"
)

// AllEvents lists every event type, in the order of the API documentation. An endpoint
// registered without events receives all of them.
var AllEvents = []EventType{EventJobCreated, EventJobCompleted, EventJobFailed, EventJobReview, EventUsageThreshold}

// Valid reports whether e is one of AllEvents.
func (e EventType) Valid() bool {
	switch e {
	case EventJobCreated, EventJobCompleted, EventJobFailed, EventJobReview, EventUsageThreshold:
		return true
	}
	return false
}

// envelope is the delivery body, the API's WebhookEvent.
type envelope struct {
	Event     EventType `json:"event"`
	Data      any       `json:"data"`
	Timestamp string    `json:"timestamp"`
}

// Body returns the JSON delivery body {"event","data","timestamp"} of an event that occurred at
// at: timestamp is RFC 3339 in UTC with seconds precision. data is JobData (job.* events),
// UsageThresholdData (usage.threshold) or anything else that marshals to a JSON object. The same bytes are sent on every retry (only
// the signature headers change), so build the body once and store it.
func Body(event EventType, data any, at time.Time) ([]byte, error) {
	if !event.Valid() {
		return nil, fmt.Errorf("webhook body: %q is not a known event type", event)
	}
	if data == nil {
		return nil, errors.New("webhook body: the event has no data")
	}
	b, err := json.Marshal(envelope{Event: event, Data: data, Timestamp: at.UTC().Truncate(time.Second).Format(time.RFC3339)})
	if err != nil {
		return nil, fmt.Errorf("webhook body of %s: %w", event, err)
	}
	return b, nil
}

// NewSecret returns a new signing secret: "whsec_" + base64 of 32 random bytes, the Standard
// Webhooks form. It is account.NewSigningSecret, which the account service uses when it creates
// or rotates an account's secret; an account has one secret for all its endpoints.
func NewSecret() string { return account.NewSigningSecret() }

// Event is an event to announce to an account's endpoints: the job rules decide which events a
// change emits, and the store writes them in the change's transaction (an outbox), so an event
// exists exactly when its cause committed.
type Event struct {
	Type      EventType
	AccountID uuid.UUID
	// Data is the event's data: JobData or UsageThresholdData.
	Data any
	// At is when it happened.
	At time.Time
}

// JobData is the data of job.* events (WebhookJobData): the job's key fields when the event
// happened.
type JobData struct {
	JobID             uuid.UUID `json:"job_id"`
	Status            string    `json:"status"`
	BankName          *string   `json:"bank_name"`
	TransactionsCount int       `json:"transactions_count"`
	CreatedAt         time.Time `json:"created_at"`
}

// UsageThresholdData is the data of usage.threshold events.
type UsageThresholdData struct {
	ThresholdPercent int       `json:"threshold_percent"`
	JobsCreated      int       `json:"jobs_created"`
	JobsLimit        int       `json:"jobs_limit"`
	PeriodStart      time.Time `json:"period_start"`
	PeriodEnd        time.Time `json:"period_end"`
}

// SampleData is the data of a test event of type t: a sample job (whose id exists nowhere) or a
// sample threshold in the current month.
func SampleData(t EventType, now time.Time) any {
	now = now.UTC().Truncate(time.Second)
	if t == EventUsageThreshold {
		start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		return UsageThresholdData{ThresholdPercent: 80, JobsCreated: 800, JobsLimit: 1000, PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0)}
	}
	bank := "Sample Bank"
	d := JobData{JobID: uuid.New(), Status: "completed", BankName: &bank, TransactionsCount: 42, CreatedAt: now.Add(-4 * time.Second)}
	switch t {
	case EventJobCreated:
		d.Status, d.BankName, d.TransactionsCount = "queued", nil, 0
	case EventJobFailed:
		d.Status, d.BankName, d.TransactionsCount = "failed", nil, 0
	case EventJobReview:
		d.Status = "review"
	}
	return d
}
