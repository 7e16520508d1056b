package contracttests

// The Auth rows of the reliability matrix (A2, A3, A5, A7) that TestTokenEndpoint,
// TestBearerTokens, TestExpiredToken, TestAPIKeys and the rate-limit tests do not prove on their
// own. A6 is TestOtherTenantsObjectsAreNotFound, which uses the owner views defined here.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/platform/pgembed"
	"github.com/statementmatch/service/internal/postgres"
)

// The documented budgets: failed client authentications per source address at the token
// endpoint, and requests without valid credentials per source address on each API.
const (
	tokenAddressBudget = 100
	anonymousBudget    = 60
)

// randomBase62 returns n random characters of the credentials' alphabet.
func randomBase62(t testing.TB, n int) string {
	t.Helper()
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	out := make([]byte, n)
	for i := range out {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		require.NoError(t, err)
		out[i] = alphabet[k.Int64()]
	}
	return string(out)
}

// answered is a response with its body read.
type answered struct {
	*http.Response
	body []byte
}

// send does req with client and reads the whole answer.
func send(t testing.TB, client *http.Client, req *http.Request) answered {
	t.Helper()
	resp, err := client.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return answered{Response: resp, body: body}
}

// tokenForm is one of the three ways to send client credentials to POST /api/v1/token.
type tokenForm int

const (
	jsonBody tokenForm = iota
	formBody
	httpBasic
)

// tokenRequest builds a token request of the form given.
func tokenRequest(t testing.TB, base string, form tokenForm, clientID, secret string) *http.Request {
	t.Helper()
	var (
		body        string
		contentType = "application/x-www-form-urlencoded"
	)
	switch form {
	case jsonBody:
		b, err := json.Marshal(map[string]string{"client_id": clientID, "client_secret": secret})
		require.NoError(t, err)
		body, contentType = string(b), "application/json"
	case formBody:
		body = url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}}.Encode()
	case httpBasic:
		body = url.Values{"grant_type": {"client_credentials"}}.Encode()
	}
	req, err := http.NewRequest(http.MethodPost, base+"/api/v1/token", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	if form == httpBasic {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	return req
}

// fromAddress returns an HTTP client whose connections come from the loopback address ip, and
// that checks every answer against a's spec as the harness's clients do.
func fromAddress(t *testing.T, a *api, ip string) func(*http.Request) answered {
	t.Helper()
	client := &http.Client{Transport: loopbackTransport(t, ip), Timeout: 30 * time.Second}
	return func(req *http.Request) answered {
		t.Helper()
		got := send(t, client, req)
		require.NoError(t, a.validate(req, got.Response, got.body), "%s %s from %s", req.Method, req.URL.Path, ip)
		return got
	}
}

// loopbackTransport dials from the loopback address ip, closing its connections when the test
// ends.
func loopbackTransport(t *testing.T, ip string) *http.Transport {
	t.Helper()
	transport := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(transport.CloseIdleConnections)
	return transport
}

// requireThrottled checks a 429 of a per-address budget: Retry-After up to the end of the
// minute, and the spent budget in the X-RateLimit headers.
func requireThrottled(t *testing.T, got answered, limit int, what string) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, got.StatusCode, "%s: %s", what, got.body)
	retry, err := strconv.Atoi(got.Header.Get("Retry-After"))
	require.NoError(t, err, "%s: Retry-After is whole seconds", what)
	require.True(t, retry >= 1 && retry <= 60, "%s: Retry-After %d is within the minute", what, retry)
	require.Equal(t, strconv.Itoa(limit), got.Header.Get("X-RateLimit-Limit"), what)
	require.Equal(t, "0", got.Header.Get("X-RateLimit-Remaining"), what)
	reset, err := strconv.ParseInt(got.Header.Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err, what)
	require.Zero(t, reset%60, "%s: the window is a calendar minute", what)
	require.InDelta(t, time.Now().Unix()+int64(retry), reset, 2, "%s: Retry-After counts down to X-RateLimit-Reset", what)
}

