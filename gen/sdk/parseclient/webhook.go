package parseclient

// Handwritten, not generated: `make gen` writes only parseclient.gen.go.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a delivery's timestamp may be from the receiver's clock
// when VerifyWebhook is given no tolerance.
const DefaultWebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook; test with errors.Is.
var (
	// ErrWebhookHeaders: neither signature scheme's headers are present and well-formed.
	ErrWebhookHeaders = errors.New("webhook signature headers are missing or malformed")
	// ErrWebhookSignature: no signature matches the body and the secret.
	ErrWebhookSignature = errors.New("no webhook signature matches")
	// ErrWebhookTimestamp: a signature matches but its timestamp is outside the tolerance
	// (a replay, or a clock far off).
	ErrWebhookTimestamp = errors.New("webhook timestamp is outside the tolerance")
	// ErrWebhookPayload: the signature holds but the body is not a webhook event.
	ErrWebhookPayload = errors.New("webhook body is not an event")
)

// VerifyWebhook checks that a webhook delivery comes from the service: body is the raw request
// body as received (before any JSON parsing), headers the request's headers and secret the
// account's signing secret ("whsec_..."). It accepts the delivery when either signature
// matches, compared in constant time:
//
//   - X-Service-Signature, the lowercase hex HMAC-SHA256 of "<X-Service-Timestamp>.<body>"
//     keyed with the whole secret string; or
//   - any of the space-separated "v1,<base64>" signatures of the Standard Webhooks header
//     webhook-signature, the HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with
//     the base64-decoded part of the secret after "whsec_", in standard base64 with padding;
//
// and the matching signature's timestamp is within tolerance of the current time (tolerance <= 0
// means DefaultWebhookTolerance, 5 minutes). Errors wrap ErrWebhookHeaders, ErrWebhookSignature
// or ErrWebhookTimestamp. A verified body is decoded into the returned event (an error wrapping
// ErrWebhookPayload when it is not one; event types added later decode too, with their data
// left for the caller). After it succeeds, de-duplicate by X-Service-Delivery-Id.
func VerifyWebhook(secret string, headers http.Header, body []byte, tolerance time.Duration) (WebhookEvent, error) {
	return VerifyWebhookAt(secret, headers, body, tolerance, time.Now())
}

// VerifyWebhookAt is VerifyWebhook with the receiver's clock reading now.
func VerifyWebhookAt(secret string, headers http.Header, body []byte, tolerance time.Duration, now time.Time) (WebhookEvent, error) {
	if err := verifySignature(secret, headers, body, tolerance, now); err != nil {
		return WebhookEvent{}, err
	}
	var event WebhookEvent
	if err := json.Unmarshal(body, &event); err != nil {
		return WebhookEvent{}, fmt.Errorf("%w: %v", ErrWebhookPayload, err)
	}
	if event.Event == "" {
		return WebhookEvent{}, fmt.Errorf("%w: it has no event type", ErrWebhookPayload)
	}
	return event, nil
}

// verifySignature is VerifyWebhookAt's check of the signatures.
func verifySignature(secret string, headers http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	var (
		present   bool  // some scheme's headers are present and well-formed
		malformed error // why a present scheme's headers could not be used
	)
	check := func(ts int64) error {
		if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
			return fmt.Errorf("%w: timestamp %d is %s from now, more than %s", ErrWebhookTimestamp, ts, d.Abs().Truncate(time.Second), tolerance)
		}
		return nil
	}

	// X-Service-Signature over "<timestamp>.<body>", keyed with the whole secret string.
	if sig, tsText := headers.Get("X-Service-Signature"), headers.Get("X-Service-Timestamp"); sig != "" || tsText != "" {
		ts, tsErr := parseWebhookTimestamp(tsText)
		want, hexErr := hex.DecodeString(strings.TrimSpace(sig))
		switch {
		case tsErr != nil:
			malformed = fmt.Errorf("%w: X-Service-Timestamp: %v", ErrWebhookHeaders, tsErr)
		case hexErr != nil || len(want) != sha256.Size:
			malformed = fmt.Errorf("%w: X-Service-Signature is not a hex HMAC-SHA256", ErrWebhookHeaders)
		default:
			present = true
			if hmac.Equal(want, webhookMAC([]byte(secret), strings.TrimSpace(tsText)+".", body)) {
				return check(ts)
			}
		}
	}

	// Standard Webhooks: webhook-signature over "<webhook-id>.<webhook-timestamp>.<body>".
	id, tsText, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id != "" || tsText != "" || sigs != "" {
		ts, tsErr := parseWebhookTimestamp(tsText)
		key, keyErr := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		switch {
		case id == "" || sigs == "":
			malformed = fmt.Errorf("%w: webhook-id and webhook-signature are both required", ErrWebhookHeaders)
		case tsErr != nil:
			malformed = fmt.Errorf("%w: webhook-timestamp: %v", ErrWebhookHeaders, tsErr)
		case keyErr != nil:
			// Not a Standard Webhooks secret: only X-Service-Signature can be checked.
			malformed = fmt.Errorf("%w: the secret is not \"whsec_\" followed by base64", ErrWebhookSignature)
		default:
			present = true
			// Compared as text, as the Standard Webhooks libraries do: only the canonical base64
			// of the HMAC matches. (Decoding first also let a signature whose last character
			// differs in the unused padding bits pass: one delivery, many signatures.)
			want := []byte("v1," + base64.StdEncoding.EncodeToString(webhookMAC(key, id+"."+strings.TrimSpace(tsText)+".", body)))
			for sig := range strings.FieldsSeq(sigs) {
				if hmac.Equal([]byte(sig), want) {
					return check(ts)
				}
			}
		}
	}

	switch {
	case present:
		return ErrWebhookSignature
	case malformed != nil:
		return malformed
	}
	return fmt.Errorf("%w: expected X-Service-Signature and X-Service-Timestamp, or webhook-id, webhook-timestamp and webhook-signature", ErrWebhookHeaders)
}

// parseWebhookTimestamp reads Unix seconds.
func parseWebhookTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing")
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not Unix seconds", s)
	}
	return ts, nil
}

// webhookMAC returns the HMAC-SHA256 of prefix followed by body under key.
func webhookMAC(key []byte, prefix string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(prefix))
	m.Write(body)
	return m.Sum(nil)
}
