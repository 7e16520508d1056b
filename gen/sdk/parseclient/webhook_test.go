package parseclient_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/gen/sdk/internal/check"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

const (
	testSecret     = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	testDeliveryID = "2c1d0e9f-8a7b-4c6d-9e5f-4a3b2c1d0e9f"
	testBody       = `{"event":"job.completed","data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"completed","bank_name":"Deutsche Bank","transactions_count":42,"created_at":"2025-04-01T08:15:30Z"},"timestamp":"2025-04-01T08:15:34Z"}`
	// The signatures of testBody under testSecret, testDeliveryID at 1743495334, computed once.
	testUnix              = 1743495334
	testServiceSignature  = "621238e3b818e2f28a04ad49ee8c597cf2b8eb21e5ce13db534c66e9f0ec0fd1"
	testStandardSignature = "v1,3pC/+wOudbVasE5Y9rJDrx11nsyX/RLCcXT49g5TVSg="
)

// goldenHeaders are the headers of the golden delivery.
func goldenHeaders() http.Header {
	h := http.Header{}
	h.Set("X-Service-Signature", testServiceSignature)
	h.Set("X-Service-Timestamp", strconv.Itoa(testUnix))
	h.Set("X-Service-Delivery-Id", testDeliveryID)
	h.Set("webhook-id", testDeliveryID)
	h.Set("webhook-timestamp", strconv.Itoa(testUnix))
	h.Set("webhook-signature", testStandardSignature)
	return h
}

// sign is an independent signer, written from the API documentation: both schemes over body.
func sign(secret, id string, ts time.Time, body string) http.Header {
	unix := strconv.FormatInt(ts.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(unix + "." + body))
	h := http.Header{}
	h.Set("X-Service-Signature", hex.EncodeToString(m.Sum(nil)))
	h.Set("X-Service-Timestamp", unix)
	h.Set("X-Service-Delivery-Id", id)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		panic(err)
	}
	m = hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + unix + "." + body))
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", unix)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return h
}