// TestTokenBruteForceThrottled (A2): failed client authentications from one address are
// throttled whatever client ids they name. Spraying 130 guesses at once, each for another
// client id, over both processes of a deployment, both environments and all three request
// forms, gets exactly 100 failures (the documented budget) from the address in the minute: every
// one the same 401 byte for byte, whether the id is unknown, its secret wrong or the id absurd;
// the rest, and then even the right credentials, get 429 with Retry-After and the spent budget in
// the X-RateLimit headers. Forged forwarding headers do not get around it; a token issued before
// still works, and another address is not affected.
func TestTokenBruteForceThrottled(t *testing.T) {
	t.Parallel()
	one := startServer(t)
	two := startServer(t, "DATABASE_URL="+one.DatabaseURL, "STATEMENTD_DATA_DIR="+one.DataDir)
	acct := one.newAccount(t, "Targeted")
	clientID, secret := one.newClient(t, acct)
	earlier := one.token(t, one.ReconURL, clientID, secret)
	client := recon(t).client(t)
	bases := []string{one.ReconURL, two.ReconURL, one.SandboxURL, two.SandboxURL}
	awayFromMinuteEnd(10 * time.Second)

	// Four failures before the spray, all answered alike.
	wrong := send(t, client, tokenRequest(t, one.ReconURL, jsonBody, clientID, "cs_"+randomBase62(t, 43)))
	require.Equal(t, http.StatusUnauthorized, wrong.StatusCode, string(wrong.body))
	require.Equal(t, `Basic realm="statementd"`, wrong.Header.Get("WWW-Authenticate"))
	var body reconclient.Error
	require.NoError(t, json.Unmarshal(wrong.body, &body))
	require.Equal(t, reconclient.ErrorCodeAuthInvalid, body.Error)
	for name, req := range map[string]*http.Request{
		"an unknown client id": tokenRequest(t, two.SandboxURL, formBody, "cli_"+randomBase62(t, 24), secret),
		// Before the fix, an id too long to be a throttle key made the server answer 503.
		"a 400-character client id with HTTP Basic": tokenRequest(t, one.ReconURL, httpBasic, "cli_"+strings.Repeat("x", 396), secret),
		"the secret pasted as the client id":        tokenRequest(t, two.ReconURL, httpBasic, secret, clientID),
	} {
		got := send(t, client, req)
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, "%s: %s", name, got.body)
		require.Equal(t, string(wrong.body), string(got.body), "%s: the same body as a wrong secret, byte for byte", name)
	}
	const before = 4

	const spray = 130
	answers := make([]answered, spray)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range spray {
		req := tokenRequest(t, bases[i%len(bases)], tokenForm(i%3), "cli_"+randomBase62(t, 24), "cs_"+randomBase62(t, 43))
		wg.Go(func() {
			<-start
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err != nil {
				t.Error(err)
				return
			}
			answers[i] = answered{Response: resp, body: b}
		})
	}
	close(start)
	wg.Wait()
	require.False(t, t.Failed())

	failures := before
	for i, got := range answers {
		what := fmt.Sprintf("guess %d", i)
		switch got.StatusCode {
		case http.StatusUnauthorized:
			failures++
			require.Equal(t, string(wrong.body), string(got.body), "%s: every failure gets the same body", what)
			require.Equal(t, `Basic realm="statementd"`, got.Header.Get("WWW-Authenticate"), what)
		case http.StatusTooManyRequests:
			requireThrottled(t, got, tokenAddressBudget, what)
			require.NoError(t, json.Unmarshal(got.body, &body))
			require.Equal(t, reconclient.ErrorCodeLimitExceeded, body.Error, what)
		default:
			t.Fatalf("%s: %d %s", what, got.StatusCode, got.body)
		}
	}
	require.Equal(t, tokenAddressBudget, failures, "exactly the budget of failures gets through, across both processes")

	for i, base := range bases {
		got := send(t, client, tokenRequest(t, base, tokenForm(i%3), clientID, secret))
		requireThrottled(t, got, tokenAddressBudget, "the right credentials from the throttled address at "+base)
	}
	forged := tokenRequest(t, one.ReconURL, jsonBody, clientID, secret)
	forged.Header.Set("X-Forwarded-For", "203.0.113.7")
	forged.Header.Set("Forwarded", "for=203.0.113.7")
	forged.Header.Set("X-Real-Ip", "203.0.113.7")
	requireThrottled(t, send(t, client, forged), tokenAddressBudget, "a forged forwarding header")

	limits, err := reconClient(t, one.ReconURL).GetLimitsWithResponse(context.Background(), bearer(earlier))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, limits.StatusCode(), "a token issued before the attack still works: %s", limits.Body)

	elsewhere := fromAddress(t, recon(t), "127.0.0.2")
	got := elsewhere(tokenRequest(t, two.ReconURL, httpBasic, clientID, secret))
	require.Equal(t, http.StatusOK, got.StatusCode, "another address keeps its own budget: %s", got.body)
	var issued reconclient.AccessToken
	require.NoError(t, json.Unmarshal(got.body, &issued))
	one.remember(issued.AccessToken)
	got = elsewhere(tokenRequest(t, one.ReconURL, jsonBody, "cli_"+randomBase62(t, 24), secret))
	require.Equal(t, http.StatusUnauthorized, got.StatusCode, "and its failures are its own")

	one.requireNoSecretsInLogs(t)
}

// TestBadCredentialsOnTheAPIsAreThrottledPerAddress (A2 for the bearer credentials): 60
// requests a minute from one address whose credentials are refused, each a different key or
// token, get 401 with that budget counting down; the 61st gets 429 with Retry-After, in each
// API's error body. On the Parsing API every kind of bad key counts (random, malformed, another
// API's credentials); on the Reconciliation API production and sandbox share the budget. The
// token endpoint's budget is a separate one.
func TestBadCredentialsOnTheAPIsAreThrottledPerAddress(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "Neighbour")
	awayFromMinuteEnd(10 * time.Second)
	get := func(a *api, base, path, credential string) answered {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+credential)
		return send(t, a.client(t), req)
	}

	badKeys := []string{"smk_live_" + randomBase62(t, 31), "smk_test_" + randomBase62(t, 43), ten.ClientSecret, ten.ClientID, "sat_" + randomBase62(t, 43)}
	for len(badKeys) < anonymousBudget+1 {
		badKeys = append(badKeys, "smk_live_"+randomBase62(t, 43))
	}
	for i, key := range badKeys {
		got := get(parse(t), s.ParseURL, "/api/v1/status", key)
		var envelope parseclient.ErrorEnvelope
		require.NoError(t, json.Unmarshal(got.body, &envelope))
		require.False(t, bool(envelope.Ok))
		if i < anonymousBudget {
			require.Equal(t, http.StatusUnauthorized, got.StatusCode, "key %d: %s", i+1, got.body)
			require.Equal(t, parseclient.ErrorCodeAuthInvalid, envelope.Error)
			require.Equal(t, strconv.Itoa(anonymousBudget), got.Header.Get("X-RateLimit-Limit"))
			require.Equal(t, strconv.Itoa(anonymousBudget-i-1), got.Header.Get("X-RateLimit-Remaining"), "key %d", i+1)
			continue
		}
		requireThrottled(t, got, anonymousBudget, "the 61st bad key")
		require.Equal(t, parseclient.ErrorCodeRateLimited, envelope.Error)
	}

	for i := range anonymousBudget + 1 {
		base := []string{s.ReconURL, s.SandboxURL}[i%2]
		got := get(recon(t), base, "/api/v1/limits", "sat_"+randomBase62(t, 43))
		var body reconclient.Error
		require.NoError(t, json.Unmarshal(got.body, &body))
		if i < anonymousBudget {
			require.Equal(t, http.StatusUnauthorized, got.StatusCode, "token %d: %s", i+1, got.body)
			require.Equal(t, reconclient.ErrorCodeAuthInvalid, body.Error)
			require.Equal(t, strconv.Itoa(anonymousBudget-i-1), got.Header.Get("X-RateLimit-Remaining"), "token %d, production and sandbox count together", i+1)
			continue
		}
		requireThrottled(t, got, anonymousBudget, "the 61st bad token")
		require.Equal(t, reconclient.ErrorCodeLimitExceeded, body.Error)
	}

	token := s.token(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	require.Equal(t, http.StatusOK, get(recon(t), s.ReconURL, "/api/v1/limits", token).StatusCode,
		"the token endpoint has a budget of its own, and valid credentials are not limited by the address's")
	require.Equal(t, http.StatusOK, get(parse(t), s.ParseURL, "/api/v1/status", ten.APIKey).StatusCode)
	s.requireNoSecretsInLogs(t)
}

