package parseclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// The examples call a live service: STATEMENT_PARSE_BASE_URL (http://localhost:8082 with
// `make run`) and STATEMENT_API_KEY name it and a key of a fresh account. `make test` runs
// them against a server it starts; without STATEMENT_PARSE_BASE_URL they are skipped (see
// main_test.go).

// statement is a small bank statement export; UploadFile reads one from a path.
const statement = `Date,Description,Amount,Balance
2024-03-01,Opening balance,,1000.00
2024-03-04,SEPA CREDIT ACME GMBH INV 2024 001,1250.50,2250.50
2024-03-05,CARD PAYMENT OFFICE SUPPLIES,-42.90,2207.60
`

// Parse a bank statement into transactions: upload the file, wait for the job, read every
// transaction. The client sends the API key, retries 429, 500 and 503 answers by the API's rule
// and gives the upload an Idempotency-Key, so a retry never creates a second job.
func Example() {
	ctx := context.Background()
	c := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))

	file := parseclient.Upload{Name: "march.csv", Content: strings.NewReader(statement)}
	job, err := c.CreateJob(ctx, file, nil)
	if err != nil {
		log.Fatal(err) // an *parseclient.APIError when the API refused the upload
	}
	job, err = c.WaitForJob(ctx, job.JobId, time.Second, nil)
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
	fmt.Println(job.FileName, job.Status)
	for tx, err := range c.AllTransactions(ctx, job.JobId, 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tx.Date, tx.Amount.StringFixed(2), tx.Description)
	}
	// Output:
	// march.csv completed
	// 2024-03-04 1250.50 SEPA CREDIT ACME GMBH INV 2024 001
	// 2024-03-05 -42.90 CARD PAYMENT OFFICE SUPPLIES
}

// Download a job's transactions as CSV, streamed straight into a file (here standard output)
// whatever its size.
func ExampleClient_ExportJob() {
	ctx := context.Background()
	c := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	job, err := c.CreateJob(ctx, parseclient.Upload{Name: "march.csv", Content: strings.NewReader(statement)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.WaitForJob(ctx, job.JobId, time.Second, nil); err != nil {
		log.Fatal(err)
	}
	var csv strings.Builder
	if _, err := c.ExportJob(ctx, job.JobId, parseclient.ExportFormatCsv, &csv); err != nil {
		log.Fatal(err) // 409 JOB_NOT_READY until the job is finished
	}
	header, _, _ := strings.Cut(csv.String(), "\n")
	fmt.Println(header)
	// Output:
	// id,date,value_date,amount,currency,description,reference,counterparty_name,counterparty_account,balance,type,raw
}

// List every job that ended in review this month, newest first, page after page.
func ExampleClient_AllJobs() {
	ctx := context.Background()
	c := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
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

// Register an endpoint for finished jobs and keep the signing secret its answer carries; verify
// each delivery with VerifyWebhook (see its example). The service refuses a URL whose host does
// not resolve to a public address, so this example only compiles.
func ExampleClient_CreateWebhook() {
	ctx := context.Background()
	c := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	events := []parseclient.WebhookEventType{parseclient.WebhookEventTypeJobCompleted, parseclient.WebhookEventTypeJobFailed}
	endpoint, err := c.CreateWebhook(ctx, parseclient.CreateWebhookRequest{Url: "https://hooks.example.com/statements", Events: &events})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("endpoint", endpoint.Url, "signs with a secret:", strings.HasPrefix(endpoint.SigningSecret, "whsec_"))
	for d, err := range c.AllWebhookDeliveries(ctx, endpoint.Id) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(d.Id, d.Event, d.Status, d.AttemptsCount)
	}
}

// Errors are values: an *APIError says what the API refused and why.
func ExampleAPIError() {
	ctx := context.Background()
	c := parseclient.New(os.Getenv("STATEMENT_PARSE_BASE_URL"), os.Getenv("STATEMENT_API_KEY"))
	_, err := c.GetJob(ctx, parseclient.JobId{})
	var apiErr *parseclient.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == parseclient.ErrorCodeNotFound:
		fmt.Println("no such job:", apiErr.StatusCode)
	case err != nil:
		log.Fatal(err) // quote apiErr.RequestID to support
	}
	// Output:
	// no such job: 404
}
