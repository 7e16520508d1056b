package reconclient

// Handwritten, not generated: the Client and its options, the oauth2.TokenSource that gets and
// renews the access tokens (and the one retry after a 401), the API reference's retry rule, and
// the API's errors as values. The one-call methods are in calls.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/statementmatch/service/gen/sdk/internal/sdkhttp"
)

// RetryPolicy is when and how long a request is retried; see DefaultRetryPolicy.
type RetryPolicy = sdkhttp.Policy

// DefaultRetryPolicy is the API reference's rule: up to 3 attempts, waiting 2 s then 4 s (or
// the answer's Retry-After, if longer), only after 429, 500 and 503 answers and failed
// connections. An answer whose Retry-After is over 2 minutes (a monthly quota) is not retried.
var DefaultRetryPolicy = sdkhttp.Default

// Client is the Reconciliation API client: one method per operation, each returning the typed
// result or an error, an *APIError for every answer that is not a success. Raw is the
// generated client underneath (authenticated and retrying as the Client is), for what the
// one-call methods leave out (an answer's headers, say). A Client is safe for concurrent use.
type Client struct {
	Raw *ClientWithResponses

	tokens oauth2.TokenSource
}

type settings struct {
	retry  RetryPolicy
	tokens oauth2.TokenSource
}

var pending sdkhttp.Pending[*RawClient, settings]

// WithRetryPolicy replaces DefaultRetryPolicy in New; RetryPolicy{Attempts: 1} turns retries
// off.
func WithRetryPolicy(p RetryPolicy) ClientOption {
	return func(c *RawClient) error {
		s, err := pending.Get(c, "WithRetryPolicy")
		if err != nil {
			return err
		}
		s.retry = p
		return nil
	}
}

// WithTokenSource makes New's client take its access tokens from ts instead of a TokenSource
// of its own: another client's TokenSource(), so that several clients of one API client share
// a token, or golang.org/x/oauth2/clientcredentials (the token endpoint speaks OAuth 2.0
// client credentials). New's clientID and clientSecret are then not used.
func WithTokenSource(ts oauth2.TokenSource) ClientOption {
	return func(c *RawClient) error {
		s, err := pending.Get(c, "WithTokenSource")
		if err != nil {
			return err
		}
		s.tokens = ts
		return nil
	}
}

// New returns a client of the Reconciliation API at baseURL (the production or the sandbox base
// URL) that authenticates as the API client clientID: it asks POST /api/v1/token for an access
// token when it needs one, keeps it until shortly before it expires, and asks again once when
// the API refuses it (expired or revoked). Requests are retried by DefaultRetryPolicy, with
// their bodies replayed, and uploads without an Idempotency-Key get one, so a retry never
// creates a second job. The options are the generated ones (WithHTTPClient,
// WithRequestEditorFn, WithBaseURL), WithRetryPolicy and WithTokenSource; an option that fails
// makes New panic, which only a nil option can do. With no clientID, clientSecret or token
// source, requests go without credentials: enough for GetHealth, GetReadiness, GetOpenAPISpec
// and GetDocs.
//
// Amounts are shopspring/decimal values read exactly from the API's JSON numbers; the SDK
// needs none of that package's global settings. d.StringFixed(2) writes an amount with a
// currency's two decimals (decimal's String drops trailing zeros).
func New(baseURL, clientID, clientSecret string, opts ...ClientOption) *Client {
	raw := &RawClient{Server: baseURL}
	s := settings{retry: DefaultRetryPolicy}
	end := pending.Begin(raw, &s)
	defer end()
	for _, o := range opts {
		if err := o(raw); err != nil {
			panic("reconclient.New: " + err.Error())
		}
	}
	if raw.Client == nil {
		raw.Client = sdkhttp.DefaultClient()
	}
	if !strings.HasSuffix(raw.Server, "/") {
		raw.Server += "/"
	}
	doer := sdkhttp.Retrying(raw.Client, s.retry)
	if s.tokens == nil && clientID == "" && clientSecret == "" {
		// No credentials: only the operations that need none (health, readiness, the spec and
		// its docs page) answer; the others are refused with 401.
		raw.Client = doer
		return &Client{Raw: &ClientWithResponses{ClientInterface: raw}}
	}
	if s.tokens == nil {
		s.tokens = &TokenSource{
			client:       &ClientWithResponses{ClientInterface: &RawClient{Server: raw.Server, Client: doer, RequestEditors: raw.RequestEditors}},
			clientID:     clientID,
			clientSecret: clientSecret,
		}
	}
	raw.Client = &authenticating{next: doer, tokens: s.tokens}
	return &Client{Raw: &ClientWithResponses{ClientInterface: raw}, tokens: s.tokens}
}