// call sends GET base+path with each Authorization header value given (none, one or several)
// and checks the answer against a's spec.
func call(t *testing.T, a *api, base, path string, authorization ...string) answered {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	require.NoError(t, err)
	for _, v := range authorization {
		req.Header.Add("Authorization", v)
	}
	return send(t, a.client(t), req)
}

// jwt returns a JWT of claims with the alg header given, signed with HMAC-SHA256 under key, or
// unsigned (an empty signature) when key is nil.
func jwt(t *testing.T, alg string, key []byte, claims map[string]any) string {
	t.Helper()
	enc := base64.RawURLEncoding
	header, err := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	signed := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	if key == nil {
		return signed + "."
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(signed))
	return signed + "." + enc.EncodeToString(mac.Sum(nil))
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// flip changes the character of s at i into another character of the credentials' alphabet.
func flip(s string, i int) string {
	c := s[i]
	switch {
	case c >= 'a' && c <= 'z':
		c -= 'a' - 'A'
	case c >= 'A' && c <= 'Z':
		c += 'a' - 'A'
	case c >= '0' && c <= '9':
		c = '0' + (c-'0'+1)%10
	default:
		c = 'x'
	}
	return s[:i] + string(c) + s[i+1:]
}

// TestTokenTampering (A3): a valid access token changed in any way, or something shaped like a
// token that is not one, is 401 AUTH_INVALID with error="invalid_token" in WWW-Authenticate, the
// same body for every one of them; the valid token keeps working throughout. Covered elsewhere
// and not repeated: no header, a garbage string, the token plus "x", a bare alg:none header
// (TestBearerTokens), the other environment's token (TestBearerTokens), expiry
// (TestExpiredToken), a missing permission (TestBearerTokens, TestReadOnlyCredentialsWriteNothing).
func TestTokenTampering(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "Tampered")
	token := s.token(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	const prefix = "sat_"
	require.True(t, strings.HasPrefix(token, prefix), token)
	random := strings.TrimPrefix(token, prefix)
	now := time.Now().Unix()
	claims := map[string]any{"iss": s.ReconURL, "aud": s.ReconURL, "sub": ten.ClientID, "client_id": ten.ClientID,
		"scope": "jobs:read jobs:write limits:read", "env": "production", "iat": now, "exp": now + 3600, "jti": uuid.NewString()}
	const invalid = `Bearer realm="statementd", error="invalid_token"*`

	limits := func(authorization ...string) answered {
		t.Helper()
		return call(t, recon(t), s.ReconURL, "/api/v1/limits", authorization...)
	}
	requireValid := func(what string) {
		t.Helper()
		got := limits("Bearer " + token)
		require.Equal(t, http.StatusOK, got.StatusCode, "%s: the valid token still works: %s", what, got.body)
	}
	requireValid("before")

	tampered := []struct{ name, value string }{
		{"the first random character flipped", flip(token, len(prefix))},
		{"a middle character flipped", flip(token, len(token)/2)},
		{"the last character flipped", flip(token, len(token)-1)},
		{"the last character cut", token[:len(token)-1]},
		{"cut to the shortest well-formed length", token[:len(prefix)+32]},
		{"only the prefix", prefix},
		{"a character appended", token + "0"},
		{"padding appended", token + "="},
		{"its random part twice", token + random},
		{"the prefix in capitals", strings.ToUpper(prefix) + random},
		{"another prefix", "sak_" + random},
		{"no prefix", random},
		{"the API key prefix", "smk_live_" + random},
		{"a JWT with alg none and the client's claims", jwt(t, "none", nil, claims)},
		{"a JWT with alg None", jwt(t, "None", nil, claims)},
		{"a JWT with alg none and the token as its signature", strings.TrimSuffix(jwt(t, "none", nil, claims), ".") + "." + random},
		{"an HS256 JWT signed with the client secret", jwt(t, "HS256", []byte(ten.ClientSecret), claims)},
		{"an HS256 JWT signed with the token", jwt(t, "HS256", []byte(token), claims)},
		{"an HS256 JWT signed with \"secret\"", jwt(t, "HS256", []byte("secret"), claims)},
		{"an HS256 JWT for another audience", jwt(t, "HS256", []byte(ten.ClientSecret), map[string]any{"aud": "https://other.example", "iss": "https://other.example", "sub": ten.ClientID, "exp": now + 3600})},
		{"the Parsing API key", ten.APIKey},
		{"the client secret", ten.ClientSecret},
		{"the client id", ten.ClientID},
		{"the token's SHA-256, as the database keeps it", sha256Hex(token)},
	}
	var first []byte
	for _, tt := range tampered {
		got := limits("Bearer " + tt.value)
		requireChallenge(t, got.Response, http.StatusUnauthorized, invalid)
		var body reconclient.Error
		require.NoError(t, json.Unmarshal(got.body, &body), tt.name)
		require.Equal(t, reconclient.ErrorCodeAuthInvalid, body.Error, tt.name)
		if first == nil {
			first = got.body
		}
		require.Equal(t, string(first), string(got.body), "%s: every invalid token gets the same body", tt.name)
	}
	requireValid("after the tampered tokens")

	t.Run("more than one Authorization header is AUTH_INVALID, whichever holds the token", func(t *testing.T) {
		for name, headers := range map[string][]string{
			"the valid token first":          {"Bearer " + token, "Bearer " + flip(token, 10)},
			"the valid token second":         {"Bearer " + flip(token, 10), "Bearer " + token},
			"the valid token twice":          {"Bearer " + token, "Bearer " + token},
			"the valid token and HTTP Basic": {"Bearer " + token, "Basic " + base64.StdEncoding.EncodeToString([]byte(ten.ClientID+":"+ten.ClientSecret))},
		} {
			got := limits(headers...)
			requireChallenge(t, got.Response, http.StatusUnauthorized, invalid)
			require.Equal(t, string(first), string(got.body), name)
		}
		// The token endpoint, too, takes client credentials from one header only.
		req := tokenRequest(t, s.ReconURL, httpBasic, ten.ClientID, ten.ClientSecret)
		req.Header.Add("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("cli_other:cs_other")))
		got := send(t, recon(t).client(t), req)
		require.Equal(t, http.StatusBadRequest, got.StatusCode, string(got.body))
		require.Contains(t, string(got.body), "one Authorization header")
	})
	t.Run("the scheme is case-insensitive (RFC 7235 section 2.1)", func(t *testing.T) {
		for _, scheme := range []string{"bearer", "BEARER", "bEaReR"} {
			got := limits(scheme + " " + token)
			require.Equal(t, http.StatusOK, got.StatusCode, "%s: %s", scheme, got.body)
		}
		got := limits("bearer " + flip(token, 5))
		requireChallenge(t, got.Response, http.StatusUnauthorized, invalid)
	})
	t.Run("a token with more after it is malformed", func(t *testing.T) {
		for _, value := range []string{"Bearer " + token + " " + token, "Bearer " + token + " x", `Bearer "` + token + `"`, "Bearer " + token + ","} {
			got := limits(value)
			requireChallenge(t, got.Response, http.StatusUnauthorized, invalid)
			require.Equal(t, string(first), string(got.body), value)
		}
	})
	t.Run("another scheme, or the token outside the header, is no bearer credential", func(t *testing.T) {
		for name, got := range map[string]answered{
			"client credentials with HTTP Basic": limits("Basic " + base64.StdEncoding.EncodeToString([]byte(ten.ClientID+":"+ten.ClientSecret))),
			"the token with the Token scheme":    limits("Token " + token),
			"the token as an access_token query parameter (RFC 6750 section 2.3: not accepted, URLs get logged)": call(t, recon(t), s.ReconURL,
				"/api/v1/limits?access_token="+token),
		} {
			requireChallenge(t, got.Response, http.StatusUnauthorized, `Bearer realm="statementd"`)
			var body reconclient.Error
			require.NoError(t, json.Unmarshal(got.body, &body), name)
			require.Equal(t, reconclient.ErrorCodeUnauthorized, body.Error, name)
		}
	})
	t.Run("the Parsing API refuses a tampered key, or a token of the other API, alike", func(t *testing.T) {
		keyRandom := strings.TrimPrefix(ten.APIKey, "smk_live_")
		var firstBody string
		for name, headers := range map[string][]string{
			"a flipped character":        {"Bearer " + flip(ten.APIKey, len("smk_live_"))},
			"the last character flipped": {"Bearer " + flip(ten.APIKey, len(ten.APIKey)-1)},
			"the last character cut":     {"Bearer " + ten.APIKey[:len(ten.APIKey)-1]},
			"a test-mode prefix":         {"Bearer smk_test_" + keyRandom},
			"no prefix":                  {"Bearer " + keyRandom},
			"an access token":            {"Bearer " + token},
			"an HS256 JWT":               {"Bearer " + jwt(t, "HS256", []byte(ten.APIKey), claims)},
			"two headers, the key first": {"Bearer " + ten.APIKey, "Bearer " + flip(ten.APIKey, 12)},
		} {
			got := call(t, parse(t), s.ParseURL, "/api/v1/status", headers...)
			requireChallenge(t, got.Response, http.StatusUnauthorized, invalid)
			var envelope parseclient.ErrorEnvelope
			require.NoError(t, json.Unmarshal(got.body, &envelope), name)
			require.Equal(t, parseclient.ErrorCodeAuthInvalid, envelope.Error, name)
			if firstBody == "" {
				firstBody = withoutMeta(got.body)
			}
			require.Equal(t, firstBody, withoutMeta(got.body), "%s: the same answer but for the request id", name)
		}
		got := call(t, parse(t), s.ParseURL, "/api/v1/status", "Bearer "+ten.APIKey)
		require.Equal(t, http.StatusOK, got.StatusCode, "the valid key still works: %s", got.body)
	})
	requireValid("at the end")
	s.requireNoSecretsInLogs(t)
}

// operation is one operation of a spec.
type operation struct {
	method, path string
	op           *openapi3.Operation
}

// name is the operation's id as the spec writes it (createJob).
func (o operation) name() string {
	id := o.op.OperationID
	if id == "" {
		return o.method + " " + o.path
	}
	return strings.ToLower(id[:1]) + id[1:]
}

// operations returns every operation of a's spec, by path and method.
func (a *api) operations() []operation {
	var out []operation
	for path, item := range a.spec.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, operation{method: method, path: path, op: op})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].path != out[j].path {
			return out[i].path < out[j].path
		}
		return out[i].method < out[j].method
	})
	return out
}

