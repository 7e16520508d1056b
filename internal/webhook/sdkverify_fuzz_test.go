package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/webhook"
)

// FuzzSigHeader fuzzes the Go SDK's VerifyWebhookAt, its check of a delivery's signature
// headers, here beside the signer (the SDK module itself depends on nothing of the server's). A
// body that is signed correctly but is not an event passes the signature check and then fails
// with ErrWebhookPayload, which counts as accepted here. The
// fuzzer sets the secret, the headers of both schemes (one timestamp for both), the body and the
// receiver's clock; besides not panicking:
//
//   - it accepts exactly when an independent check written from the documentation does: some
//     scheme's signature is the HMAC of what that scheme signs, in the encoding the documentation
//     gives (lowercase hex, which the SDK also takes in uppercase; "v1," and standard base64), and
//     that timestamp is within 5 minutes of the clock; its errors are ErrWebhookHeaders,
//     ErrWebhookSignature or ErrWebhookTimestamp;
//
// and, for a delivery the service signs (webhook.Headers) with a "whsec_" secret made of the
// fuzzer's secret bytes, at a time of the fuzzer's:
//
//   - it verifies, with both schemes and with each alone, 4 min 59 s either side of its time,
//     and not 5 min 1 s either side (ErrWebhookTimestamp);
//   - it does not verify after any change of one byte of the body, of the secret, or of any
//     header value a scheme signs or is (the signature, the timestamp, webhook-id), the one
//     exception being the letter case of the hex X-Service-Signature, which names the same bytes.
func FuzzSigHeader(f *testing.F) {
	body := []byte(sdkTestBody)
	ts := strconv.Itoa(testUnix)
	for _, seed := range []struct {
		secret, id, ts, sig, stdSig string
		body                        []byte
		now                         int64
	}{
		{sdkTestSecret, sdkTestDeliveryID, ts, testServiceSignature, testStandardSignature, body, testUnix},
		{sdkTestSecret, sdkTestDeliveryID, ts, testServiceSignature, "", body, testUnix + 299},
		{sdkTestSecret, sdkTestDeliveryID, ts, "", testStandardSignature, body, testUnix - 301},
		{sdkTestSecret, sdkTestDeliveryID, ts, strings.ToUpper(testServiceSignature), "", body, testUnix},
		{sdkTestSecret, sdkTestDeliveryID, " " + ts + " ", testServiceSignature, "v2,x " + testStandardSignature, body, testUnix},
		{sdkTestSecret, "", ts, "", testStandardSignature, body, testUnix},
		{sdkTestSecret, sdkTestDeliveryID, "+" + ts, testServiceSignature, testStandardSignature, body, testUnix},
		{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "",
			"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", []byte(`{"test": 2432232314}`), 1614265330},
		{"not a whsec secret", "id", "0", "00", "v1,", nil, 0},
		{"", "", "", "", "", nil, -1 << 63},
	} {
		f.Add(seed.secret, seed.id, seed.ts, seed.sig, seed.stdSig, seed.body, seed.now, uint16(7), byte(0x20))
	}
	f.Fuzz(func(t *testing.T, secret, id, ts, sig, stdSig string, body []byte, now int64, pos uint16, flip byte) {
		h := http.Header{}
		for name, v := range map[string]string{"X-Service-Signature": sig, "X-Service-Timestamp": ts,
			"webhook-id": id, "webhook-timestamp": ts, "webhook-signature": stdSig} {
			if v != "" {
				h.Set(name, v)
			}
		}
		at := time.Unix(now, 0)
		requireAgreement(t, secret, h, body, at)
		roundTrip(t, []byte(secret), id, now, body, int(pos), flip|1)
	})
}

// requireAgreement checks VerifyWebhookAt against documentedCheck.
func requireAgreement(t *testing.T, secret string, h http.Header, body []byte, now time.Time) {
	t.Helper()
	err := verifySignature(secret, h, body, now)
	if want := documentedCheck(secret, h, body, now); (err == nil) != want {
		t.Fatalf("VerifyWebhookAt(%q, %q, %q, %d) = %v; the documented check accepts: %v", secret, h, body, now.Unix(), err, want)
	}
	if err != nil && !errors.Is(err, parseclient.ErrWebhookHeaders) && !errors.Is(err, parseclient.ErrWebhookSignature) &&
		!errors.Is(err, parseclient.ErrWebhookTimestamp) {
		t.Fatalf("VerifyWebhookAt: %v is none of the documented errors", err)
	}
}

// verifySignature is the SDK's VerifyWebhookAt as a check of the signature alone.
func verifySignature(secret string, h http.Header, body []byte, now time.Time) error {
	_, err := parseclient.VerifyWebhookAt(secret, h, body, 0, now)
	if errors.Is(err, parseclient.ErrWebhookPayload) {
		return nil
	}
	return err
}

