package webhook_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/webhook"
)

// The golden delivery: the job.completed example of the API documentation, signed under the
// documentation's example secret. The signatures were computed once and are fixed here, so any
// change to the signing (or to Body's bytes) shows.
const (
	goldenSecret     = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	goldenDeliveryID = "2c1d0e9f-8a7b-4c6d-9e5f-4a3b2c1d0e9f"
	goldenUnix       = 1743495334 // 2025-04-01T08:15:34Z
	goldenBody       = `{"event":"job.completed","data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"completed","bank_name":"Deutsche Bank","transactions_count":42,"created_at":"2025-04-01T08:15:30Z"},"timestamp":"2025-04-01T08:15:34Z"}`
	// Lowercase hex HMAC-SHA256 of "1743495334.<body>" keyed with the whole secret string.
	goldenServiceSignature = "621238e3b818e2f28a04ad49ee8c597cf2b8eb21e5ce13db534c66e9f0ec0fd1"
	// Base64 HMAC-SHA256 of "<id>.1743495334.<body>" keyed with base64-decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").
	goldenStandardSignature = "v1,3pC/+wOudbVasE5Y9rJDrx11nsyX/RLCcXT49g5TVSg="
)

func TestHeadersSignTheGoldenDeliveryExactly(t *testing.T) {
	t.Parallel()
	h, err := webhook.Headers(goldenSecret, uuid.MustParse(goldenDeliveryID), time.Unix(goldenUnix, 0), []byte(goldenBody))
	require.NoError(t, err)
	require.Equal(t, http.Header{
		"Content-Type":          {"application/json"},
		"User-Agent":            {"statementd-webhooks/1"},
		"X-Service-Signature":   {goldenServiceSignature},
		"X-Service-Timestamp":   {"1743495334"},
		"X-Service-Delivery-Id": {goldenDeliveryID},
		"Webhook-Id":            {goldenDeliveryID},
		"Webhook-Timestamp":     {"1743495334"},
		"Webhook-Signature":     {goldenStandardSignature},
	}, h)
}

func TestTheStandardWebhooksLibraryAgreesWithHeaders(t *testing.T) {
	t.Parallel()
	wh, err := standardwebhooks.NewWebhook(goldenSecret)
	require.NoError(t, err)

	t.Run("it computes the same golden signature", func(t *testing.T) {
		t.Parallel()
		sig, err := wh.Sign(goldenDeliveryID, time.Unix(goldenUnix, 0), []byte(goldenBody))
		require.NoError(t, err)
		require.Equal(t, goldenStandardSignature, sig)
	})
	t.Run("it verifies a delivery signed now", func(t *testing.T) {
		t.Parallel()
		body := []byte(`{"event":"job.failed","data":{},"timestamp":"2025-04-01T08:15:34Z"}`)
		h, err := webhook.Headers(goldenSecret, uuid.New(), time.Now(), body)
		require.NoError(t, err)
		require.NoError(t, wh.Verify(body, h))
		require.Error(t, wh.Verify(append(body, ' '), h), "a changed body fails")
	})
	t.Run("it verifies a new secret's signature", func(t *testing.T) {
		t.Parallel()
		secret := webhook.NewSecret()
		other, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		body := []byte(`{}`)
		h, err := webhook.Headers(secret, uuid.New(), time.Now(), body)
		require.NoError(t, err)
		require.NoError(t, other.Verify(body, h))
		require.Error(t, wh.Verify(body, h), "another secret fails")
	})
}

func TestHeadersRefuseAMalformedSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
	}{
		{name: "an empty secret", secret: ""},
		{name: "a secret without the whsec_ prefix", secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{name: "a prefix alone", secret: "whsec_"},
		{name: "a secret that is not base64", secret: "whsec_not*base64!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := webhook.Headers(tt.secret, uuid.New(), time.Now(), []byte(`{}`))
			require.ErrorIs(t, err, webhook.ErrSecret)
		})
	}
}

func TestNewSecretIsWhsecAndBase64Of32RandomBytes(t *testing.T) {
	t.Parallel()
	a, b := webhook.NewSecret(), webhook.NewSecret()
	require.NotEqual(t, a, b)
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, "whsec_")
		require.True(t, ok, s)
		key, err := base64.StdEncoding.DecodeString(rest)
		require.NoError(t, err)
		require.Len(t, key, 32)
	}
}