// access returns whether an operation needs credentials and the scopes (the Parsing API's
// x-required-scopes, the Reconciliation API's OAuth 2.0 scopes) it needs.
func (a *api) access(o operation) (authenticated bool, scopes []string) {
	security := o.op.Security
	if security == nil {
		security = &a.spec.Security
	}
	if len(*security) == 0 {
		return false, nil
	}
	for _, requirement := range *security {
		if len(requirement) == 0 {
			return false, nil // anonymous access is one of the alternatives
		}
	}
	if raw, ok := o.op.Extensions["x-required-scopes"]; ok {
		switch list := raw.(type) {
		case []any:
			for _, v := range list {
				scopes = append(scopes, fmt.Sprint(v))
			}
		case []string:
			scopes = list
		}
		return true, scopes
	}
	for _, requirement := range *security {
		for _, s := range requirement {
			return true, s
		}
	}
	return true, nil
}

// ids are the objects of one account that an operation's path may name.
type ids struct{ job, hook string }

// fill puts the ids into a path of the spec: webhook paths name the endpoint, every other the job.
func (i ids) fill(path string) string {
	id := i.job
	if strings.HasPrefix(path, "/api/v1/webhooks/") {
		id = i.hook
	}
	return strings.NewReplacer("{id}", id, "{job_id}", i.job).Replace(path)
}

