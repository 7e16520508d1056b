package contracttests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// These tests use the SDK the way an integrator does: reconclient.New and parseclient.New, with
// only the transport swapped for one that checks every answer against the spec.

// countingDoer counts the requests to one path.
type countingDoer struct {
	next  reconclient.HttpRequestDoer
	path  string
	count atomic.Int32
}

func (d *countingDoer) Do(req *http.Request) (*http.Response, error) {
	if req.URL.Path == d.path {
		d.count.Add(1)
	}
	return d.next.Do(req)
}

// TestSDKReconciliationClientGetsAndRenewsItsOwnTokens runs a reconciliation through
// reconclient.New, which asks for a token once and reuses it; then, on a server whose tokens
// live 2 s and with a token source whose clock runs 10 s late (so it believes an expired token
// is still good), the API's 401 makes the client get a new token and repeat the request once.
func TestSDKReconciliationClientGetsAndRenewsItsOwnTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	ctx := context.Background()
	doer := &countingDoer{next: recon(t).client(t), path: "/api/v1/token"}
	c := reconclient.New(s.ReconURL, ten.ClientID, ten.ClientSecret, reconclient.WithHTTPClient(doer))

	accepted, err := c.CreateJob(ctx, reconclient.Upload{Name: "bank.csv", Content: bytes.NewReader(bankCSV(reconBankLines))},
		reconclient.Upload{Name: "open invoices.csv", Content: strings.NewReader(reconExpectedCSV)}, nil)
	require.NoError(t, err)
	job, err := c.WaitForJob(ctx, accepted.JobId, 50*time.Millisecond, nil)
	require.NoError(t, err)
	require.Equal(t, reconclient.JobStatusCompleted, job.Status)
	res, err := c.GetJobResults(ctx, job.JobId)
	require.NoError(t, err)
	sum := res.Summary
	require.Equal(t, []int{2, 2, 1}, []int{sum.MatchedCount, sum.PartialCount, sum.UnmatchedCount})
	require.EqualValues(t, 1, doer.count.Load(), "one token served the upload, the polls and the results")

	var sheet bytes.Buffer
	n, err := c.ExportJobResults(ctx, job.JobId, reconclient.ResultsFormatXlsx, &sheet)
	require.NoError(t, err)
	require.EqualValues(t, sheet.Len(), n)
	require.True(t, bytes.HasPrefix(sheet.Bytes(), []byte("PK")), "an xlsx file is a zip")

	_, err = c.GetJob(ctx, uuid.New())
	apiErr, ok := errors.AsType[*reconclient.APIError](err)
	require.True(t, ok, "a refusal is an *APIError: %v", err)
	require.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	require.Equal(t, reconclient.ErrorCodeNotFound, apiErr.Code)
	require.NotEmpty(t, apiErr.RequestID)
	require.NotEmpty(t, apiErr.Message)

	fresh, err := c.CreateToken(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, fresh.AccessToken)
	require.EqualValues(t, 2, doer.count.Load(), "CreateToken asks for a new token whatever the client holds")

	t.Run("an expired token the client still trusted is replaced after the 401", func(t *testing.T) {
		s := startServer(t, "STATEMENTD_TOKEN_TTL=2s")
		ten := s.newTenant(t, "A")
		late := &countingDoer{next: recon(t).client(t), path: "/api/v1/token"}
		c := reconclient.New(s.ReconURL, ten.ClientID, ten.ClientSecret, reconclient.WithHTTPClient(late))
		c.TokenSource().(*reconclient.TokenSource).Now = func() time.Time { return time.Now().Add(-10 * time.Second) }
		_, err := c.GetLimits(ctx)
		require.NoError(t, err)
		time.Sleep(2500 * time.Millisecond) // the token expires; the source's clock says it has 8 s left
		_, err = c.GetLimits(ctx)
		require.NoError(t, err, "the request is repeated with a new token")
		require.EqualValues(t, 2, late.count.Load())
	})
}

// TestSDKClientTakesTokensFromOAuth2ClientCredentials: the token endpoint is standard OAuth
// 2.0, so golang.org/x/oauth2/clientcredentials can be the client's oauth2.TokenSource; and a
// source whose token the API refuses gets asked once more, after which the 401 stands.
func TestSDKClientTakesTokensFromOAuth2ClientCredentials(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, recon(t).client(t))
	cfg := clientcredentials.Config{ClientID: ten.ClientID, ClientSecret: ten.ClientSecret, TokenURL: s.ReconURL + "/api/v1/token"}
	c := reconclient.New(s.ReconURL, "", "", reconclient.WithHTTPClient(recon(t).client(t)), reconclient.WithTokenSource(cfg.TokenSource(ctx)))
	limits, err := c.GetLimits(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, limits.Plan)

	stale := &countingSource{token: &oauth2.Token{AccessToken: "not-a-token"}}
	c = reconclient.New(s.ReconURL, "", "", reconclient.WithHTTPClient(recon(t).client(t)), reconclient.WithTokenSource(stale))
	_, err = c.GetLimits(ctx)
	apiErr, ok := errors.AsType[*reconclient.APIError](err)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	require.EqualValues(t, 2, stale.count.Load(), "asked once for the request and once after the 401")
}

