package webhook_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/webhook"
)

// The Go SDK's VerifyWebhook checked against the service's signer and the Standard Webhooks
// library; the SDK's own tests (gen/sdk) check it against golden signatures.

const (
	sdkTestSecret     = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	sdkTestDeliveryID = "2c1d0e9f-8a7b-4c6d-9e5f-4a3b2c1d0e9f"
	sdkTestBody       = `{"event":"job.completed","data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"completed","bank_name":"Deutsche Bank","transactions_count":42,"created_at":"2025-04-01T08:15:30Z"},"timestamp":"2025-04-01T08:15:34Z"}`
	// The signatures of sdkTestBody under sdkTestSecret, sdkTestDeliveryID at 1743495334,
	// computed once (the same golden values as the SDK's own tests).
	testUnix              = 1743495334
	testServiceSignature  = "621238e3b818e2f28a04ad49ee8c597cf2b8eb21e5ce13db534c66e9f0ec0fd1"
	testStandardSignature = "v1,3pC/+wOudbVasE5Y9rJDrx11nsyX/RLCcXT49g5TVSg="
)

func TestVerifyWebhookAcceptsWhatTheServiceSigns(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	id := uuid.New()
	body := []byte(`{"event":"usage.threshold","data":{},"timestamp":"2025-04-18T13:02:11Z"}`)
	h, err := webhook.Headers(secret, id, time.Now(), body)
	require.NoError(t, err)
	event, err := parseclient.VerifyWebhook(secret, h, body, 0)
	require.NoError(t, err)
	require.Equal(t, parseclient.WebhookEventTypeUsageThreshold, event.Event)
	_, err = parseclient.VerifyWebhook(webhook.NewSecret(), h, body, 0)
	require.ErrorIs(t, err, parseclient.ErrWebhookSignature)
}

func TestVerifyWebhookAcceptsTheStandardWebhooksLibrarysSignature(t *testing.T) {
	t.Parallel()
	wh, err := standardwebhooks.NewWebhook(sdkTestSecret)
	require.NoError(t, err)
	ts := time.Now()
	sig, err := wh.Sign(sdkTestDeliveryID, ts, []byte(sdkTestBody))
	require.NoError(t, err)
	h := http.Header{}
	h.Set("webhook-id", sdkTestDeliveryID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	event, err := parseclient.VerifyWebhook(sdkTestSecret, h, []byte(sdkTestBody), 0)
	require.NoError(t, err)
	job, err := event.Data.AsWebhookJobData()
	require.NoError(t, err)
	require.Equal(t, 42, job.TransactionsCount)
}

// verifyBody is the SDK's VerifyWebhook without the event it decodes.
func verifyBody(secret string, h http.Header, body []byte, tolerance time.Duration) error {
	_, err := parseclient.VerifyWebhook(secret, h, body, tolerance)
	return err
}