// view is what one credential of an account reads on one listener; ids are the account's objects
// there, none to read only the operations whose path names no object (the lists).
type view struct {
	api  *api
	base string
	cred string
	ids  ids
}

// read calls every authenticated GET operation of the spec as v and returns each answer's status
// and body (the Parsing API envelope's meta, a request id, left out), by operation. Generated from
// the spec, so a new operation is read as soon as it exists.
func (v view) read(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range v.api.operations() {
		if authenticated, _ := v.api.access(o); o.method != http.MethodGet || !authenticated {
			continue
		}
		if v.ids == (ids{}) && strings.Contains(o.path, "{") {
			continue
		}
		got := call(t, v.api, v.base, v.ids.fill(o.path), "Bearer "+v.cred)
		out[v.api.name+" "+v.base+" GET "+o.path] = fmt.Sprintf("%d %s", got.StatusCode, withoutMeta(got.body))
	}
	return out
}

// readAll is read of every view.
func readAll(t *testing.T, views ...view) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range views {
		for k, answer := range v.read(t) {
			out[k] = answer
		}
	}
	return out
}

// withoutMeta returns a JSON object body without its meta member, and any other body as it is.
func withoutMeta(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return string(body)
	}
	delete(m, "meta")
	b, err := json.Marshal(m)
	if err != nil {
		return string(body)
	}
	return string(b)
}

