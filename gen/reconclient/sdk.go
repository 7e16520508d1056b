package reconclient

// Handwritten helpers of the Reconciliation API client (nothing in gen/ generates this file): a
// client that gets and refreshes its own access tokens and retries by the API reference's rule,
// errors as values, and waiting for a job.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/statementmatch/service/gen/internal/sdkhttp"
)

// RetryPolicy is when and how long a request is retried; see DefaultRetryPolicy.
type RetryPolicy = sdkhttp.Policy

// DefaultRetryPolicy is the API reference's rule: up to 3 attempts, waiting 2 s then 4 s (or
// the answer's Retry-After, if longer), only after 429, 500 and 503 answers and failed
// connections. An answer whose Retry-After is over 2 minutes (a monthly quota) is not retried.
var DefaultRetryPolicy = sdkhttp.Default

// Option configures New.
type Option func(*settings)

type settings struct {
	doer   HttpRequestDoer
	retry  RetryPolicy
	tokens *TokenSource
}

// UseHTTPClient sends the requests with doer (an *http.Client, say) instead of a plain
// http.Client.
func UseHTTPClient(doer HttpRequestDoer) Option { return func(s *settings) { s.doer = doer } }

// UseRetryPolicy replaces DefaultRetryPolicy; RetryPolicy{Attempts: 1} turns retries off.
func UseRetryPolicy(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// UseTokenSource takes the access tokens from ts instead of a TokenSource of the client's own,
// so that several clients of one API client share its token.
func UseTokenSource(ts *TokenSource) Option { return func(s *settings) { s.tokens = ts } }

// New returns a client of the Reconciliation API at baseURL (the production or the sandbox base
// URL) that authenticates as the API client clientID: it asks POST /api/v1/token for an access
// token when it needs one, keeps it until shortly before it expires, and asks again once when
// the API refuses it (expired or revoked). Requests are retried by DefaultRetryPolicy, with
// their bodies replayed, and uploads without an Idempotency-Key get one, so a retry never
// creates a second job.
//
// The token endpoint is standard OAuth 2.0 client credentials, so
// golang.org/x/oauth2/clientcredentials works too (see the example).
func New(baseURL, clientID, clientSecret string, opts ...Option) (*ClientWithResponses, error) {
	s := settings{doer: sdkhttp.DefaultClient(), retry: DefaultRetryPolicy}
	for _, o := range opts {
		o(&s)
	}
	doer := sdkhttp.Retrying(s.doer, s.retry)
	if s.tokens == nil {
		var err error
		if s.tokens, err = NewTokenSource(baseURL, clientID, clientSecret, doer); err != nil {
			return nil, err
		}
	}
	return NewClientWithResponses(baseURL, WithHTTPClient(&authenticating{next: doer, tokens: s.tokens}))
}

// TokenSource gets access tokens of one API client from the token endpoint and keeps the
// current one. It is safe for concurrent use.
type TokenSource struct {
	client       *ClientWithResponses
	clientID     string
	clientSecret string
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

// refreshMargin is how long before its expiry a token is replaced (at most a quarter of its
// lifetime), so that a request never leaves with a token that expires on its way.
const refreshMargin = 30 * time.Second

// NewTokenSource returns a TokenSource for the API client clientID of the API at baseURL,
// sending its requests with doer.
func NewTokenSource(baseURL, clientID, clientSecret string, doer HttpRequestDoer) (*TokenSource, error) {
	c, err := NewClientWithResponses(baseURL, WithHTTPClient(doer))
	if err != nil {
		return nil, err
	}
	return &TokenSource{client: c, clientID: clientID, clientSecret: clientSecret}, nil
}

func (ts *TokenSource) now() time.Time {
	if ts.Now == nil {
		return time.Now()
	}
	return ts.Now()
}

// Token returns a valid access token, asking for a new one when there is none or the current
// one expires within 30 seconds (or a quarter of its lifetime, for short-lived tokens).
func (ts *TokenSource) Token(ctx context.Context) (string, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token != "" && ts.now().Before(ts.renewAt) {
		return ts.token, nil
	}
	r, err := ts.client.CreateTokenWithResponse(ctx, CreateTokenJSONRequestBody{ClientId: ts.clientID, ClientSecret: ts.clientSecret})
	if err != nil {
		return "", fmt.Errorf("get an access token: %w", err)
	}
	if err := Check(r.HTTPResponse, r.Body); err != nil {
		return "", fmt.Errorf("get an access token: %w", err)
	}
	lifetime := time.Duration(r.JSON200.ExpiresIn) * time.Second
	ts.token, ts.renewAt = r.JSON200.AccessToken, ts.now().Add(lifetime-min(refreshMargin, lifetime/4))
	return ts.token, nil
}

// Forget drops token if it is the current one, so the next Token asks for a new one.
func (ts *TokenSource) Forget(token string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token == token {
		ts.token = ""
	}
}

// authenticating sends each request with a current access token, and once more with a new one
// when the API answers 401 to it.
type authenticating struct {
	next   sdkhttp.Doer
	tokens *TokenSource
}

func (a *authenticating) Do(req *http.Request) (*http.Response, error) {
	if err := sdkhttp.Replayable(req); err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		token, err := a.tokens.Token(req.Context())
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := a.next.Do(req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || try > 0 {
			return resp, err
		}
		a.tokens.Forget(token)
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

// WaitForJob polls job id, first after interval (1 s when 0) and then ever less often (the
// wait doubles up to 10 s, so a long job does not use up the plan's requests a minute), until it is completed or failed and
// returns it; progress, when not nil, sees every state read. It ends early with ctx.
func (c *ClientWithResponses) WaitForJob(ctx context.Context, id JobId, interval time.Duration, progress func(Job)) (Job, error) {
	return sdkhttp.Poll(ctx, interval, func() (Job, bool, error) {
		r, err := c.GetJobWithResponse(ctx, id)
		if err == nil {
			err = Check(r.HTTPResponse, r.Body)
		}
		if err != nil {
			return Job{}, false, err
		}
		if progress != nil {
			progress(*r.JSON200)
		}
		return *r.JSON200, r.JSON200.Status != JobStatusProcessing, nil
	})
}
