package parseclient_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"mime/multipart"
	"os"
	"time"

	"github.com/statementmatch/service/gen/parseclient"
)

// The examples run against a live service: set STATEMENT_PARSE_BASE_URL
// (http://localhost:8082 with `make run`) and STATEMENT_API_KEY. They have no Output line, so
// `go test` compiles them but does not run them.

// Parse a bank statement into transactions: upload the file, wait for the job, read every
// transaction. The client sends the API key, retries 429, 500 and 503 answers by the API's rule
// and gives the upload an Idempotency-Key, so a retry never creates a second job.
func Example() {
	ctx := context.Background()
	c, err := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	contentType, body, err := statementForm("statement.sta")
	if err != nil {
		log.Fatal(err)
	}
	created, err := c.CreateJobWithBodyWithResponse(ctx, nil, contentType, body)
	if err != nil {
		log.Fatal(err)
	}
	if err := parseclient.Check(created.HTTPResponse, created.Body); err != nil {
		log.Fatal(err) // *parseclient.APIError: status, code, detail, request id
	}
	job, err := c.WaitForJob(ctx, created.JSON202.Data.JobId, time.Second, nil)
	if err != nil {
		log.Fatal(err)
	}
	switch job.Status {
	case parseclient.JobStatusFailed:
		log.Fatalf("%s: %s", job.Error.Code, job.Error.Message)
	case parseclient.JobStatusReview:
		for _, r := range job.ReviewReasons {
			fmt.Println("check:", r.Message)
		}
	}
	for tx, err := range c.AllTransactions(ctx, job.JobId, 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tx.Date, tx.Amount, tx.Description)
	}
}

// List every job that ended in review this month, newest first, page after page.
func ExampleClientWithResponses_AllJobs() {
	ctx := context.Background()
	c, err := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	now := time.Now().UTC()
	since := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	status := parseclient.JobStatusReview
	for j, err := range c.AllJobs(ctx, parseclient.ListJobsParams{Status: &status, CreatedAfter: &since}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(j.JobId, j.FileName, len(j.ReviewReasons), "reasons")
	}
}

// Download a job's transactions as CSV, streamed straight into a file whatever its size.
func ExampleClientWithResponses_ExportTo() {
	ctx := context.Background()
	c, err := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	var id parseclient.JobId // from an upload
	f, err := os.Create("transactions.csv")
	if err != nil {
		log.Fatal(err)
	}
	n, err := c.ExportTo(ctx, id, parseclient.ExportFormatCsv, f)
	if err != nil {
		log.Fatal(err) // 409 JOB_NOT_READY until the job is finished
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "bytes")
}

// Register an endpoint for finished jobs and keep the signing secret its answer carries; verify
// each delivery with VerifyWebhook (see its example).
func ExampleClientWithResponses_CreateWebhookWithResponse() {
	ctx := context.Background()
	c, err := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	events := []parseclient.WebhookEventType{parseclient.WebhookEventTypeJobCompleted, parseclient.WebhookEventTypeJobFailed}
	r, err := c.CreateWebhookWithResponse(ctx, nil, parseclient.CreateWebhookJSONRequestBody{
		Url: "https://hooks.example.com/statements", Events: &events})
	if err != nil {
		log.Fatal(err)
	}
	if err := parseclient.Check(r.HTTPResponse, r.Body); err != nil {
		log.Fatal(err)
	}
	fmt.Println("endpoint", r.JSON201.Data.Id, "secret", r.JSON201.Data.SigningSecret)
	for d, err := range c.AllWebhookDeliveries(ctx, r.JSON201.Data.Id) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Id, d.Event, d.Status, d.AttemptsCount)
	}
}

// statementForm builds the multipart body of an upload: the file in the part "file".
func statementForm(name string) (string, *bytes.Buffer, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		return "", nil, err
	}
	if _, err := part.Write(data); err != nil {
		return "", nil, err
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), &buf, nil
}