// tableFingerprints returns, for every table of the server's database, its row count and an MD5
// of all its rows: any insert, update or delete changes it. Left out are the rate-limit counters,
// which count every request, refused or not, by design, and the job queue's own bookkeeping
// (river_*: leader election, a periodic sweep every 10 s), which changes on its own; a job that a
// request queued shows in the jobs' and deliveries' own tables. The credentials' last_used_at
// columns are left out too: noting when a credential was used is what every use does.
func tableFingerprints(t *testing.T, databaseURL string) map[string]string {
	t.Helper()
	db, err := postgres.Open(t.Context(), databaseURL)
	require.NoError(t, err)
	defer db.Close()
	var tables []string
	require.NoError(t, db.SelectContext(t.Context(), &tables, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
		AND tablename NOT IN ('rate_limit_windows', 'auth_failures') AND tablename NOT LIKE 'river\_%' ORDER BY tablename`))
	require.NotEmpty(t, tables)
	out := map[string]string{}
	for _, table := range tables {
		var fingerprint string
		row := "t::text"
		if table == "api_clients" || table == "api_keys" {
			row = "(to_jsonb(t) - 'last_used_at')::text"
		}
		require.NoError(t, db.GetContext(t.Context(), &fingerprint, `SELECT count(*) || ' ' || md5(coalesce(string_agg(`+row+`, E'\n' ORDER BY `+row+`), ''))
			FROM `+table+` t`))
		out[table] = fingerprint
	}
	return out
}

// settledFingerprints waits until two fingerprints a moment apart agree (the work the setup
// started in the background is done) and returns them.
func settledFingerprints(t *testing.T, databaseURL string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	last := tableFingerprints(t, databaseURL)
	for {
		time.Sleep(300 * time.Millisecond)
		now := tableFingerprints(t, databaseURL)
		if fmt.Sprint(now) == fmt.Sprint(last) {
			return now
		}
		require.True(t, time.Now().Before(deadline), "the database did not settle within 15 s")
		last = now
	}
}

// credential is one credential of an account that lacks some scopes.
type credential struct {
	name  string
	api   *api
	base  string
	value string
	holds []string
	ids   ids
}

func (c credential) holdsAll(scopes []string) bool {
	for _, s := range scopes {
		if !containsString(c.holds, s) {
			return false
		}
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func without(list []string, s string) []string {
	var out []string
	for _, v := range list {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}

// TestReadOnlyCredentialsWriteNothing (A7) is generated from the specs: every operation that
// needs a scope (permission) is called, with valid parameters and body on the account's own
// objects (a new operation with a body fails the test until it is given one), with every
// credential of the account that lacks one of its scopes: a read-only key (jobs:read,
// export:read, usage:read), for each scope a key with all the others, a read-only client
// (jobs:read, limits:read) in both environments, for each permission a client with all the
// others, and a full client's token narrowed by scope. Each answer is 403 FORBIDDEN in the API's
// error body with error="insufficient_scope" naming the scope, and nothing is written: every
// table of the database but the request counters and the queue's bookkeeping is unchanged row
// for row, everything the account reads (jobs, results, exports, webhooks, deliveries, usage,
// quota, in both environments) is the same, the webhook test sent nothing, and the
// Idempotency-Keys the refused requests carried are still free.
func TestReadOnlyCredentialsWriteNothing(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	receiver := newReceiver(t, http.StatusNoContent)
	ctx := context.Background()
	owner := s.newTenant(t, "Owner")

	// The account's objects, finished, so that nothing changes on its own while the test looks.
	prod := s.reconCaller(t, s.ReconURL, owner.ClientID, owner.ClientSecret)
	sandbox := s.reconCaller(t, s.SandboxURL, owner.ClientID, owner.ClientSecret)
	jobIDs := map[string]string{}
	for name, c := range map[string]reconCaller{"production": prod, "sandbox": sandbox} {
		ct, upload := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		created := c.create(t, "", ct, upload)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		require.Equal(t, reconclient.JobStatusCompleted, c.wait(t, created.JSON202.JobId).Status)
		jobIDs[name] = created.JSON202.JobId.String()
	}
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: owner.APIKey}
	parseJob := pc.create(t, "statement.csv", simpleCSV(3))
	pc.wait(t, parseJob.JobId)
	hook, err := pc.pc.CreateWebhookWithResponse(ctx, nil, parseclient.CreateWebhookJSONRequestBody{Url: receiver.URL + "/owner",
		Events: &[]parseclient.WebhookEventType{"usage.threshold"}}, bearer(owner.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	s.remember(hook.JSON201.Data.SigningSecret)
	parseIDs := ids{job: parseJob.JobId.String(), hook: hook.JSON201.Data.Id.String()}
	prodIDs, sandboxIDs := ids{job: jobIDs["production"]}, ids{job: jobIDs["sandbox"]}
	views := []view{{recon(t), s.ReconURL, prod.token, prodIDs}, {recon(t), s.SandboxURL, sandbox.token, sandboxIDs},
		{parse(t), s.ParseURL, owner.APIKey, parseIDs}}

	// The credentials that lack scopes.
	var creds []credential
	readScopes := []string{"jobs:read", "export:read", "usage:read"}
	_, readOnlyKey := s.newKey(t, owner.AccountID, readScopes...)
	creds = append(creds, credential{"read-only key", parse(t), s.ParseURL, readOnlyKey, readScopes, parseIDs})
	for _, scope := range allScopes {
		_, key := s.newKey(t, owner.AccountID, without(allScopes, scope)...)
		creds = append(creds, credential{"key without " + scope, parse(t), s.ParseURL, key, without(allScopes, scope), parseIDs})
	}
	allPermissions := []string{"jobs:read", "jobs:write", "limits:read"}
	readPermissions := []string{"jobs:read", "limits:read"}
	readerID, readerSecret := s.newClient(t, owner.AccountID, readPermissions...)
	creds = append(creds,
		credential{"read-only client in production", recon(t), s.ReconURL, s.token(t, s.ReconURL, readerID, readerSecret), readPermissions, prodIDs},
		credential{"read-only client in the sandbox", recon(t), s.SandboxURL, s.token(t, s.SandboxURL, readerID, readerSecret), readPermissions, sandboxIDs})
	for _, perm := range allPermissions {
		id, secret := s.newClient(t, owner.AccountID, without(allPermissions, perm)...)
		creds = append(creds, credential{"client without " + perm, recon(t), s.ReconURL, s.token(t, s.ReconURL, id, secret), without(allPermissions, perm), prodIDs})
	}
	narrowed := strings.Join(readPermissions, " ")
	tr, err := prod.rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
		GrantType: reconclient.GrantTypeClientCredentials, Scope: &narrowed}, basic(owner.ClientID, owner.ClientSecret))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, tr.StatusCode(), string(tr.Body))
	s.remember(tr.JSON200.AccessToken)
	creds = append(creds, credential{"full client's token narrowed to " + narrowed, recon(t), s.ReconURL, tr.JSON200.AccessToken, readPermissions, prodIDs})

	// A valid request of every operation that has a body; the Idempotency-Keys must stay free.
	reconJobType, reconJob := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	parseJobType, parseJobBody := fileUpload(t, "again.csv", simpleCSV(2))
	hookBody, err := json.Marshal(map[string]any{"url": receiver.URL + "/refused", "events": []string{"usage.threshold"}})
	require.NoError(t, err)
	testBody, err := json.Marshal(map[string]any{"webhook_id": parseIDs.hook})
	require.NoError(t, err)
	keys := map[string]string{"reconciliation createJob": uuid.NewString(), "parsing createJob": uuid.NewString(), "parsing createWebhook": uuid.NewString()}
	bodies := map[string]struct {
		contentType string
		body        []byte
	}{
		"reconciliation createJob": {reconJobType, reconJob},
		"parsing createJob":        {parseJobType, parseJobBody},
		"parsing createWebhook":    {"application/json", hookBody},
		"parsing testWebhook":      {"application/json", testBody},
	}

	before := readAll(t, views...)
	for k, answer := range before {
		require.True(t, strings.HasPrefix(answer, "200 "), "the owner reads %s: %s", k, answer)
	}
	beforeDB := settledFingerprints(t, s.DatabaseURL)

	refused := map[string]bool{}
	for _, c := range creds {
		for _, o := range c.api.operations() {
			authenticated, need := c.api.access(o)
			if !authenticated || len(need) == 0 || c.holdsAll(need) {
				continue
			}
			name := c.api.name + " " + o.name()
			var body io.Reader
			req, err := http.NewRequest(o.method, c.base+c.ids.fill(o.path), nil)
			require.NoError(t, err)
			if o.op.RequestBody != nil {
				b, ok := bodies[name]
				require.True(t, ok, "%s has a request body: add a valid one to bodies, so that its scope is checked", name)
				body = bytes.NewReader(b.body)
				req, err = http.NewRequest(o.method, c.base+c.ids.fill(o.path), body)
				require.NoError(t, err)
				req.Header.Set("Content-Type", b.contentType)
			}
			if key, ok := keys[name]; ok {
				req.Header.Set("Idempotency-Key", key)
			}
			req.Header.Set("Authorization", "Bearer "+c.value)
			got := send(t, c.api.client(t), req)
			what := c.name + ": " + o.method + " " + o.path
			requireChallenge(t, got.Response, http.StatusForbidden, `Bearer realm="statementd", error="insufficient_scope"*`)
			require.Contains(t, got.Header.Get("WWW-Authenticate"), `scope="`+strings.Join(need, " ")+`"`, what)
			if c.api == recon(t) {
				var e reconclient.Error
				require.NoError(t, json.Unmarshal(got.body, &e), what)
				require.Equal(t, reconclient.ErrorCodeForbidden, e.Error, what)
				require.Equal(t, e.Error, e.Detail.Code, what)
			} else {
				var e parseclient.ErrorEnvelope
				require.NoError(t, json.Unmarshal(got.body, &e), what)
				require.False(t, bool(e.Ok), what)
				require.Equal(t, parseclient.ErrorCodeForbidden, e.Error, what)
				require.NotEmpty(t, e.Meta.RequestId, what)
			}
			refused[name] = true
		}
	}
	for _, a := range []*api{recon(t), parse(t)} {
		for _, o := range a.operations() {
			if authenticated, need := a.access(o); authenticated && len(need) > 0 {
				require.True(t, refused[a.name+" "+o.name()], "%s %s was refused to a credential without its scope", a.name, o.name())
			}
		}
	}
	require.Contains(t, refused, "parsing deleteWebhook")

	require.Equal(t, beforeDB, tableFingerprints(t, s.DatabaseURL), "no refused request wrote to the database")
	require.Equal(t, before, readAll(t, views...), "the account reads everything as before")
	require.Empty(t, receiver.received(), "no refused webhook test reached the endpoint")

	// The keys the refused requests carried create, with the right scope, the first object of
	// their own: nothing was kept of the refused requests.
	again := func(a *api, base, cred, name, path string) answered {
		req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(bodies[name].body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", bodies[name].contentType)
		req.Header.Set("Idempotency-Key", keys[name])
		req.Header.Set("Authorization", "Bearer "+cred)
		return send(t, a.client(t), req)
	}
	for _, tt := range []struct {
		got    answered
		status int
	}{
		{again(recon(t), s.ReconURL, prod.token, "reconciliation createJob", "/api/v1/jobs"), http.StatusAccepted},
		{again(parse(t), s.ParseURL, owner.APIKey, "parsing createJob", "/api/v1/jobs"), http.StatusAccepted},
		{again(parse(t), s.ParseURL, owner.APIKey, "parsing createWebhook", "/api/v1/webhooks"), http.StatusCreated},
	} {
		require.Equal(t, tt.status, tt.got.StatusCode, string(tt.got.body))
		require.Empty(t, tt.got.Header.Get("Idempotent-Replayed"), "a first answer, not a replay")
	}
	s.requireNoSecretsInLogs(t)
}

// requireAbsent fails if text holds needle, in any case, quoting the line that holds it rather
// than all of text.
func requireAbsent(t *testing.T, text, needle, what string) {
	t.Helper()
	lower := strings.ToLower(text)
	i := strings.Index(lower, strings.ToLower(needle))
	if i < 0 {
		return
	}
	start := strings.LastIndexByte(lower[:i], '\n') + 1
	end := strings.IndexByte(lower[i:], '\n')
	if end < 0 {
		end = len(lower) - i
	}
	t.Fatalf("%s holds a secret (%s) in this line:\n%s", what, needle, text[start:i+end])
}

// pgDump dumps the database at databaseURL, schema and data, with the PostgreSQL binaries the
// tests use.
func pgDump(t *testing.T, databaseURL string) string {
	t.Helper()
	dir, err := pgembed.FindBinaries()
	require.NoError(t, err, "PostgreSQL's binaries (pg_dump) are installed")
	cmd := exec.Command(filepath.Join(dir, "pg_dump"), "--no-owner", "--no-privileges", "--dbname="+databaseURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "pg_dump: %s", stderr.String())
	return stdout.String()
}

// TestNoSecretsInDatabaseDumpOrLogs (A5): after a full flow (accounts, clients and keys of
// several kinds, tokens asked for in every form and both environments, failed attempts that
// carry real secrets in the wrong places, webhook endpoints and their signing secret shown,
// rotated and used to sign test and job deliveries, jobs in both APIs, revocations), neither a
// pg_dump of the server's database nor its log at debug level holds any client secret, API key,
// access token or signing secret issued, in clear, as hex, or its random part alone, nor the
// secret key of the data dir. The database holds the SHA-256 of every client secret, API key and
// token, and the signing secrets only sealed.
func TestNoSecretsInDatabaseDumpOrLogs(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_LOG_LEVEL=debug", "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	receiver := newReceiver(t, http.StatusNoContent)
	ctx := context.Background()
	a, b := s.newTenant(t, "A"), s.newTenant(t, "B")
	readerID, readerSecret := s.newClient(t, a.AccountID, "jobs:read")
	narrowKeyID, _ := s.newKey(t, a.AccountID, "jobs:read")
	s.admin(t, "signing-secret", "show", "--json", "--account", a.AccountID)
	rc, pc := reconClient(t, s.ReconURL), parseClient(t, s.ParseURL)

	// Tokens of every form and environment.
	prod := s.reconCaller(t, s.ReconURL, a.ClientID, a.ClientSecret)
	sandbox := s.reconCaller(t, s.SandboxURL, a.ClientID, a.ClientSecret)
	s.token(t, s.ReconURL, readerID, readerSecret)
	s.token(t, s.SandboxURL, b.ClientID, b.ClientSecret)
	scope := "jobs:read"
	for _, editors := range [][]reconclient.RequestEditorFn{nil, {basic(a.ClientID, a.ClientSecret)}} {
		body := reconclient.CreateTokenFormdataRequestBody{GrantType: reconclient.GrantTypeClientCredentials, Scope: &scope}
		if editors == nil {
			body.ClientId, body.ClientSecret = &a.ClientID, &a.ClientSecret
		}
		r, err := rc.CreateTokenWithFormdataBodyWithResponse(ctx, body, editors...)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		s.remember(r.JSON200.AccessToken)
	}

	// Real secrets in the wrong places, as a confused client sends them.
	for _, req := range []*http.Request{
		tokenRequest(t, s.ReconURL, jsonBody, b.ClientID, a.ClientSecret),
		tokenRequest(t, s.ReconURL, httpBasic, a.ClientSecret, a.ClientID),
		tokenRequest(t, s.SandboxURL, formBody, a.ClientID, a.APIKey),
		tokenRequest(t, s.ReconURL, jsonBody, prod.token, sandbox.token),
	} {
		got := send(t, recon(t).client(t), req)
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, string(got.body))
	}
	for _, got := range []answered{
		call(t, recon(t), s.ReconURL, "/api/v1/limits", "Bearer "+a.ClientSecret),
		call(t, recon(t), s.ReconURL, "/api/v1/limits", "Bearer "+a.APIKey),
		call(t, recon(t), s.ReconURL, "/api/v1/limits?access_token="+prod.token),
		call(t, recon(t), s.SandboxURL, "/api/v1/limits", "Bearer "+sandbox.token, "Bearer "+prod.token),
		call(t, parse(t), s.ParseURL, "/api/v1/status", "Bearer "+prod.token),
		call(t, parse(t), s.ParseURL, "/api/v1/status", "Bearer "+a.APIKey, "Bearer "+b.APIKey),
	} {
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, string(got.body))
	}

	// Webhook endpoints, the signing secret shown, rotated and used.
	first, err := pc.CreateWebhookWithResponse(ctx, nil, parseclient.CreateWebhookJSONRequestBody{Url: receiver.URL + "/first"}, bearer(a.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, first.StatusCode(), string(first.Body))
	s.remember(first.JSON201.Data.SigningSecret)
	test, err := pc.TestWebhookWithResponse(ctx, parseclient.TestWebhookJSONRequestBody{}, bearer(a.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, test.StatusCode(), string(test.Body))
	rotated := str(t, s.admin(t, "signing-secret", "rotate", "--json", "--account", a.AccountID), "signing_secret")
	second, err := pc.CreateWebhookWithResponse(ctx, nil, parseclient.CreateWebhookJSONRequestBody{Url: receiver.URL + "/second"}, bearer(a.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, second.StatusCode(), string(second.Body))
	require.Equal(t, rotated, second.JSON201.Data.SigningSecret)
	hookB, err := pc.CreateWebhookWithResponse(ctx, nil, parseclient.CreateWebhookJSONRequestBody{Url: receiver.URL + "/b"}, bearer(b.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hookB.StatusCode(), string(hookB.Body))
	s.remember(hookB.JSON201.Data.SigningSecret)

	// Jobs in both APIs and environments; their events are delivered signed.
	for _, c := range []reconCaller{prod, sandbox} {
		ct, upload := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		created := c.create(t, uuid.NewString(), ct, upload)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		require.Equal(t, reconclient.JobStatusCompleted, c.wait(t, created.JSON202.JobId).Status)
		require.Equal(t, http.StatusOK, c.results(t, created.JSON202.JobId).StatusCode())
	}
	parser := parseCaller{pc: pc, key: a.APIKey}
	job := parser.create(t, "statement.csv", simpleCSV(5))
	parser.wait(t, job.JobId)
	require.Equal(t, http.StatusOK, parser.results(t, job.JobId, nil).StatusCode())
	// The test event, then job.created and job.completed to both of A's endpoints.
	deadline := time.Now().Add(30 * time.Second)
	for len(receiver.received()) < 5 {
		require.True(t, time.Now().Before(deadline), "the deliveries arrive: %d so far", len(receiver.received()))
		time.Sleep(50 * time.Millisecond)
	}
	for _, got := range receiver.received() {
		require.NotEmpty(t, got.header.Get("X-Service-Signature"))
	}

	// Revocations.
	s.admin(t, "client", "revoke", "--json", readerID)
	s.admin(t, "key", "revoke", "--json", narrowKeyID)

	require.NoError(t, s.stop(t), "statementd stops cleanly")
	logs := s.logs.String()
	require.Contains(t, logs, `"level":"DEBUG"`, "the server logged at debug level")
	dump := pgDump(t, s.DatabaseURL)
	s.requireNoSecretsInLogs(t)

	s.secretsMu.Lock()
	secrets := append([]string(nil), s.secrets...)
	s.secretsMu.Unlock()
	kinds := map[string]int{}
	for _, secret := range secrets {
		kind, _, _ := strings.Cut(secret, "_")
		kinds[kind]++
	}
	require.GreaterOrEqual(t, kinds["cs"], 3, "client secrets were issued: %v", kinds)
	require.GreaterOrEqual(t, kinds["smk"], 3, "API keys were issued: %v", kinds)
	require.GreaterOrEqual(t, kinds["sat"], 6, "tokens were issued: %v", kinds)
	require.GreaterOrEqual(t, kinds["whsec"], 3, "signing secrets were shown: %v", kinds)

	for _, needle := range secretNeedles(t, secrets, s.DataDir) {
		requireAbsent(t, dump, needle, "the database dump")
		requireAbsent(t, logs, needle, "the log")
	}
	// Not vacuous: the dump has the credential tables, with the hashes of what was issued.
	for _, table := range []string{"api_clients", "api_keys", "access_tokens", "signing_secrets", "webhook_endpoints", "auth_failures"} {
		require.Contains(t, dump, "COPY public."+table+" ", "the dump has %s", table)
	}
	for _, secret := range secrets {
		if strings.HasPrefix(secret, "whsec_") {
			continue // sealed, not hashed: checked above not to be in clear
		}
		require.Contains(t, dump, sha256Hex(secret), "the database keeps the SHA-256 of every credential issued")
	}
}
