package parsejob

import (
	"github.com/statementmatch/service/internal/webhook"
)

// announced are the events of the statuses that are announced.
var announced = map[Status]webhook.EventType{
	StatusQueued:    webhook.EventJobCreated,
	StatusCompleted: webhook.EventJobCompleted,
	StatusReview:    webhook.EventJobReview,
	StatusFailed:    webhook.EventJobFailed,
}

// Announcement is the webhook event that announces a job in status j.Status: job.created when
// it is queued, and job.completed, job.review or job.failed when it ends (at j.CompletedAt).
// Processing is not announced; false then.
func Announcement(j Job) (webhook.Event, bool) {
	t, ok := announced[j.Status]
	if !ok {
		return webhook.Event{}, false
	}
	at := j.CreatedAt
	if j.Status != StatusQueued {
		if j.CompletedAt == nil {
			return webhook.Event{}, false
		}
		at = *j.CompletedAt
	}
	data := webhook.JobData{JobID: j.ID, Status: string(j.Status), TransactionsCount: j.TransactionsCount, CreatedAt: j.CreatedAt.UTC()}
	if j.BankName != "" && j.Status.HasResults() {
		data.BankName = &j.BankName
	}
	return webhook.Event{Type: t, AccountID: j.AccountID, Data: data, At: at}, true
}

// UsageThresholds are the shares of the monthly job limit, in percent, whose reaching is
// announced (usage.threshold), once per account and period.
var UsageThresholds = []int{80, 100}
