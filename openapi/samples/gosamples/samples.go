// Package gosamples holds the Go code samples of the API reference pages (/docs): each region
// between "sample:start API OPERATION" and "sample:end" is shown for that operation, and
// contract-tests/docs_samples_test.go runs every function against a server, so no sample rots.
package gosamples

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// Env is what the samples take from their caller: the addresses, credentials and ids a
// reader has in their own variables.
type Env struct {
	BaseURL, ClientID, ClientSecret string // Reconciliation API
	ParseURL, APIKey                string // Parsing API
	JobID                           string // a finished job of the API the sample calls
	WebhookID, HookURL              string // a webhook endpoint, and a URL to register
	BankFile, ExpectedFile          string // files to reconcile
	StatementFile                   string // a file to parse
	Secret                          string // the account's webhook signing secret
	Delivery                        *http.Request
	Body                            []byte // the delivery's raw body
}

// Sample is one runnable sample.
type Sample struct {
	API, Operation string
	Run            func(context.Context, Env) error
}

// Samples lists every sample, in the order the tests run them (deletions last).
var Samples = []Sample{
	{"reconciliation", "createToken", reconCreateToken},
	{"reconciliation", "createJob", reconCreateJob},
	{"reconciliation", "getJob", reconGetJob},
	{"reconciliation", "getJobResults", reconGetJobResults},
	{"reconciliation", "getLimits", reconGetLimits},
	{"reconciliation", "getHealth", reconGetHealth},
	{"reconciliation", "getReadiness", reconGetReadiness},
	{"reconciliation", "getOpenAPISpec", reconGetOpenAPISpec},
	{"reconciliation", "getDocs", reconGetDocs},
	{"reconciliation", "deleteJob", reconDeleteJob},
	{"parsing", "createJob", parseCreateJob},
	{"parsing", "listJobs", parseListJobs},
	{"parsing", "getJob", parseGetJob},
	{"parsing", "getJobResults", parseGetJobResults},
	{"parsing", "exportJob", parseExportJob},
	{"parsing", "getUsage", parseGetUsage},
	{"parsing", "getStatus", parseGetStatus},
	{"parsing", "createWebhook", parseCreateWebhook},
	{"parsing", "listWebhooks", parseListWebhooks},
	{"parsing", "listWebhookDeliveries", parseListWebhookDeliveries},
	{"parsing", "testWebhook", parseTestWebhook},
	{"parsing", "receiveWebhookEvent", parseReceiveWebhookEvent},
	{"parsing", "getHealth", parseGetHealth},
	{"parsing", "getReadiness", parseGetReadiness},
	{"parsing", "getOpenAPISpec", parseGetOpenAPISpec},
	{"parsing", "getDocs", parseGetDocs},
	{"parsing", "deleteWebhook", parseDeleteWebhook},
	{"parsing", "deleteJob", parseDeleteJob},
}

func reconCreateToken(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret := e.BaseURL, e.ClientID, e.ClientSecret
	// sample:start reconciliation createToken
	// reconclient.New gets and renews tokens itself; CreateToken asks for one explicitly.
	c := reconclient.New(baseURL, clientID, clientSecret)
	token, err := c.CreateToken(ctx)
	if err != nil {
		return err
	}
	fmt.Println("token valid for", token.ExpiresIn, "seconds")
	// sample:end
	return nil
}

func reconCreateJob(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret, bankPath, expectedPath := e.BaseURL, e.ClientID, e.ClientSecret, e.BankFile, e.ExpectedFile
	// sample:start reconciliation createJob
	c := reconclient.New(baseURL, clientID, clientSecret)
	bank, err := reconclient.UploadFile(bankPath) // "march.csv"
	if err != nil {
		return err
	}
	expected, err := reconclient.UploadFile(expectedPath)
	if err != nil {
		return err
	}
	accepted, err := c.CreateJob(ctx, bank, expected, nil) // an *reconclient.APIError on a refusal
	if err != nil {
		return err
	}
	job, err := c.WaitForJob(ctx, accepted.JobId, time.Second, nil)
	if err != nil {
		return err
	}
	fmt.Println("job", job.JobId, job.Status)
	// sample:end
	return nil
}

