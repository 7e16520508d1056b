package parseclient

// Handwritten, not generated: the Client and its options (the API key on every request, the
// API reference's retry rule) and the API's errors as values. The one-call methods are in
// calls.go, webhook verification in webhook.go.

import (
	"context"
	"encoding/json"
	"fmt"

	"net/http"
	"strings"
	"time"

	"github.com/statementmatch/service/gen/sdk/internal/sdkhttp"
)

// RetryPolicy is when and how long a request is retried; see DefaultRetryPolicy.
type RetryPolicy = sdkhttp.Policy

// DefaultRetryPolicy is the API reference's rule: up to 3 attempts, waiting 2 s then 4 s (or
// the answer's Retry-After, if longer), only after 429, 500 and 503 answers and failed
// connections. An answer whose Retry-After is over 2 minutes (a monthly limit) is not retried.
var DefaultRetryPolicy = sdkhttp.Default

// Client is the Parsing API client: one method per operation, each returning the typed result
// or an error, an *APIError for every answer that is not a success. Raw is the generated
// client underneath, for what the one-call methods leave out (an answer's headers, say). A
// Client is safe for concurrent use.
type Client struct {
	Raw *ClientWithResponses
}

type settings struct {
	retry RetryPolicy
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

// New returns a client of the Parsing API at baseURL (such as https://parse.example.com) that
// authenticates every request with apiKey and retries by DefaultRetryPolicy. Request bodies
// are replayed on retries, and uploads and endpoint registrations without an Idempotency-Key
// get one, so a retry never creates a second job. The options are the generated ones
// (WithHTTPClient, WithRequestEditorFn, WithBaseURL) and WithRetryPolicy; an option that fails
// makes New panic, which only a nil option can do. With no apiKey, requests go without one:
// enough for GetHealth, GetReadiness, GetOpenAPISpec and GetDocs.
//
// Amounts are shopspring/decimal values read exactly from the API's JSON numbers; the SDK
// needs none of that package's global settings. d.StringFixed(2) writes an amount with a
// currency's two decimals (decimal's String drops trailing zeros).
func New(baseURL, apiKey string, opts ...ClientOption) *Client {
	raw := &RawClient{Server: baseURL}
	s := settings{retry: DefaultRetryPolicy}
	end := pending.Begin(raw, &s)
	defer end()
	if apiKey != "" {
		opts = append(opts, WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+apiKey)
			return nil
		}))
	}
	for _, o := range opts {
		if err := o(raw); err != nil {
			panic("parseclient.New: " + err.Error())
		}
	}
	if raw.Client == nil {
		raw.Client = sdkhttp.DefaultClient()
	}
	raw.Client = sdkhttp.Retrying(raw.Client, s.retry)
	if !strings.HasSuffix(raw.Server, "/") {
		raw.Server += "/"
	}
	return &Client{Raw: &ClientWithResponses{ClientInterface: raw}}
}

// APIError is an error answer of the API.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the machine-readable code (NOT_FOUND, RATE_LIMITED, ...); empty when the answer
	// had no error body.
	Code ErrorCode
	// Message is the human-readable explanation (the answer's detail).
	Message string
	// RequestID is the answer's X-Request-Id, to quote to support.
	RequestID string
	// RetryAfter is the answer's Retry-After, 0 when it had none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("parsing API answered %d", e.StatusCode)
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
		return fmt.Errorf("parsing API: no answer")
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	e := &APIError{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var env ErrorEnvelope
	if json.Unmarshal(body, &env) == nil {
		e.Code, e.Message = env.Error, env.Detail
	}
	if e.RequestID == "" {
		e.RequestID = env.Meta.RequestId
	}
	if after, ok := sdkhttp.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = after
	}
	return e
}

// Finished reports whether a job's status is final: completed, review or failed.
func (s JobStatus) Finished() bool {
	return s == JobStatusCompleted || s == JobStatusReview || s == JobStatusFailed
}