// countingSource is an oauth2.TokenSource that always gives the same token.
type countingSource struct {
	token *oauth2.Token
	count atomic.Int32
}

func (s *countingSource) Token() (*oauth2.Token, error) {
	s.count.Add(1)
	return s.token, nil
}

// TestSDKParsingClientPagesThroughEverything reads 1,234 transactions with AllTransactions in
// pages of 100 and three jobs with AllJobs in pages of 2.
func TestSDKParsingClientPagesThroughEverything(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	ctx := context.Background()
	c := parseclient.New(s.ParseURL, ten.APIKey, parseclient.WithHTTPClient(parse(t).client(t)))

	var ids []uuid.UUID
	for _, n := range []int{1234, 2, 3} {
		created, err := c.CreateJob(ctx, parseclient.Upload{Name: "s.csv", Content: bytes.NewReader(simpleCSV(n))}, nil)
		require.NoError(t, err)
		seen := 0
		j, err := c.WaitForJob(ctx, created.JobId, 20*time.Millisecond, func(parseclient.Job) { seen++ })
		require.NoError(t, err)
		require.Equal(t, parseclient.JobStatusCompleted, j.Status)
		require.Equal(t, n, j.TransactionsCount)
		require.Positive(t, seen)
		ids = append(ids, j.JobId)
	}

	var amounts []string
	for tx, err := range c.AllTransactions(ctx, ids[0], 100) {
		require.NoError(t, err)
		amounts = append(amounts, tx.Amount.String())
	}
	require.Len(t, amounts, 1234, "13 pages, the last one short")

	limit := 2
	var listed []uuid.UUID
	for j, err := range c.AllJobs(ctx, parseclient.ListJobsParams{Limit: &limit}) {
		require.NoError(t, err)
		listed = append(listed, j.JobId)
	}
	require.Equal(t, []uuid.UUID{ids[2], ids[1], ids[0]}, listed, "newest first, across pages")

	var csv bytes.Buffer
	n, err := c.ExportJob(ctx, ids[1], parseclient.ExportFormatCsv, &csv)
	require.NoError(t, err)
	require.EqualValues(t, csv.Len(), n)
	require.Equal(t, 3, bytes.Count(csv.Bytes(), []byte("\r\n")), "a header and two records")
	_, err = c.ExportJob(ctx, uuid.New(), parseclient.ExportFormatJson, io.Discard)
	var notFound *parseclient.APIError
	require.ErrorAs(t, err, &notFound)
	require.Equal(t, http.StatusNotFound, notFound.StatusCode)

	for _, err := range c.AllTransactions(ctx, uuid.New(), 0) {
		var apiErr *parseclient.APIError
		require.ErrorAs(t, err, &apiErr, "an unknown job ends the iteration with the API's error")
		require.Equal(t, parseclient.ErrorCodeNotFound, apiErr.Code)
	}
}

// TestSDKRetriesAnUploadThroughTwo503s puts a proxy in front of the server that answers the
// first two uploads 503: the SDK sends the same upload three times with one Idempotency-Key,
// waiting 2 and 4 units (scaled to 100 ms), and the account ends up with exactly one job.
func TestSDKRetriesAnUploadThroughTwo503s(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	ctx := context.Background()
	target, err := url.Parse(s.ParseURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var (
		mu       sync.Mutex
		arrivals []time.Time
		keys     []string
		sizes    []int
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/jobs" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			arrivals, keys, sizes = append(arrivals, time.Now()), append(keys, r.Header.Get("Idempotency-Key")), append(sizes, len(body))
			n := len(arrivals)
			mu.Unlock()
			if n <= 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, `{"ok":false,"error":"SERVICE_UNAVAILABLE","detail":"Try again.","meta":{"request_id":"x"}}`)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	unit := 50 * time.Millisecond
	c := parseclient.New(front.URL, ten.APIKey, parseclient.WithRetryPolicy(parseclient.RetryPolicy{Attempts: 3,
		Backoff: func(n int) time.Duration { return time.Duration(1<<n) * unit }}))
	ct, body := fileUpload(t, "s.csv", simpleCSV(2))
	r, err := c.Raw.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body))
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))

	mu.Lock()
	require.Len(t, arrivals, 3)
	require.GreaterOrEqual(t, arrivals[1].Sub(arrivals[0]), 2*unit)
	require.GreaterOrEqual(t, arrivals[2].Sub(arrivals[1]), 4*unit)
	require.NotEmpty(t, keys[0], "the SDK gave the upload an Idempotency-Key")
	require.Equal(t, []string{keys[0], keys[0], keys[0]}, keys)
	require.Equal(t, []int{len(body), len(body), len(body)}, sizes, "the body was replayed whole")
	mu.Unlock()

	var jobs int
	for _, err := range c.AllJobs(ctx, parseclient.ListJobsParams{}) {
		require.NoError(t, err)
		jobs++
	}
	require.Equal(t, 1, jobs)

	t.Run("a 400 is not retried", func(t *testing.T) {
		mu.Lock()
		before := len(arrivals)
		mu.Unlock()
		r, err := c.Raw.CreateJobWithBodyWithResponse(ctx, nil, "text/plain", bytes.NewReader([]byte("not a form")))
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, r.StatusCode())
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, before+1, len(arrivals))
	})
}
