package parseclient

// Handwritten helpers of the Parsing API client (nothing in gen/ generates this file): a client
// that sends the API key and retries by the API reference's rule, errors as values, waiting
// for a job, and iterators over paginated lists.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"time"

	"github.com/statementmatch/service/gen/internal/sdkhttp"
)

// RetryPolicy is when and how long a request is retried; see DefaultRetryPolicy.
type RetryPolicy = sdkhttp.Policy

// DefaultRetryPolicy is the API reference's rule: up to 3 attempts, waiting 2 s then 4 s (or
// the answer's Retry-After, if longer), only after 429, 500 and 503 answers and failed
// connections. An answer whose Retry-After is over 2 minutes (a monthly limit) is not retried.
var DefaultRetryPolicy = sdkhttp.Default

// Option configures New.
type Option func(*settings)

type settings struct {
	doer  HttpRequestDoer
	retry RetryPolicy
}

// UseHTTPClient sends the requests with doer (an *http.Client, say) instead of a plain
// http.Client.
func UseHTTPClient(doer HttpRequestDoer) Option { return func(s *settings) { s.doer = doer } }

// UseRetryPolicy replaces DefaultRetryPolicy; RetryPolicy{Attempts: 1} turns retries off.
func UseRetryPolicy(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// New returns a client of the Parsing API at baseURL (such as https://parse.example.com) that
// authenticates every request with apiKey and retries by DefaultRetryPolicy. Request bodies
// are replayed on retries, and uploads and endpoint registrations without an Idempotency-Key
// get one, so a retry never creates a second job.
//
// Amounts are shopspring/decimal values. The API writes them as JSON numbers with the
// currency's decimals (1250.50); to marshal SDK values the same way, set
// decimal.MarshalJSONWithoutQuotes = true and decimal.TrimTrailingZeros = false once at start.
func New(baseURL, apiKey string, opts ...Option) (*ClientWithResponses, error) {
	s := settings{doer: sdkhttp.DefaultClient(), retry: DefaultRetryPolicy}
	for _, o := range opts {
		o(&s)
	}
	return NewClientWithResponses(baseURL, WithHTTPClient(sdkhttp.Retrying(s.doer, s.retry)),
		WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+apiKey)
			return nil
		}))
}

// APIError is an error answer of the API.
type APIError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the machine-readable code (NOT_FOUND, RATE_LIMITED, ...); empty when the answer
	// had no error body.
	Code ErrorCode
	// Detail is the human-readable explanation.
	Detail string
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
	if e.Detail != "" {
		msg += ": " + e.Detail
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
		e.Code, e.Detail = env.Error, env.Detail
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

// WaitForJob polls job id, first after interval (1 s when 0) and then ever less often (the
// wait doubles up to 10 s, so a long job does not use up the plan's requests a minute), until it is finished and returns it;
// progress, when not nil, sees every state read. It ends early with ctx.
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
			progress(r.JSON200.Data)
		}
		return r.JSON200.Data, r.JSON200.Data.Status.Finished(), nil
	})
}

// ExportTo streams job id's transactions in format (csv or json) into w, whatever their number,
// and returns the bytes written. A refusal is an *APIError (409 JOB_NOT_READY until the job is
// finished); an error after the download began means w holds a partial export.
func (c *ClientWithResponses) ExportTo(ctx context.Context, id JobId, format ExportFormat, w io.Writer) (int64, error) {
	resp, err := c.ExportJob(ctx, id, &ExportJobParams{Format: &format})
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return 0, Check(resp, body)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("export of job %s broke off after %d bytes: %w", id, n, err)
	}
	return n, nil
}

// AllJobs iterates over the jobs that params select, newest first, fetching page after page.
// params.Cursor is where it starts (nil: the first page). Iteration stops at the first error,
// which is yielded.
func (c *ClientWithResponses) AllJobs(ctx context.Context, params ListJobsParams) iter.Seq2[Job, error] {
	return sdkhttp.Pages(params.Cursor, func(cursor *string) ([]Job, *string, error) {
		params.Cursor = cursor
		r, err := c.ListJobsWithResponse(ctx, &params)
		if err == nil {
			err = Check(r.HTTPResponse, r.Body)
		}
		if err != nil {
			return nil, nil, err
		}
		return r.JSON200.Data.Jobs, r.JSON200.Data.NextCursor, nil
	})
}

// AllTransactions iterates over every transaction of a finished job, in statement order, a page
// of pageSize (1-1000; 0 is 1000) at a time. For very large jobs ExportTo streams the same in
// one download.
func (c *ClientWithResponses) AllTransactions(ctx context.Context, id JobId, pageSize int) iter.Seq2[Transaction, error] {
	if pageSize <= 0 {
		pageSize = 1000
	}
	return sdkhttp.Pages(nil, func(cursor *string) ([]Transaction, *string, error) {
		r, err := c.GetJobResultsWithResponse(ctx, id, &GetJobResultsParams{Limit: &pageSize, Cursor: cursor})
		if err == nil {
			err = Check(r.HTTPResponse, r.Body)
		}
		if err != nil {
			return nil, nil, err
		}
		return r.JSON200.Data.Transactions, r.JSON200.Data.NextCursor, nil
	})
}

// AllWebhookDeliveries iterates over the deliveries to a webhook endpoint, newest first.
func (c *ClientWithResponses) AllWebhookDeliveries(ctx context.Context, id WebhookId) iter.Seq2[WebhookDelivery, error] {
	limit := 100
	return sdkhttp.Pages(nil, func(cursor *string) ([]WebhookDelivery, *string, error) {
		r, err := c.ListWebhookDeliveriesWithResponse(ctx, id, &ListWebhookDeliveriesParams{Limit: &limit, Cursor: cursor})
		if err == nil {
			err = Check(r.HTTPResponse, r.Body)
		}
		if err != nil {
			return nil, nil, err
		}
		return r.JSON200.Data.Deliveries, r.JSON200.Data.NextCursor, nil
	})
}
