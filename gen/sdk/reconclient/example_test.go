package reconclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"golang.org/x/oauth2/clientcredentials"

	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// The examples call a live service: STATEMENT_BASE_URL (http://localhost:8080 with `make run`),
// STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET name it and an API client of a fresh
// account. `make test` runs them against a server it starts; without STATEMENT_BASE_URL they
// are skipped (see main_test.go).

// Reconcile a bank statement against the expected payments: upload both files, wait for the
// job, read the results. The client gets and renews its access token itself and retries 429,
// 500 and 503 answers by the API's rule.
func Example() {
	ctx := context.Background()
	c := reconclient.New(os.Getenv("STATEMENT_BASE_URL"), os.Getenv("STATEMENT_CLIENT_ID"), os.Getenv("STATEMENT_CLIENT_SECRET"))

	bank, err := reconclient.UploadFile("testdata/bank.csv")
	if err != nil {
		log.Fatal(err)
	}
	expected, err := reconclient.UploadFile("testdata/expected.csv")
	if err != nil {
		log.Fatal(err)
	}
	accepted, err := c.CreateJob(ctx, bank, expected, nil)
	if err != nil {
		log.Fatal(err) // an *reconclient.APIError when the API refused the upload
	}
	job, err := c.WaitForJob(ctx, accepted.JobId, time.Second, nil)
	if err != nil {
		log.Fatal(err)
	}
	if job.Status == reconclient.JobStatusFailed {
		log.Fatalf("job failed: %s", job.Error.Message)
	}
	res, err := c.GetJobResults(ctx, job.JobId)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range res.Matched {
		fmt.Println("paid:", m.Reference, m.Amount.StringFixed(2), "by", m.Rule)
	}
	for _, p := range res.Partial {
		fmt.Println("partly paid:", p.Reference, p.MatchedAmount.StringFixed(2), "of", p.ExpectedAmount.StringFixed(2))
	}
	for _, u := range res.Unmatched {
		fmt.Println("open:", u.Reference, u.Amount.StringFixed(2))
	}
	for _, e := range res.UnmatchedBankEntries {
		fmt.Println("unexpected:", e.Date, e.Text, e.Amount.StringFixed(2))
	}
	// Output:
	// paid: INV-2024-001 1250.50 by exact
	// paid: INV-2024-002 900.00 by instalments
	// partly paid: INV-2024-003 450.00 of 500.00
	// open: INV-2024-004 75.00
	// unexpected: 2024-03-01 CARD PAYMENT OFFICE SUPPLIES -42.99
}

// The token endpoint speaks standard OAuth 2.0 client credentials, so golang.org/x/oauth2 can
// get and renew the tokens instead of the client.
func Example_clientCredentials() {
	ctx := context.Background()
	base := os.Getenv("STATEMENT_BASE_URL")
	cfg := clientcredentials.Config{
		ClientID:     os.Getenv("STATEMENT_CLIENT_ID"),
		ClientSecret: os.Getenv("STATEMENT_CLIENT_SECRET"),
		TokenURL:     base + "/api/v1/token",
	}
	c := reconclient.New(base, "", "", reconclient.WithTokenSource(cfg.TokenSource(ctx)))
	limits, err := c.GetLimits(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("jobs used this month:", limits.JobsUsed <= limits.JobsLimit)
	// Output:
	// jobs used this month: true
}

// Errors are values: an *APIError says what the API refused and why.
func ExampleAPIError() {
	ctx := context.Background()
	c := reconclient.New(os.Getenv("STATEMENT_BASE_URL"), os.Getenv("STATEMENT_CLIENT_ID"), os.Getenv("STATEMENT_CLIENT_SECRET"))
	_, err := c.GetJobResults(ctx, reconclient.JobId{})
	var apiErr *reconclient.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == reconclient.ErrorCodeNotFound:
		fmt.Println("no such job:", apiErr.StatusCode)
	case errors.As(err, &apiErr) && apiErr.Code == reconclient.ErrorCodeJobNotReady:
		fmt.Println("still processing; wait for it first")
	case err != nil:
		log.Fatal(err) // quote apiErr.RequestID to support
	}
	// Output:
	// no such job: 404
}