// TokenSource returns where the client takes its access tokens from, to share with another
// client (WithTokenSource) or to call the API with another HTTP library; nil for a client
// without credentials.
func (c *Client) TokenSource() oauth2.TokenSource { return c.tokens }

// TokenSource gets access tokens of one API client from the token endpoint and keeps the
// current one until shortly before it expires: an oauth2.TokenSource. It is safe for
// concurrent use.
type TokenSource struct {
	client       *ClientWithResponses
	clientID     string
	clientSecret string
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	token   *oauth2.Token
	renewAt time.Time
}

// refreshMargin is how long before its expiry a token is replaced (at most a quarter of its
// lifetime), so that a request never leaves with a token that expires on its way.
const refreshMargin = 30 * time.Second

// tokenTimeout bounds Token, which has no context of its own.
const tokenTimeout = time.Minute

func (ts *TokenSource) now() time.Time {
	if ts.Now == nil {
		return time.Now()
	}
	return ts.Now()
}

// Token returns a valid access token, asking for a new one when there is none or the current
// one expires within 30 seconds (or a quarter of its lifetime, for short-lived tokens). It
// gives the token endpoint at most a minute; TokenContext takes a context instead.
func (ts *TokenSource) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
	defer cancel()
	return ts.TokenContext(ctx)
}

// TokenContext is Token bounded by ctx.
func (ts *TokenSource) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token != nil && ts.now().Before(ts.renewAt) {
		return ts.token, nil
	}
	r, err := ts.client.CreateTokenWithResponse(ctx, CreateTokenJSONRequestBody{ClientId: ts.clientID, ClientSecret: ts.clientSecret})
	if err != nil {
		return nil, fmt.Errorf("get an access token: %w", err)
	}
	answer, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	if err != nil {
		return nil, fmt.Errorf("get an access token: %w", err)
	}
	now := ts.now()
	lifetime := time.Duration(answer.ExpiresIn) * time.Second
	ts.token = &oauth2.Token{AccessToken: answer.AccessToken, TokenType: "Bearer", Expiry: now.Add(lifetime), ExpiresIn: int64(answer.ExpiresIn)}
	ts.renewAt = now.Add(lifetime - min(refreshMargin, lifetime/4))
	return ts.token, nil
}

// forget drops the token whose access token is access if it is the current one, so the next
// Token asks for a new one.
func (ts *TokenSource) forget(access string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token != nil && ts.token.AccessToken == access {
		ts.token = nil
	}
}

// authenticating sends each request with a current access token, and once more with a new one
// when the API answers 401 to it.
type authenticating struct {
	next   sdkhttp.Doer
	tokens oauth2.TokenSource
}

// token gets a token within ctx when the source is the SDK's own.
func (a *authenticating) token(ctx context.Context) (*oauth2.Token, error) {
	if own, ok := a.tokens.(*TokenSource); ok {
		return own.TokenContext(ctx)
	}
	return a.tokens.Token()
}

func (a *authenticating) Do(req *http.Request) (*http.Response, error) {
	if err := sdkhttp.Replayable(req); err != nil {
		return nil, err
	}
	token, err := a.token(req.Context())
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		req.Header.Set("Authorization", "Bearer "+token.AccessToken)
		resp, err := a.next.Do(req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || try > 0 {
			return resp, err
		}
		// Refused: expired early or revoked. Ask once for a new token; a source that has no
		// other token to give leaves the 401 as it is.
		if own, ok := a.tokens.(*TokenSource); ok {
			own.forget(token.AccessToken)
		}
		fresh, err := a.token(req.Context())
		if err != nil || fresh.AccessToken == token.AccessToken {
			return resp, nil
		}
		token = fresh
		_ = resp.Body.Close()
		if req.GetBody != nil {
			if req.Body, err = req.GetBody(); err != nil {
				return nil, fmt.Errorf("replay request body: %w", err)
			}
		}
	}
}

// APIError is an error answer of the API.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the machine-readable code (NOT_FOUND, LIMIT_EXCEEDED, ...); empty when the answer
	// had no error body.
	Code ErrorCode
	// Message is the human-readable explanation.
	Message string
	// RequestID is the answer's X-Request-Id, to quote to support.
	RequestID string
	// RetryAfter is the answer's Retry-After, 0 when it had none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("reconciliation API answered %d", e.StatusCode)
	if e.Code != "" {
		msg += " " + string(e.Code)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

// Check returns nil for a 2xx answer and an *APIError otherwise; resp and body are a generated
// response's HTTPResponse and Body.
func Check(resp *http.Response, body []byte) error {
	if resp == nil {
		return errors.New("reconciliation API: no answer")
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	e := &APIError{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var env Error
	if json.Unmarshal(body, &env) == nil {
		e.Code, e.Message = env.Error, env.Detail.Message
	}
	if after, ok := sdkhttp.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = after
	}
	return e
}
