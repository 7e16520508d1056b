package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The delivery headers. http.Header canonicalises the Standard Webhooks names
// ("Webhook-Id"); header names are case-insensitive on the wire.
const (
	HeaderSignature        = "X-Service-Signature"
	HeaderTimestamp        = "X-Service-Timestamp"
	HeaderDeliveryID       = "X-Service-Delivery-Id"
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
	// UserAgent identifies the deliveries.
	UserAgent = "statementd-webhooks/1"
)

// secretPrefix starts every signing secret; the rest is the base64 Standard Webhooks key.
const secretPrefix = "whsec_"

// ErrSecret is returned by Headers for a secret that is not "whsec_" + base64.
var ErrSecret = errors.New(`webhook signing secret is not "whsec_" followed by base64`)

// Headers returns the headers of one delivery attempt of body, signed with secret (the account's
// "whsec_<base64>" string) at ts:
//
//   - Content-Type application/json and User-Agent statementd-webhooks/1;
//   - X-Service-Timestamp (Unix seconds of ts), X-Service-Delivery-Id, and X-Service-Signature:
//     lowercase hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the whole secret string;
//   - Standard Webhooks: webhook-id (the delivery id), webhook-timestamp (the same seconds) and
//     webhook-signature "v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">" keyed with the
//     base64-decoded part of the secret after "whsec_".
//
// A malformed secret is ErrSecret.
func Headers(secret string, deliveryID uuid.UUID, ts time.Time, body []byte) (http.Header, error) {
	key, err := secretKey(secret)
	if err != nil {
		return nil, err
	}
	unix := strconv.FormatInt(ts.Unix(), 10)
	id := deliveryID.String()

	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderSignature, hex.EncodeToString(mac([]byte(secret), unix+".", body)))
	h.Set(HeaderTimestamp, unix)
	h.Set(HeaderDeliveryID, id)
	h.Set(HeaderWebhookID, id)
	h.Set(HeaderWebhookTimestamp, unix)
	h.Set(HeaderWebhookSignature, "v1,"+base64.StdEncoding.EncodeToString(mac(key, id+"."+unix+".", body)))
	return h, nil
}

// secretKey returns the Standard Webhooks key of a "whsec_<base64>" secret.
func secretKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok || rest == "" {
		return nil, ErrSecret
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) == 0 {
		return nil, ErrSecret
	}
	return key, nil
}

// mac returns the HMAC-SHA256 of prefix followed by body under key.
func mac(key []byte, prefix string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(prefix))
	m.Write(body)
	return m.Sum(nil)
}
