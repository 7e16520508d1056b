package reconclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"mime/multipart"
	"os"
	"time"

	"golang.org/x/oauth2/clientcredentials"

	"github.com/statementmatch/service/gen/reconclient"
)

// The examples run against a live service: set STATEMENT_BASE_URL (http://localhost:8080 with
// `make run`), STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET. They have no Output line, so
// `go test` compiles them but does not run them.

// Reconcile a bank statement against the expected payments: upload both files, wait for the
// job, read the results. The client gets and renews its access token itself and retries 429,
// 500 and 503 answers by the API's rule.
func Example() {
	ctx := context.Background()
	c, err := reconclient.New(os.Getenv("STATEMENT_BASE_URL"), os.Getenv("STATEMENT_CLIENT_ID"), os.Getenv("STATEMENT_CLIENT_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	contentType, body, err := uploadForm(map[string]string{"bank": "bank.csv", "expected": "expected.csv"})
	if err != nil {
		log.Fatal(err)
	}
	created, err := c.CreateJobWithBodyWithResponse(ctx, nil, contentType, body)
	if err != nil {
		log.Fatal(err)
	}
	if err := reconclient.Check(created.HTTPResponse, created.Body); err != nil {
		log.Fatal(err) // *reconclient.APIError: status, code, message, request id
	}
	job, err := c.WaitForJob(ctx, created.JSON202.JobId, time.Second, func(j reconclient.Job) {
		fmt.Println("job", j.JobId, j.Status)
	})
	if err != nil {
		log.Fatal(err)
	}
	if job.Status == reconclient.JobStatusFailed {
		log.Fatalf("job failed: %s", job.Error.Message)
	}
	res, err := c.GetJobResultsWithResponse(ctx, job.JobId, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := reconclient.Check(res.HTTPResponse, res.Body); err != nil {
		log.Fatal(err)
	}
	for _, m := range res.JSON200.Matched {
		fmt.Println("paid:", m.Reference, m.Amount)
	}
	for _, u := range res.JSON200.Unmatched {
		fmt.Println("open:", u.Reference, u.Amount)
	}
}

// The token endpoint speaks standard OAuth 2.0 client credentials, so the generated client also
// works with golang.org/x/oauth2, which then gets and renews the tokens.
func Example_clientCredentials() {
	ctx := context.Background()
	base := os.Getenv("STATEMENT_BASE_URL")
	cfg := clientcredentials.Config{
		ClientID:     os.Getenv("STATEMENT_CLIENT_ID"),
		ClientSecret: os.Getenv("STATEMENT_CLIENT_SECRET"),
		TokenURL:     base + "/api/v1/token",
	}
	c, err := reconclient.NewClientWithResponses(base, reconclient.WithHTTPClient(cfg.Client(ctx)))
	if err != nil {
		log.Fatal(err)
	}
	limits, err := c.GetLimitsWithResponse(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := reconclient.Check(limits.HTTPResponse, limits.Body); err != nil {
		log.Fatal(err)
	}
	fmt.Println("plan:", limits.JSON200.Plan)
}

// Errors are values: an *APIError says what the API refused and why.
func ExampleAPIError() {
	ctx := context.Background()
	c, err := reconclient.New(os.Getenv("STATEMENT_BASE_URL"), os.Getenv("STATEMENT_CLIENT_ID"), os.Getenv("STATEMENT_CLIENT_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := c.GetJobResultsWithResponse(ctx, [16]byte{}, nil)
	if err != nil {
		log.Fatal(err) // the service could not be reached, even after retries
	}
	var apiErr *reconclient.APIError
	if err := reconclient.Check(r.HTTPResponse, r.Body); errors.As(err, &apiErr) {
		switch apiErr.Code {
		case reconclient.ErrorCodeNotFound:
			fmt.Println("no such job")
		case reconclient.ErrorCodeJobNotReady:
			fmt.Println("still processing; wait for it first")
		default:
			fmt.Println(apiErr) // quote apiErr.RequestID to support
		}
	}
}

// uploadForm builds the multipart body of a job: each field's part holds the named file.
func uploadForm(files map[string]string) (string, *bytes.Buffer, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for field, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return "", nil, err
		}
		part, err := w.CreateFormFile(field, name)
		if err != nil {
			return "", nil, err
		}
		if _, err := part.Write(data); err != nil {
			return "", nil, err
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), &buf, nil
}