func TestVerifyWebhookAt(t *testing.T) {
	t.Parallel()
	at := time.Unix(testUnix, 0)
	without := func(names ...string) http.Header {
		h := goldenHeaders()
		for _, n := range names {
			h.Del(n)
		}
		return h
	}
	with := func(name, value string) http.Header {
		h := goldenHeaders()
		h.Set(name, value)
		return h
	}
	service := []string{"X-Service-Signature", "X-Service-Timestamp"}
	standard := []string{"webhook-id", "webhook-timestamp", "webhook-signature"}
	otherSecret := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))

	tests := []struct {
		name      string
		secret    string
		headers   http.Header
		body      string
		now       time.Time
		tolerance time.Duration
		wantErr   error
	}{
		{name: "the golden delivery with both signatures is accepted", headers: goldenHeaders()},
		{name: "X-Service-Signature alone is enough", headers: without(standard...)},
		{name: "the Standard Webhooks signature alone is enough", headers: without(service...)},
		{name: "an uppercase hex X-Service-Signature is accepted",
			headers: func() http.Header {
				h := without(standard...)
				h.Set("X-Service-Signature", strings.ToUpper(testServiceSignature))
				return h
			}()},
		{name: "any one of several space-separated signatures may match",
			headers: with("webhook-signature", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= v2,xyz "+testStandardSignature)},
		{name: "a wrong X-Service-Signature is still accepted when the Standard Webhooks one matches",
			headers: with("X-Service-Signature", strings.Repeat("0", 64))},
		{name: "a changed body matches no signature", headers: goldenHeaders(), body: testBody + " ", wantErr: parseclient.ErrWebhookSignature},
		{name: "another secret matches no signature", secret: otherSecret, headers: goldenHeaders(), wantErr: parseclient.ErrWebhookSignature},
		{name: "a changed delivery id breaks the Standard Webhooks signature",
			headers: func() http.Header { h := without(service...); h.Set("webhook-id", uuid.NewString()); return h }(), wantErr: parseclient.ErrWebhookSignature},
		{name: "a changed timestamp breaks X-Service-Signature",
			headers: func() http.Header { h := without(standard...); h.Set("X-Service-Timestamp", "1743495335"); return h }(),
			wantErr: parseclient.ErrWebhookSignature},
		{name: "only v1 signatures count",
			headers: func() http.Header {
				h := without(service...)
				h.Set("webhook-signature", "v2,"+strings.TrimPrefix(testStandardSignature, "v1,"))
				return h
			}(),
			wantErr: parseclient.ErrWebhookSignature},
		{name: "a signature 4 minutes 59 seconds old is within the default tolerance", headers: goldenHeaders(), now: at.Add(4*time.Minute + 59*time.Second)},
		{name: "a signature 5 minutes 1 second old is outside the default tolerance", headers: goldenHeaders(), now: at.Add(5*time.Minute + time.Second),
			wantErr: parseclient.ErrWebhookTimestamp},
		{name: "a signature from 5 minutes 1 second in the future is refused", headers: goldenHeaders(), now: at.Add(-5*time.Minute - time.Second),
			wantErr: parseclient.ErrWebhookTimestamp},
		{name: "a negative tolerance means the default", headers: goldenHeaders(), now: at.Add(4 * time.Minute), tolerance: -time.Second},
		{name: "a tolerance given is used", headers: goldenHeaders(), now: at.Add(11 * time.Second), tolerance: 10 * time.Second,
			wantErr: parseclient.ErrWebhookTimestamp},
		{name: "no signature headers at all is a headers error", headers: http.Header{}, wantErr: parseclient.ErrWebhookHeaders},
		{name: "a signature without its timestamp is a headers error", headers: without(append(standard, "X-Service-Timestamp")...),
			wantErr: parseclient.ErrWebhookHeaders},
		{name: "a timestamp that is not a number is a headers error",
			headers: func() http.Header { h := without(standard...); h.Set("X-Service-Timestamp", "yesterday"); return h }(),
			wantErr: parseclient.ErrWebhookHeaders},
		{name: "a Standard Webhooks signature without webhook-id is a headers error", headers: without(append(service, "webhook-id")...),
			wantErr: parseclient.ErrWebhookHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			secret, body, now := tt.secret, tt.body, tt.now
			if secret == "" {
				secret = testSecret
			}
			if body == "" {
				body = testBody
			}
			if now.IsZero() {
				now = at
			}
			event, err := parseclient.VerifyWebhookAt(secret, tt.headers, []byte(body), tt.tolerance, now)
			if tt.wantErr == nil {
				check.NoError(t, err)
				check.Equal(t, parseclient.WebhookEventTypeJobCompleted, event.Event)
				return
			}
			check.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestVerifyWebhookPassesTheStandardWebhooksSpecVector(t *testing.T) {
	t.Parallel()
	// The test vector of the Standard Webhooks specification.
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	// The signature holds; the vector's body is no event of this service's.
	_, err := parseclient.VerifyWebhookAt("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, []byte(`{"test": 2432232314}`), 0, time.Unix(1614265330, 0))
	check.ErrorIs(t, err, parseclient.ErrWebhookPayload)
}

func TestVerifyWebhookAgreesWithAnIndependentSigner(t *testing.T) {
	t.Parallel()
	now := time.Now()
	h := sign(testSecret, testDeliveryID, now, testBody)
	_, err := parseclient.VerifyWebhook(testSecret, h, []byte(testBody), 0)
	check.NoError(t, err)
	golden := sign(testSecret, testDeliveryID, time.Unix(testUnix, 0), testBody)
	check.Equal(t, goldenHeaders(), golden, "the independent signer reproduces the golden signatures")
}

// ExampleVerifyWebhook shows an endpoint that verifies deliveries before it trusts them.
func ExampleVerifyWebhook() {
	secret := testSecret // the signing_secret returned by POST /api/v1/webhooks; keep it secret

	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Verify the raw bytes, before any JSON parsing.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		event, err := parseclient.VerifyWebhook(secret, r.Header, body, 5*time.Minute)
		if err != nil {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		// De-duplicate by X-Service-Delivery-Id, queue the event, and answer quickly.
		job, _ := event.Data.AsWebhookJobData()
		fmt.Println("received", event.Event, "for job", job.JobId, "delivery", r.Header.Get("X-Service-Delivery-Id"))
		w.WriteHeader(http.StatusNoContent)
	})

	// A delivery as the service sends it.
	delivery := func(body string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/hooks/statementmatch", strings.NewReader(body))
		for name, values := range sign(secret, testDeliveryID, time.Now(), testBody) {
			r.Header[name] = values
		}
		return r
	}
	for _, body := range []string{testBody, strings.Replace(testBody, `"transactions_count":42`, `"transactions_count":43`, 1)} {
		rec := httptest.NewRecorder()
		endpoint.ServeHTTP(rec, delivery(body))
		fmt.Println(rec.Code)
	}
	// Output:
	// received job.completed for job 3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f delivery 2c1d0e9f-8a7b-4c6d-9e5f-4a3b2c1d0e9f
	// 204
	// 401
}
