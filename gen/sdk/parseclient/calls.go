package parseclient

// Handwritten, not generated: the one-call form of every operation of the Parsing API.

import (
	"context"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"time"

	"github.com/statementmatch/service/gen/sdk/internal/sdkhttp"
)

// Upload is a file to send: Name (the base name is kept) names it, Content is read once, into
// memory, so that a retry can send it again.
type Upload = sdkhttp.Upload

// UploadFile reads the file at path into an Upload named after the file.
func UploadFile(path string) (Upload, error) { return sdkhttp.UploadFile(path) }

// CreateJobOptions are the optional settings of an upload.
type CreateJobOptions struct {
	// Password opens a password-protected PDF; it is used once and never stored.
	Password string
	// IdempotencyKey makes a repeated upload answer with the first one's job; the client
	// sets a fresh one when empty, so that its own retries never create a second job.
	IdempotencyKey string
}

// CreateJob uploads a bank statement for parsing and returns the accepted job (status
// processing); WaitForJob waits for its result.
func (c *Client) CreateJob(ctx context.Context, file Upload, opts *CreateJobOptions) (Job, error) {
	if opts == nil {
		opts = &CreateJobOptions{}
	}
	parts := []sdkhttp.Part{{Field: "file", FileName: filepath.Base(file.Name), Content: file.Content}}
	if opts.Password != "" {
		parts = append(parts, sdkhttp.Part{Field: "password", Text: opts.Password})
	}
	contentType, body, err := sdkhttp.Form(parts...)
	if err != nil {
		return Job{}, err
	}
	params := &CreateJobParams{}
	if opts.IdempotencyKey != "" {
		params.IdempotencyKey = &opts.IdempotencyKey
	}
	r, err := c.Raw.CreateJobWithBodyWithResponse(ctx, params, contentType, body)
	if err != nil {
		return Job{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON202, Check)
	return env.Data, err
}

// ListJobs returns one page of the account's jobs, newest first; params may be nil. AllJobs
// iterates over every page.
func (c *Client) ListJobs(ctx context.Context, params *ListJobsParams) (JobList, error) {
	r, err := c.Raw.ListJobsWithResponse(ctx, params)
	if err != nil {
		return JobList{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// AllJobs iterates over the jobs that params select, newest first, fetching page after page.
// params.Cursor is where it starts (nil: the first page). Iteration stops at the first error,
// which is yielded.
func (c *Client) AllJobs(ctx context.Context, params ListJobsParams) iter.Seq2[Job, error] {
	return sdkhttp.Pages(params.Cursor, func(cursor *string) ([]Job, *string, error) {
		params.Cursor = cursor
		page, err := c.ListJobs(ctx, &params)
		return page.Jobs, page.NextCursor, err
	})
}

// GetJob returns a job's state and what was learned about its statement.
func (c *Client) GetJob(ctx context.Context, id JobId) (Job, error) {
	r, err := c.Raw.GetJobWithResponse(ctx, id)
	if err != nil {
		return Job{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// DeleteJob deletes a finished job, its file and its results; reading it afterwards answers
// 410 GONE.
func (c *Client) DeleteJob(ctx context.Context, id JobId) error {
	r, err := c.Raw.DeleteJobWithResponse(ctx, id)
	if err != nil {
		return err
	}
	return Check(r.HTTPResponse, r.Body)
}

// GetJobResults returns one page of a finished job's transactions; params may be nil.
// AllTransactions iterates over every page, ExportJob streams them in one download.
func (c *Client) GetJobResults(ctx context.Context, id JobId, params *GetJobResultsParams) (TransactionPage, error) {
	r, err := c.Raw.GetJobResultsWithResponse(ctx, id, params)
	if err != nil {
		return TransactionPage{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// AllTransactions iterates over every transaction of a finished job, in statement order, a page
// of pageSize (1-1000; 0 is 1000) at a time. For very large jobs ExportJob streams the same in
// one download.
func (c *Client) AllTransactions(ctx context.Context, id JobId, pageSize int) iter.Seq2[Transaction, error] {
	if pageSize <= 0 {
		pageSize = 1000
	}
	return sdkhttp.Pages(nil, func(cursor *string) ([]Transaction, *string, error) {
		page, err := c.GetJobResults(ctx, id, &GetJobResultsParams{Limit: &pageSize, Cursor: cursor})
		return page.Transactions, page.NextCursor, err
	})
}

// ExportJob streams job id's transactions in format (csv or json) into w, whatever their
// number, and returns the bytes written. A refusal is an *APIError (409 JOB_NOT_READY until
// the job is finished); an error after the download began means w holds a partial export.
func (c *Client) ExportJob(ctx context.Context, id JobId, format ExportFormat, w io.Writer) (int64, error) {
	resp, err := c.Raw.ExportJob(ctx, id, &ExportJobParams{Format: &format})
	return sdkhttp.Download(resp, err, Check, fmt.Sprintf("export of job %s", id), w)
}

// GetUsage returns the account's usage of the current period against its plan.
func (c *Client) GetUsage(ctx context.Context) (Usage, error) {
	r, err := c.Raw.GetUsageWithResponse(ctx)
	if err != nil {
		return Usage{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// GetStatus returns the service's health and the plan of the key's account.
func (c *Client) GetStatus(ctx context.Context) (ServiceStatus, error) {
	r, err := c.Raw.GetStatusWithResponse(ctx)
	if err != nil {
		return ServiceStatus{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// CreateWebhook registers a webhook endpoint and returns it with the account's signing secret,
// which only this answer shows. A retry of the same registration gets the same endpoint.
func (c *Client) CreateWebhook(ctx context.Context, endpoint CreateWebhookRequest) (WebhookEndpointCreated, error) {
	r, err := c.Raw.CreateWebhookWithResponse(ctx, nil, endpoint)
	if err != nil {
		return WebhookEndpointCreated{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON201, Check)
	return env.Data, err
}

// ListWebhooks returns every webhook endpoint of the account, oldest first.
func (c *Client) ListWebhooks(ctx context.Context) ([]WebhookEndpoint, error) {
	r, err := c.Raw.ListWebhooksWithResponse(ctx)
	if err != nil {
		return nil, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data.Webhooks, err
}

// DeleteWebhook removes a webhook endpoint; deliveries to it stop.
func (c *Client) DeleteWebhook(ctx context.Context, id WebhookId) (DeletedWebhook, error) {
	r, err := c.Raw.DeleteWebhookWithResponse(ctx, id)
	if err != nil {
		return DeletedWebhook{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// ListWebhookDeliveries returns one page of the deliveries to an endpoint, newest first;
// params may be nil. AllWebhookDeliveries iterates over every page.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id WebhookId, params *ListWebhookDeliveriesParams) (WebhookDeliveryList, error) {
	r, err := c.Raw.ListWebhookDeliveriesWithResponse(ctx, id, params)
	if err != nil {
		return WebhookDeliveryList{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// AllWebhookDeliveries iterates over the deliveries to a webhook endpoint, newest first.
func (c *Client) AllWebhookDeliveries(ctx context.Context, id WebhookId) iter.Seq2[WebhookDelivery, error] {
	limit := 100
	return sdkhttp.Pages(nil, func(cursor *string) ([]WebhookDelivery, *string, error) {
		page, err := c.ListWebhookDeliveries(ctx, id, &ListWebhookDeliveriesParams{Limit: &limit, Cursor: cursor})
		return page.Deliveries, page.NextCursor, err
	})
}

// TestWebhook sends a sample event to the account's endpoints (or the one test names; test
// may be nil) and returns each delivery's outcome.
func (c *Client) TestWebhook(ctx context.Context, test *WebhookTestRequest) (WebhookTestResult, error) {
	if test == nil {
		test = &WebhookTestRequest{}
	}
	r, err := c.Raw.TestWebhookWithResponse(ctx, *test)
	if err != nil {
		return WebhookTestResult{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// GetHealth returns the liveness of the process answering.
func (c *Client) GetHealth(ctx context.Context) (Health, error) {
	r, err := c.Raw.GetHealthWithResponse(ctx)
	if err != nil {
		return Health{}, err
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// GetReadiness returns whether the process can serve requests. When it cannot (503), the
// readiness read is returned with the *APIError.
func (c *Client) GetReadiness(ctx context.Context) (Readiness, error) {
	r, err := c.Raw.GetReadinessWithResponse(ctx)
	if err != nil {
		return Readiness{}, err
	}
	if r.JSON503 != nil {
		return r.JSON503.Data, Check(r.HTTPResponse, r.Body)
	}
	env, err := sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
	return env.Data, err
}

// GetOpenAPISpec returns the API's OpenAPI document, as YAML.
func (c *Client) GetOpenAPISpec(ctx context.Context) ([]byte, error) {
	r, err := c.Raw.GetOpenAPISpecWithResponse(ctx)
	if err != nil {
		return nil, err
	}
	return r.Body, Check(r.HTTPResponse, r.Body)
}

// GetDocs returns the API's reference page, as HTML.
func (c *Client) GetDocs(ctx context.Context) ([]byte, error) {
	r, err := c.Raw.GetDocsWithResponse(ctx)
	if err != nil {
		return nil, err
	}
	return r.Body, Check(r.HTTPResponse, r.Body)
}

// WaitForJob polls job id, first after interval (1 s when 0) and then ever less often (the
// wait doubles up to 10 s, so a long job does not use up the plan's requests a minute), until
// it is finished (completed, review or failed) and returns it; progress, when not nil, sees
// every state read. It ends early with ctx.
func (c *Client) WaitForJob(ctx context.Context, id JobId, interval time.Duration, progress func(Job)) (Job, error) {
	return sdkhttp.Poll(ctx, interval, func() (Job, bool, error) {
		job, err := c.GetJob(ctx, id)
		if err != nil {
			return Job{}, false, err
		}
		if progress != nil {
			progress(job)
		}
		return job, job.Status.Finished(), nil
	})
}
