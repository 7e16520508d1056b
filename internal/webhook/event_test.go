package webhook_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/webhook"
)

func TestBody(t *testing.T) {
	t.Parallel()
	bank := "Deutsche Bank"
	berlin := time.FixedZone("CEST", 2*60*60)
	tests := []struct {
		name    string
		event   webhook.EventType
		data    any
		at      time.Time
		want    string
		wantErr bool
	}{
		{name: "the job.completed example of the documentation is the golden body", event: webhook.EventJobCompleted,
			data: webhook.JobData{JobID: uuid.MustParse("3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f"), Status: "completed", BankName: &bank,
				TransactionsCount: 42, CreatedAt: time.Date(2025, 4, 1, 8, 15, 30, 0, time.UTC)},
			at: time.Unix(goldenUnix, 0), want: goldenBody},
		{name: "the timestamp is UTC with seconds precision", event: webhook.EventUsageThreshold,
			data: webhook.UsageThresholdData{ThresholdPercent: 80, JobsCreated: 800, JobsLimit: 1000,
				PeriodStart: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)},
			at: time.Date(2025, 4, 18, 15, 2, 11, 999_999_999, berlin),
			want: `{"event":"usage.threshold","data":{"threshold_percent":80,"jobs_created":800,"jobs_limit":1000,` +
				`"period_start":"2025-04-01T00:00:00Z","period_end":"2025-05-01T00:00:00Z"},"timestamp":"2025-04-18T13:02:11Z"}`},
		{name: "a job without a bank has a null bank_name", event: webhook.EventJobCreated,
			data: webhook.JobData{JobID: uuid.MustParse("3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f"), Status: "queued",
				CreatedAt: time.Date(2025, 4, 1, 8, 15, 30, 0, time.UTC)},
			at: time.Date(2025, 4, 1, 8, 15, 30, 0, time.UTC),
			want: `{"event":"job.created","data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"queued","bank_name":null,` +
				`"transactions_count":0,"created_at":"2025-04-01T08:15:30Z"},"timestamp":"2025-04-01T08:15:30Z"}`},
		{name: "an unknown event type is refused", event: "job.deleted", data: map[string]any{}, at: time.Now(), wantErr: true},
		{name: "an event without data is refused", event: webhook.EventJobFailed, data: nil, at: time.Now(), wantErr: true},
		{name: "data that cannot be marshalled is refused", event: webhook.EventJobFailed, data: map[string]any{"x": func() {}}, at: time.Now(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := webhook.Body(tt.event, tt.data, tt.at)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, string(b))
			require.True(t, json.Valid(b))
		})
	}
}

func TestAllEventsAreTheFiveDocumentedTypesAndValid(t *testing.T) {
	t.Parallel()
	require.Equal(t, []webhook.EventType{"job.created", "job.completed", "job.failed", "job.review", "usage.threshold"}, webhook.AllEvents)
	for _, e := range webhook.AllEvents {
		require.True(t, e.Valid(), e)
	}
	require.False(t, webhook.EventType("job.deleted").Valid())
	require.False(t, webhook.EventType("").Valid())
}