func reconGetJob(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret, jobID := e.BaseURL, e.ClientID, e.ClientSecret, e.JobID
	// sample:start reconciliation getJob
	c := reconclient.New(baseURL, clientID, clientSecret)
	job, err := c.GetJob(ctx, uuid.MustParse(jobID))
	if err != nil {
		return err
	}
	fmt.Println(job.Status, job.CreatedAt)
	// sample:end
	return nil
}

func reconGetJobResults(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret, jobID := e.BaseURL, e.ClientID, e.ClientSecret, e.JobID
	// sample:start reconciliation getJobResults
	c := reconclient.New(baseURL, clientID, clientSecret)
	res, err := c.GetJobResults(ctx, uuid.MustParse(jobID))
	if err != nil {
		return err
	}
	for _, m := range res.Matched {
		fmt.Println("paid:", m.Reference, m.Amount.StringFixed(2), "by", m.Rule)
	}
	for _, u := range res.Unmatched {
		fmt.Println("open:", u.Reference, u.Amount.StringFixed(2))
	}
	// The same as a spreadsheet: c.ExportJobResults(ctx, id, reconclient.ResultsFormatXlsx, file)
	// sample:end
	return nil
}

func reconGetLimits(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret := e.BaseURL, e.ClientID, e.ClientSecret
	// sample:start reconciliation getLimits
	c := reconclient.New(baseURL, clientID, clientSecret)
	q, err := c.GetLimits(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%d of %d jobs left until %s\n", q.JobsRemaining, q.JobsLimit, q.ResetDate.Format(time.DateOnly))
	// sample:end
	return nil
}

func reconGetHealth(ctx context.Context, e Env) error {
	baseURL := e.BaseURL
	// sample:start reconciliation getHealth
	c := reconclient.New(baseURL, "", "") // no credentials needed
	h, err := c.GetHealth(ctx)
	if err != nil {
		return err
	}
	fmt.Println(h.Status)
	// sample:end
	return nil
}

func reconGetReadiness(ctx context.Context, e Env) error {
	baseURL := e.BaseURL
	// sample:start reconciliation getReadiness
	c := reconclient.New(baseURL, "", "")
	r, err := c.GetReadiness(ctx) // a 503 (not ready) is an *reconclient.APIError
	if err != nil {
		return err
	}
	fmt.Println(r.Status, r.Database)
	// sample:end
	return nil
}

func reconGetOpenAPISpec(ctx context.Context, e Env) error {
	baseURL := e.BaseURL
	// sample:start reconciliation getOpenAPISpec
	c := reconclient.New(baseURL, "", "")
	spec, err := c.GetOpenAPISpec(ctx)
	if err != nil {
		return err
	}
	fmt.Println(len(spec), "bytes of YAML")
	// sample:end
	return nil
}

func reconGetDocs(ctx context.Context, e Env) error {
	baseURL := e.BaseURL
	// sample:start reconciliation getDocs
	c := reconclient.New(baseURL, "", "")
	page, err := c.GetDocs(ctx)
	if err != nil {
		return err
	}
	fmt.Println(len(page), "bytes of HTML")
	// sample:end
	return nil
}

func reconDeleteJob(ctx context.Context, e Env) error {
	baseURL, clientID, clientSecret, jobID := e.BaseURL, e.ClientID, e.ClientSecret, e.JobID
	// sample:start reconciliation deleteJob
	c := reconclient.New(baseURL, clientID, clientSecret)
	if err := c.DeleteJob(ctx, uuid.MustParse(jobID)); err != nil {
		return err // 409 JOB_STILL_PROCESSING while the job runs
	}
	fmt.Println("deleted; reading it now answers 410 GONE")
	// sample:end
	return nil
}

func parseCreateJob(ctx context.Context, e Env) error {
	parseURL, apiKey, path := e.ParseURL, e.APIKey, e.StatementFile
	// sample:start parsing createJob
	c := parseclient.New(parseURL, apiKey)
	file, err := parseclient.UploadFile(path) // "statement.pdf"
	if err != nil {
		return err
	}
	job, err := c.CreateJob(ctx, file, nil) // &parseclient.CreateJobOptions{Password: ...} for a protected PDF
	if err != nil {
		return err
	}
	job, err = c.WaitForJob(ctx, job.JobId, time.Second, nil)
	if err != nil {
		return err
	}
	fmt.Println(job.JobId, job.Status, job.TransactionsCount, "transactions")
	// sample:end
	return nil
}

func parseListJobs(ctx context.Context, e Env) error {
	parseURL, apiKey := e.ParseURL, e.APIKey
	// sample:start parsing listJobs
	c := parseclient.New(parseURL, apiKey)
	status := parseclient.JobStatusCompleted
	for job, err := range c.AllJobs(ctx, parseclient.ListJobsParams{Status: &status}) { // page after page
		if err != nil {
			return err
		}
		fmt.Println(job.JobId, job.FileName, job.TransactionsCount)
	}
	// sample:end
	return nil
}

func parseGetJob(ctx context.Context, e Env) error {
	parseURL, apiKey, jobID := e.ParseURL, e.APIKey, e.JobID
	// sample:start parsing getJob
	c := parseclient.New(parseURL, apiKey)
	job, err := c.GetJob(ctx, uuid.MustParse(jobID))
	if err != nil {
		return err
	}
	fmt.Println(job.Status, job.Format, job.TransactionsCount)
	// sample:end
	return nil
}

func parseGetJobResults(ctx context.Context, e Env) error {
	parseURL, apiKey, jobID := e.ParseURL, e.APIKey, e.JobID
	// sample:start parsing getJobResults
	c := parseclient.New(parseURL, apiKey)
	for tx, err := range c.AllTransactions(ctx, uuid.MustParse(jobID), 0) {
		if err != nil {
			return err
		}
		fmt.Println(tx.Date, tx.Amount.StringFixed(2), tx.Description)
	}
	// sample:end
	return nil
}

func parseExportJob(ctx context.Context, e Env) error {
	parseURL, apiKey, jobID := e.ParseURL, e.APIKey, e.JobID
	// sample:start parsing exportJob
	c := parseclient.New(parseURL, apiKey)
	f, err := os.CreateTemp("", "transactions-*.csv")
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := c.ExportJob(ctx, uuid.MustParse(jobID), parseclient.ExportFormatCsv, f) // streamed, any size
	if err != nil {
		return err
	}
	fmt.Println("wrote", n, "bytes to", f.Name())
	// sample:end
	return os.Remove(f.Name())
}

func parseGetUsage(ctx context.Context, e Env) error {
	parseURL, apiKey := e.ParseURL, e.APIKey
	// sample:start parsing getUsage
	c := parseclient.New(parseURL, apiKey)
	u, err := c.GetUsage(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%d of %d jobs this month (%.1f %%)\n", u.JobsCreated, u.JobsLimit, u.PercentUsed)
	// sample:end
	return nil
}

func parseGetStatus(ctx context.Context, e Env) error {
	parseURL, apiKey := e.ParseURL, e.APIKey
	// sample:start parsing getStatus
	c := parseclient.New(parseURL, apiKey)
	s, err := c.GetStatus(ctx)
	if err != nil {
		return err
	}
	fmt.Println(s.Status, s.Plan, s.RateLimit.Limit, "requests a minute")
	// sample:end
	return nil
}

func parseCreateWebhook(ctx context.Context, e Env) error {
	parseURL, apiKey, hookURL := e.ParseURL, e.APIKey, e.HookURL
	// sample:start parsing createWebhook
	c := parseclient.New(parseURL, apiKey)
	events := []parseclient.WebhookEventType{parseclient.WebhookEventTypeJobCompleted, parseclient.WebhookEventTypeJobFailed}
	endpoint, err := c.CreateWebhook(ctx, parseclient.CreateWebhookRequest{Url: hookURL, Events: &events})
	if err != nil {
		return err
	}
	fmt.Println("endpoint", endpoint.Id, "- keep the secret:", endpoint.SigningSecret)
	// sample:end
	return nil
}

func parseListWebhooks(ctx context.Context, e Env) error {
	parseURL, apiKey := e.ParseURL, e.APIKey
	// sample:start parsing listWebhooks
	c := parseclient.New(parseURL, apiKey)
	endpoints, err := c.ListWebhooks(ctx)
	if err != nil {
		return err
	}
	for _, w := range endpoints {
		fmt.Println(w.Id, w.Url, w.Enabled)
	}
	// sample:end
	return nil
}

func parseListWebhookDeliveries(ctx context.Context, e Env) error {
	parseURL, apiKey, webhookID := e.ParseURL, e.APIKey, e.WebhookID
	// sample:start parsing listWebhookDeliveries
	c := parseclient.New(parseURL, apiKey)
	for d, err := range c.AllWebhookDeliveries(ctx, uuid.MustParse(webhookID)) {
		if err != nil {
			return err
		}
		fmt.Println(d.Id, d.Event, d.Status, d.AttemptsCount, "attempts")
	}
	// sample:end
	return nil
}

func parseTestWebhook(ctx context.Context, e Env) error {
	parseURL, apiKey := e.ParseURL, e.APIKey
	// sample:start parsing testWebhook
	c := parseclient.New(parseURL, apiKey)
	res, err := c.TestWebhook(ctx, nil) // a signed job.completed sample to every enabled endpoint
	if err != nil {
		return err
	}
	for _, d := range res.Deliveries {
		fmt.Println(d.WebhookId, d.Success)
	}
	// sample:end
	return nil
}

func parseReceiveWebhookEvent(_ context.Context, e Env) error {
	secret, r, body := e.Secret, e.Delivery, e.Body
	// sample:start parsing receiveWebhookEvent
	// In your endpoint's handler: verify the raw body before trusting it.
	event, err := parseclient.VerifyWebhook(secret, r.Header, body, 5*time.Minute)
	if err != nil {
		return err // answer 401 and ignore the delivery
	}
	if job, err := event.Data.AsWebhookJobData(); err == nil && event.Event == parseclient.WebhookEventTypeJobCompleted {
		fmt.Println("job", job.JobId, "completed with", job.TransactionsCount, "transactions")
	}
	// sample:end
	return nil
}

func parseGetHealth(ctx context.Context, e Env) error {
	parseURL := e.ParseURL
	// sample:start parsing getHealth
	c := parseclient.New(parseURL, "") // no key needed
	h, err := c.GetHealth(ctx)
	if err != nil {
		return err
	}
	fmt.Println(h.Status)
	// sample:end
	return nil
}

func parseGetReadiness(ctx context.Context, e Env) error {
	parseURL := e.ParseURL
	// sample:start parsing getReadiness
	c := parseclient.New(parseURL, "")
	r, err := c.GetReadiness(ctx) // a 503 (not ready) returns the readiness and an *parseclient.APIError
	if err != nil {
		return err
	}
	fmt.Println(r.Status, r.Database)
	// sample:end
	return nil
}

func parseGetOpenAPISpec(ctx context.Context, e Env) error {
	parseURL := e.ParseURL
	// sample:start parsing getOpenAPISpec
	c := parseclient.New(parseURL, "")
	spec, err := c.GetOpenAPISpec(ctx)
	if err != nil {
		return err
	}
	fmt.Println(len(spec), "bytes of YAML")
	// sample:end
	return nil
}

func parseGetDocs(ctx context.Context, e Env) error {
	parseURL := e.ParseURL
	// sample:start parsing getDocs
	c := parseclient.New(parseURL, "")
	page, err := c.GetDocs(ctx)
	if err != nil {
		return err
	}
	fmt.Println(len(page), "bytes of HTML")
	// sample:end
	return nil
}

func parseDeleteWebhook(ctx context.Context, e Env) error {
	parseURL, apiKey, webhookID := e.ParseURL, e.APIKey, e.WebhookID
	// sample:start parsing deleteWebhook
	c := parseclient.New(parseURL, apiKey)
	deleted, err := c.DeleteWebhook(ctx, uuid.MustParse(webhookID))
	if err != nil {
		return err
	}
	fmt.Println("deleted", deleted.Id)
	// sample:end
	return nil
}

func parseDeleteJob(ctx context.Context, e Env) error {
	parseURL, apiKey, jobID := e.ParseURL, e.APIKey, e.JobID
	// sample:start parsing deleteJob
	c := parseclient.New(parseURL, apiKey)
	if err := c.DeleteJob(ctx, uuid.MustParse(jobID)); err != nil {
		return err // 409 JOB_STILL_PROCESSING while the job runs
	}
	fmt.Println("deleted; reading it now answers 410 GONE")
	// sample:end
	return nil
}
