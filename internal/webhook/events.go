package webhook

import (
	"time"

	"github.com/google/uuid"
)

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
