package reconclient

// Handwritten, not generated: the one-call form of every operation of the Reconciliation API.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/statementmatch/service/gen/sdk/internal/sdkhttp"
)

// Upload is a file to send: Name (the base name is kept) names it, Content is read once, into
// memory, so that a retry can send it again.
type Upload = sdkhttp.Upload

// UploadFile reads the file at path into an Upload named after the file.
func UploadFile(path string) (Upload, error) { return sdkhttp.UploadFile(path) }

// CreateJobOptions are the optional settings of a reconciliation.
type CreateJobOptions struct {
	// Password opens a password-protected bank statement PDF; it is used once and never
	// stored.
	Password string
	// Env is the environment the job runs in; the base URL's when empty.
	Env Environment
	// IdempotencyKey makes a repeated upload answer with the first one's job; the client
	// sets a fresh one when empty, so that its own retries never create a second job.
	IdempotencyKey string
}

// CreateToken asks the token endpoint for a new access token with the client's credentials,
// whatever token the client holds. The client's own calls need none of this: they get and
// renew their tokens themselves.
func (c *Client) CreateToken(ctx context.Context) (AccessToken, error) {
	own, ok := c.tokens.(*TokenSource)
	if c.tokens == nil {
		return AccessToken{}, fmt.Errorf("the client has no credentials")
	}
	if !ok {
		return AccessToken{}, fmt.Errorf("the client takes its tokens from a TokenSource of its caller's, not from its own credentials")
	}
	r, err := own.client.CreateTokenWithResponse(ctx, CreateTokenJSONRequestBody{ClientId: own.clientID, ClientSecret: own.clientSecret})
	if err != nil {
		return AccessToken{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
}

// CreateJob uploads a bank statement and the expected payments and returns the accepted job
// (status processing); WaitForJob waits for its result.
func (c *Client) CreateJob(ctx context.Context, bank, expected Upload, opts *CreateJobOptions) (JobAccepted, error) {
	if opts == nil {
		opts = &CreateJobOptions{}
	}
	parts := []sdkhttp.Part{
		{Field: "bank", FileName: filepath.Base(bank.Name), Content: bank.Content},
		{Field: "expected", FileName: filepath.Base(expected.Name), Content: expected.Content},
	}
	if opts.Env != "" {
		parts = append(parts, sdkhttp.Part{Field: "env", Text: string(opts.Env)})
	}
	if opts.Password != "" {
		parts = append(parts, sdkhttp.Part{Field: "password", Text: opts.Password})
	}
	contentType, body, err := sdkhttp.Form(parts...)
	if err != nil {
		return JobAccepted{}, err
	}
	params := &CreateJobParams{}
	if opts.IdempotencyKey != "" {
		params.IdempotencyKey = &opts.IdempotencyKey
	}
	r, err := c.Raw.CreateJobWithBodyWithResponse(ctx, params, contentType, body)
	if err != nil {
		return JobAccepted{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON202, Check)
}

// GetJob returns a job's state.
func (c *Client) GetJob(ctx context.Context, id JobId) (Job, error) {
	r, err := c.Raw.GetJobWithResponse(ctx, id)
	if err != nil {
		return Job{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
}

// DeleteJob deletes a finished job, its files and its results; reading it afterwards answers
// 410 GONE.
func (c *Client) DeleteJob(ctx context.Context, id JobId) error {
	r, err := c.Raw.DeleteJobWithResponse(ctx, id)
	if err != nil {
		return err
	}
	return Check(r.HTTPResponse, r.Body)
}

// GetJobResults returns a completed job's matched, unmatched and unexpected payments.
// ExportJobResults downloads the same as a spreadsheet.
func (c *Client) GetJobResults(ctx context.Context, id JobId) (JobResults, error) {
	r, err := c.Raw.GetJobResultsWithResponse(ctx, id, nil)
	if err != nil {
		return JobResults{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
}

// ExportJobResults streams a completed job's results in format (csv, xlsx or json) into w and
// returns the bytes written. A refusal is an *APIError (409 JOB_NOT_READY until the job is
// completed); an error after the download began means w holds a partial file.
func (c *Client) ExportJobResults(ctx context.Context, id JobId, format ResultsFormat, w io.Writer) (int64, error) {
	resp, err := c.Raw.GetJobResults(ctx, id, &GetJobResultsParams{Format: &format})
	return sdkhttp.Download(resp, err, Check, fmt.Sprintf("results of job %s", id), w)
}

// GetLimits returns the API client's plan and what is left of it.
func (c *Client) GetLimits(ctx context.Context) (Quota, error) {
	r, err := c.Raw.GetLimitsWithResponse(ctx)
	if err != nil {
		return Quota{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
}

// GetHealth returns the liveness of the process answering.
func (c *Client) GetHealth(ctx context.Context) (Health, error) {
	r, err := c.Raw.GetHealthWithResponse(ctx)
	if err != nil {
		return Health{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
}

// GetReadiness returns whether the process can serve requests; when it cannot (503), the
// answer is an *APIError.
func (c *Client) GetReadiness(ctx context.Context) (Readiness, error) {
	r, err := c.Raw.GetReadinessWithResponse(ctx)
	if err != nil {
		return Readiness{}, err
	}
	return sdkhttp.Result(r.HTTPResponse, r.Body, r.JSON200, Check)
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
// it is completed or failed and returns it; progress, when not nil, sees every state read. It
// ends early with ctx.
func (c *Client) WaitForJob(ctx context.Context, id JobId, interval time.Duration, progress func(Job)) (Job, error) {
	return sdkhttp.Poll(ctx, interval, func() (Job, bool, error) {
		job, err := c.GetJob(ctx, id)
		if err != nil {
			return Job{}, false, err
		}
		if progress != nil {
			progress(job)
		}
		return job, job.Status != JobStatusProcessing, nil
	})
}