// documentedCheck is the check the SDK's documentation describes, written again independently.
func documentedCheck(secret string, h http.Header, body []byte, now time.Time) bool {
	within := func(text string) bool {
		ts, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return false
		}
		d := now.Sub(time.Unix(ts, 0))
		return d <= 5*time.Minute && d >= -5*time.Minute
	}
	mac := func(key []byte, parts ...string) []byte {
		m := hmac.New(sha256.New, key)
		for _, p := range parts {
			m.Write([]byte(p))
		}
		m.Write(body)
		return m.Sum(nil)
	}
	ts := strings.TrimSpace(h.Get("X-Service-Timestamp"))
	sig := strings.ToLower(strings.TrimSpace(h.Get("X-Service-Signature")))
	if ts != "" && sig == hex.EncodeToString(mac([]byte(secret), ts, ".")) && within(ts) {
		return true
	}
	id, ts := h.Get("webhook-id"), strings.TrimSpace(h.Get("webhook-timestamp"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if id == "" || ts == "" || err != nil {
		return false
	}
	want := "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ".", ts, "."))
	for _, s := range strings.Fields(h.Get("webhook-signature")) {
		if s == want {
			return within(ts)
		}
	}
	return false
}

// roundTrip signs a delivery as the service does and checks that it verifies, and that no one
// byte changed (at pos in each signed value, by xor with flip, which is odd) verifies.
func roundTrip(t *testing.T, key []byte, idSeed string, unix int64, body []byte, pos int, flip byte) {
	t.Helper()
	if len(key) == 0 {
		key = []byte{0}
	}
	secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	at := time.Unix(unix%(1<<40), 0) // ±35,000 years, so that at±5 min is a time too
	signed, err := webhook.Headers(secret, uuid.NewSHA1(uuid.NameSpaceURL, []byte(idSeed)), at, body)
	if err != nil {
		t.Fatalf("webhook.Headers: %v", err)
	}
	verify := func(secret string, h http.Header, body []byte, now time.Time) error {
		t.Helper()
		requireAgreement(t, secret, h, body, now)
		return verifySignature(secret, h, body, now)
	}
	for _, d := range []time.Duration{0, 299 * time.Second, -299 * time.Second} {
		if err := verify(secret, signed, body, at.Add(d)); err != nil {
			t.Fatalf("a signed delivery does not verify %s from its time: %v", d, err)
		}
	}
	for _, d := range []time.Duration{301 * time.Second, -301 * time.Second} {
		if err := verify(secret, signed, body, at.Add(d)); !errors.Is(err, parseclient.ErrWebhookTimestamp) {
			t.Fatalf("a signed delivery %s from its time: %v, want ErrWebhookTimestamp", d, err)
		}
	}

	other := append([]byte(nil), key...)
	other[pos%len(other)] ^= flip
	if err := verify("whsec_"+base64.StdEncoding.EncodeToString(other), signed, body, at); !errors.Is(err, parseclient.ErrWebhookSignature) {
		t.Fatalf("a delivery verifies under another secret: %v", err)
	}
	if len(body) > 0 {
		changed := append([]byte(nil), body...)
		changed[pos%len(changed)] ^= flip
		if err := verify(secret, signed, changed, at); !errors.Is(err, parseclient.ErrWebhookSignature) {
			t.Fatalf("a delivery verifies with byte %d of its body changed: %v", pos%len(changed), err)
		}
	}

	schemes := [][]string{{"X-Service-Signature", "X-Service-Timestamp"}, {"webhook-id", "webhook-timestamp", "webhook-signature"}}
	for _, signs := range schemes {
		alone := http.Header{}
		for _, name := range signs {
			alone.Set(name, signed.Get(name))
		}
		if err := verify(secret, alone, body, at); err != nil {
			t.Fatalf("%s alone does not verify: %v", signs, err)
		}
		for _, name := range signs {
			v := []byte(alone.Get(name))
			i := pos % len(v)
			was := v[i]
			v[i] ^= flip
			changed := alone.Clone()
			changed.Set(name, string(v))
			err := verify(secret, changed, body, at)
			sameBytes := name == "X-Service-Signature" && was >= 'a' && was <= 'f' && v[i] == was-'a'+'A'
			switch {
			case sameBytes && err != nil:
				t.Fatalf("%s in uppercase hex does not verify: %v", name, err)
			case !sameBytes && err == nil:
				t.Fatalf("a delivery verifies with %s %q changed to %q", name, alone.Get(name), v)
			}
		}
	}
}
