package parsehttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/webhook"
)

func TestMain(m *testing.M) {
	// Amounts as the service writes them (cmd/statementd sets the same at start): 1250.50 keeps
	// its decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}

const testKey = "smk_live_4eC39HqLyjWDarjtT1zdp7dcA1b2C3d4"

var testAccount = uuid.MustParse("0b7e0a52-5a43-4f0e-9d5c-3c1f1f4a2b6e")

type fakeAccounts struct{}

func (fakeAccounts) AuthenticateAPIKey(_ context.Context, key string) (account.APIKey, error) {
	if key != testKey {
		return account.APIKey{}, account.ErrInvalidCredentials
	}
	return account.APIKey{ID: uuid.New(), AccountID: testAccount, Scopes: account.AllScopes}, nil
}

type fakeLimiter struct{ reset time.Time }

func (l fakeLimiter) Take(context.Context, uuid.UUID, ratelimit.API) (ratelimit.Decision, error) {
	return ratelimit.Decision{Limit: 60, Remaining: 57, Reset: l.reset, Allowed: true}, nil
}

type pinger struct{}

func (pinger) PingContext(context.Context) error { return nil }

// fakeJobs answers with the functions a test sets; an operation a test did not expect fails.
type fakeJobs struct {
	create  func(parsejob.NewJob) (parsejob.Accepted, error)
	get     func(accountID, id uuid.UUID) (parsejob.Job, error)
	list    func(accountID uuid.UUID, req parsejob.ListRequest) ([]parsejob.Job, string, error)
	results func(accountID, id uuid.UUID, cursor string, limit int) (parsejob.Job, []parsejob.Transaction, string, error)
	export  func(accountID, id uuid.UUID) (parsejob.Job, error)
	each    func(ctx context.Context, jobID uuid.UUID, fn func(parsejob.Transaction) error) error
	usage   func(accountID uuid.UUID) (parsejob.Usage, error)
	status  func(accountID uuid.UUID) (parsejob.AccountStatus, error)
}

var errUnexpected = errors.New("unexpected call")

func (f *fakeJobs) Create(_ context.Context, req parsejob.NewJob) (parsejob.Accepted, error) {
	if f.create == nil {
		return parsejob.Accepted{}, errUnexpected
	}
	return f.create(req)
}

// Delete is not exercised by this package's tests: TestDeleteParseJob drives it through a real
// server and database.
func (f *fakeJobs) Delete(context.Context, uuid.UUID, uuid.UUID) error { return errUnexpected }

func (f *fakeJobs) Get(_ context.Context, accountID, id uuid.UUID) (parsejob.Job, error) {
	if f.get == nil {
		return parsejob.Job{}, errUnexpected
	}
	return f.get(accountID, id)
}

func (f *fakeJobs) List(_ context.Context, accountID uuid.UUID, req parsejob.ListRequest) ([]parsejob.Job, string, error) {
	if f.list == nil {
		return nil, "", errUnexpected
	}
	return f.list(accountID, req)
}

func (f *fakeJobs) Results(_ context.Context, accountID, id uuid.UUID, cursor string, limit int) (parsejob.Job, []parsejob.Transaction, string, error) {
	if f.results == nil {
		return parsejob.Job{}, nil, "", errUnexpected
	}
	return f.results(accountID, id, cursor, limit)
}

func (f *fakeJobs) Export(_ context.Context, accountID, id uuid.UUID) (parsejob.Job, error) {
	if f.export == nil {
		return parsejob.Job{}, errUnexpected
	}
	return f.export(accountID, id)
}

func (f *fakeJobs) EachTransaction(ctx context.Context, jobID uuid.UUID, fn func(parsejob.Transaction) error) error {
	if f.each == nil {
		return errUnexpected
	}
	return f.each(ctx, jobID, fn)
}

func (f *fakeJobs) Usage(_ context.Context, accountID uuid.UUID) (parsejob.Usage, error) {
	if f.usage == nil {
		return parsejob.Usage{}, errUnexpected
	}
	return f.usage(accountID)
}

func (f *fakeJobs) Status(_ context.Context, accountID uuid.UUID) (parsejob.AccountStatus, error) {
	if f.status == nil {
		return parsejob.AccountStatus{}, errUnexpected
	}
	return f.status(accountID)
}

// syncBuffer is a log destination that a server goroutine writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness is the Parsing API listener as cmd/statementd builds it, with fakes behind it.
type harness struct {
	handler http.Handler
	router  routers.Router
	log     *syncBuffer
}

// rateLimitReset is the window end the fake limiter reports.
var rateLimitReset = time.Unix(1743495360, 0)

// newHarness serves jobs; limited says whether a limiter counts the requests.
func newHarness(t *testing.T, jobs Jobs, limited bool) *harness {
	t.Helper()
	log := &syncBuffer{}
	cfg := Config{Logger: slog.New(slog.NewTextHandler(log, nil)), DB: pinger{}, Accounts: fakeAccounts{},
		MaxUploadBodyBytes: 2 << 20, MaxFileBytes: 1 << 20, Jobs: jobs, Version: "1.2.3",
		Webhooks: &webhook.Service{}} // the webhook operations are tested end to end (contract-tests)
	if limited {
		cfg.Limiter = fakeLimiter{reset: rateLimitReset}
	}
	e, err := New(cfg)
	require.NoError(t, err)
	spec, err := parseapi.GetSpec()
	require.NoError(t, err)
	spec.Servers = nil
	router, err := gorillamux.NewRouter(spec)
	require.NoError(t, err)
	return &harness{handler: e, router: router, log: log}
}

// do sends an authenticated request and checks the answer against the spec.
func (h *harness) do(t *testing.T, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	if req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+testKey)
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	h.checkResponse(t, req, rec)
	return rec
}

// checkResponse validates an answer (status, headers, body) against the spec.
func (h *harness) checkResponse(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	route, params, err := h.router.FindRoute(req)
	require.NoError(t, err)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), in), "answer %d %s", rec.Code, rec.Body.String())
}

// specSchema returns a schema of the embedded spec.
func specSchema(t *testing.T, name string) *openapi3.Schema {
	t.Helper()
	spec, err := parseapi.GetSpec()
	require.NoError(t, err)
	ref, ok := spec.Components.Schemas[name]
	require.True(t, ok, "schema %s", name)
	return ref.Value
}
