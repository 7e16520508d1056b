package parsehttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/statement"
)

func TestAPIJob(t *testing.T) {
	t.Parallel()
	created := time.Date(2025, 4, 1, 10, 15, 30, 0, time.FixedZone("CEST", 2*3600))
	completed := time.Date(2025, 4, 1, 8, 15, 34, 0, time.UTC)
	id := uuid.MustParse("3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f")
	tests := []struct {
		name string
		job  parsejob.Job
		want string
	}{
		{
			name: "a queued job: everything not yet known is null, review_reasons an empty array",
			job:  parsejob.Job{ID: id, Status: parsejob.StatusQueued, FileName: "statement.xml", Format: statement.FormatCAMT053, CreatedAt: created},
			want: `{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"queued","file_name":"statement.xml","format":"camt053",
				"bank_name":null,"account":null,"currency":null,"period_start":null,"period_end":null,
				"opening_balance":null,"closing_balance":null,"transactions_count":0,"review_reasons":[],"error":null,
				"created_at":"2025-04-01T08:15:30Z","completed_at":null}`,
		},
		{
			name: "error and completed_at stay null before the job is final",
			job: parsejob.Job{ID: id, Status: parsejob.StatusProcessing, FileName: "a.csv", Format: statement.FormatCSV, CreatedAt: created,
				Error: &parsejob.Failure{Code: parsejob.CodeTimeout, Message: "stale"}, CompletedAt: &completed},
			want: `{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"processing","file_name":"a.csv","format":"csv",
				"bank_name":null,"account":null,"currency":null,"period_start":null,"period_end":null,
				"opening_balance":null,"closing_balance":null,"transactions_count":0,"review_reasons":[],"error":null,
				"created_at":"2025-04-01T08:15:30Z","completed_at":null}`,
		},
		{
			name: "a failed job has its error",
			job: parsejob.Job{ID: id, Status: parsejob.StatusFailed, FileName: "scan.pdf", Format: statement.FormatPDF, CreatedAt: created,
				Error: &parsejob.Failure{Code: parsejob.CodeNoTextLayer, Message: "The PDF has no text layer."}, CompletedAt: &completed},
			want: `{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"failed","file_name":"scan.pdf","format":"pdf",
				"bank_name":null,"account":null,"currency":null,"period_start":null,"period_end":null,
				"opening_balance":null,"closing_balance":null,"transactions_count":0,"review_reasons":[],
				"error":{"code":"no_text_layer","message":"The PDF has no text layer."},
				"created_at":"2025-04-01T08:15:30Z","completed_at":"2025-04-01T08:15:34Z"}`,
		},
		{
			name: "a job in review: its statement, balances as stored, reasons with and without a line",
			job: parsejob.Job{ID: id, Status: parsejob.StatusReview, FileName: "export.csv", Format: statement.FormatCSV,
				Currency: "GBP", PeriodStart: day(2025, 2, 1), PeriodEnd: day(2025, 2, 28),
				OpeningBalance: decPtr("1500.00"), ClosingBalance: decPtr("-1730.250"), TransactionsCount: 118,
				ReviewReasons: []statement.ReviewReason{
					{Code: statement.ReviewBalanceMismatch, Message: "does not add up"},
					{Code: statement.ReviewUnreadableRows, Message: "Row 57 has no readable amount.", Line: 57},
				},
				CreatedAt: created, CompletedAt: &completed},
			want: `{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"review","file_name":"export.csv","format":"csv",
				"bank_name":null,"account":null,"currency":"GBP","period_start":"2025-02-01","period_end":"2025-02-28",
				"opening_balance":1500.00,"closing_balance":-1730.250,"transactions_count":118,
				"review_reasons":[{"code":"balance_mismatch","message":"does not add up"},{"code":"unreadable_rows","message":"Row 57 has no readable amount.","line":57}],
				"error":null,"created_at":"2025-04-01T08:15:30Z","completed_at":"2025-04-01T08:15:34Z"}`,
		},
	}
	schema := specSchema(t, "Job")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(apiJob(tt.job))
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got))
			// JSONEq compares numbers as floats: the exact text is what clients see.
			if tt.job.OpeningBalance != nil {
				require.Contains(t, string(got), `"opening_balance":`+tt.job.OpeningBalance.String()+`,`)
			}
			var doc any
			require.NoError(t, json.Unmarshal(got, &doc))
			require.NoError(t, schema.VisitJSON(doc))
		})
	}
}

func TestAPITransaction(t *testing.T) {
	t.Parallel()
	txs := specTransactions()
	got, err := json.Marshal([]parseapi.Transaction{apiTransaction(txs[0]), apiTransaction(txs[1])})
	require.NoError(t, err)
	require.JSONEq(t, `[
		{"id":"6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d","date":"2025-03-03","value_date":"2025-03-03","amount":1250.50,"currency":"EUR",
		 "description":"SEPA CREDIT TRANSFER INV-2025-0042 ACME GMBH","reference":"INV-2025-0042","counterparty_name":"ACME GmbH",
		 "counterparty_account":"DE02120300000000202051","balance":11500.50,"type":"credit","raw":"<Ntry><Amt Ccy=\"EUR\">1250.50</Amt>...</Ntry>"},
		{"id":"1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e","date":"2025-03-04","value_date":null,"amount":-89.90,"currency":"EUR",
		 "description":"=1+2 CASH WITHDRAWAL","reference":null,"counterparty_name":null,"counterparty_account":null,
		 "balance":11410.60,"type":"debit","raw":"=1+2 CASH WITHDRAWAL"}]`, string(got))
	require.Contains(t, string(got), `"amount":-89.90,`)

	bare := apiTransaction(parsejob.Transaction{ID: uuid.New(), Transaction: statement.Transaction{
		Date: day(2025, 3, 4), Amount: dec("0.00"), Type: statement.Debit}})
	require.Nil(t, bare.Currency)
	require.Nil(t, bare.Balance)
	require.Equal(t, "", bare.Description, "description is a string, empty when the statement has none")
}

// uploadRequest is a POST /api/v1/jobs with one file part.
func uploadRequest(t *testing.T, name, content string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = io.WriteString(fw, content)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/api/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

func TestCreateJob(t *testing.T) {
	t.Parallel()
	accepted := parsejob.Job{ID: uuid.MustParse("7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"), AccountID: testAccount,
		Status: parsejob.StatusQueued, FileName: "march.csv", Format: statement.FormatCSV,
		CreatedAt: time.Date(2025, 4, 1, 8, 15, 30, 0, time.UTC), RequestID: "req-first"}
	resetIn := 90 * time.Second
	tests := []struct {
		name       string
		key        string
		answer     func(parsejob.NewJob) (parsejob.Accepted, error)
		wantStatus int
		wantCode   parseapi.ErrorCode
		wantDetail string
		check      func(t *testing.T, rec *httptest.ResponseRecorder)
	}{
		{
			name: "accepted: 202 with Location and the current request id",
			answer: func(req parsejob.NewJob) (parsejob.Accepted, error) {
				j := accepted
				j.RequestID = req.RequestID
				return parsejob.Accepted{Job: j}, nil
			},
			wantStatus: http.StatusAccepted,
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				require.Equal(t, "/api/v1/jobs/"+accepted.ID.String(), rec.Header().Get("Location"))
				require.Empty(t, rec.Header().Get("Idempotent-Replayed"))
				var body parseapi.JobEnvelope
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, "req-this", body.Meta.RequestId)
				require.Equal(t, parseapi.JobStatusQueued, body.Data.Status)
				require.Equal(t, "march.csv", body.Data.FileName)
			},
		},
		{
			name: "a replay repeats the first answer, its request id included",
			key:  "key-1",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{Job: accepted, Replayed: true}, nil
			},
			wantStatus: http.StatusAccepted,
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				require.Equal(t, "true", rec.Header().Get("Idempotent-Replayed"))
				require.Equal(t, "/api/v1/jobs/"+accepted.ID.String(), rec.Header().Get("Location"))
				require.Equal(t, "req-this", rec.Header().Get("X-Request-Id"))
				var body parseapi.JobEnvelope
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, "req-first", body.Meta.RequestId)
			},
		},
		{
			name: "not a statement: 400 FILE_INVALID",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, &parsejob.FileError{Msg: "the content is not a supported bank statement format"}
			},
			wantStatus: http.StatusBadRequest, wantCode: parseapi.ErrorCodeFileInvalid,
			wantDetail: "file: the content is not a supported bank statement format",
		},
		{
			name: "too many rows: 413 FILE_TOO_LARGE",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, &parsejob.FileError{Msg: "more than 10 rows", TooLarge: true}
			},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: parseapi.ErrorCodeFileTooLarge, wantDetail: "file: more than 10 rows",
		},
		{
			name: "the monthly limit is used up: 429 LIMIT_EXCEEDED until the reset",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, &parsejob.QuotaError{Limit: 50, ResetAt: time.Now().Add(resetIn)}
			},
			wantStatus: http.StatusTooManyRequests, wantCode: parseapi.ErrorCodeLimitExceeded, wantDetail: "The monthly limit of 50 jobs is used up",
			check: func(t *testing.T, rec *httptest.ResponseRecorder) {
				secs, err := strconv.Atoi(rec.Header().Get("Retry-After"))
				require.NoError(t, err)
				require.InDelta(t, resetIn.Seconds(), secs, 2)
			},
		},
		{
			name: "the same key in progress: 409 IDEMPOTENCY_CONFLICT",
			key:  "key-1",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, idempotency.ErrConflict
			},
			wantStatus: http.StatusConflict, wantCode: parseapi.ErrorCodeIdempotencyConflict, wantDetail: "still in progress",
		},
		{
			name: "the same key with another file: 422 IDEMPOTENCY_KEY_REUSED",
			key:  "key-1",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, idempotency.ErrKeyReused
			},
			wantStatus: http.StatusUnprocessableEntity, wantCode: parseapi.ErrorCodeIdempotencyKeyReused, wantDetail: "use a new key",
		},
		{
			name: "an unexpected failure is a 500 without internals",
			answer: func(parsejob.NewJob) (parsejob.Accepted, error) {
				return parsejob.Accepted{}, errors.New("pq: connection refused")
			},
			wantStatus: http.StatusInternalServerError, wantCode: parseapi.ErrorCodeServerError, wantDetail: "could not complete the request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got parsejob.NewJob
			var content []byte
			jobs := &fakeJobs{create: func(req parsejob.NewJob) (parsejob.Accepted, error) {
				got = req
				r, err := req.File.Open()
				require.NoError(t, err)
				defer r.Close()
				content, err = io.ReadAll(r)
				require.NoError(t, err)
				return tt.answer(req)
			}}
			h := newHarness(t, jobs, true)
			req := uploadRequest(t, "march.csv", "date,amount\n2025-03-01,1.00\n")
			req.Header.Set("X-Request-Id", "req-this")
			if tt.key != "" {
				req.Header.Set("Idempotency-Key", tt.key)
			}
			rec := h.do(t, req)
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			require.Equal(t, testAccount, got.AccountID)
			require.Equal(t, "march.csv", got.File.Name)
			require.Equal(t, "date,amount\n2025-03-01,1.00\n", string(content))
			require.Equal(t, tt.key, got.IdempotencyKey)
			require.Equal(t, "req-this", got.RequestID)
			require.Equal(t, "60", rec.Header().Get("X-RateLimit-Limit"))
			if tt.wantCode != "" {
				var body parseapi.ErrorEnvelope
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, tt.wantCode, body.Error)
				require.Contains(t, body.Detail, tt.wantDetail)
				require.NotContains(t, body.Detail, "pq:")
			}
			if tt.check != nil {
				tt.check(t, rec)
			}
		})
	}
}

func TestCreateJobRefusesABadUpload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, &fakeJobs{}, true)
	t.Run("no file part", func(t *testing.T) {
		t.Parallel()
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		require.NoError(t, mw.Close())
		req := httptest.NewRequest(http.MethodPost, "/api/v1/jobs", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := h.do(t, req)
		require.Equal(t, http.StatusBadRequest, rec.Code)
		require.Contains(t, rec.Body.String(), `"error":"INVALID_REQUEST"`)
	})
	t.Run("a file over the limit", func(t *testing.T) {
		t.Parallel()
		rec := h.do(t, uploadRequest(t, "big.csv", string(bytes.Repeat([]byte("x"), 1<<20+1))))
		require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
		require.Contains(t, rec.Body.String(), `"error":"FILE_TOO_LARGE"`)
	})
}

func TestListJobs(t *testing.T) {
	t.Parallel()
	job := specJob()
	after := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	before := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		query      url.Values
		answer     func(parsejob.ListRequest) ([]parsejob.Job, string, error)
		wantReq    parsejob.ListRequest
		wantStatus int
		wantNext   *string
		wantJobs   int
		wantDetail string
	}{
		{
			name: "the first and last page: next_cursor null",
			answer: func(parsejob.ListRequest) ([]parsejob.Job, string, error) {
				return []parsejob.Job{job}, "", nil
			},
			wantReq:    parsejob.ListRequest{}, // no limit: the service's default (the spec's) applies
			wantStatus: http.StatusOK, wantJobs: 1,
		},
		{
			name:  "filters, limit and cursor go to the rules; the next cursor comes back",
			query: url.Values{"status": {"completed"}, "limit": {"5"}, "cursor": {"abc"}, "created_after": {after.Format(time.RFC3339)}, "created_before": {before.Format(time.RFC3339)}},
			answer: func(parsejob.ListRequest) ([]parsejob.Job, string, error) {
				return []parsejob.Job{job}, "next-page", nil
			},
			wantReq: parsejob.ListRequest{Status: ptr(parsejob.StatusCompleted), CreatedAfter: &after, CreatedBefore: &before,
				Cursor: "abc", Limit: 5},
			wantStatus: http.StatusOK, wantJobs: 1, wantNext: ptr("next-page"),
		},
		{
			name: "no jobs: an empty array",
			answer: func(parsejob.ListRequest) ([]parsejob.Job, string, error) {
				return nil, "", nil
			},
			wantReq:    parsejob.ListRequest{},
			wantStatus: http.StatusOK,
		},
		{
			name:  "a bad cursor: 400 with the rules' message",
			query: url.Values{"cursor": {"abc"}},
			answer: func(parsejob.ListRequest) ([]parsejob.Job, string, error) {
				return nil, "", errors.Join(cursor.ErrBad, errors.New("the cursor was made for other filters"))
			},
			wantReq:    parsejob.ListRequest{Cursor: "abc"},
			wantStatus: http.StatusBadRequest, wantDetail: "the cursor was made for other filters",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got parsejob.ListRequest
			h := newHarness(t, &fakeJobs{list: func(accountID uuid.UUID, req parsejob.ListRequest) ([]parsejob.Job, string, error) {
				require.Equal(t, testAccount, accountID)
				got = req
				return tt.answer(req)
			}}, true)
			rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs?"+tt.query.Encode(), nil))
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			require.Equal(t, tt.wantReq.Status, got.Status)
			require.Equal(t, tt.wantReq.Cursor, got.Cursor)
			require.Equal(t, tt.wantReq.Limit, got.Limit)
			if tt.wantReq.CreatedAfter != nil {
				require.True(t, tt.wantReq.CreatedAfter.Equal(*got.CreatedAfter))
				require.True(t, tt.wantReq.CreatedBefore.Equal(*got.CreatedBefore))
			}
			if tt.wantStatus != http.StatusOK {
				var body parseapi.ErrorEnvelope
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, parseapi.ErrorCodeInvalidRequest, body.Error)
				require.Contains(t, body.Detail, tt.wantDetail)
				return
			}
			require.Contains(t, rec.Body.String(), `"jobs":[`)
			var body parseapi.JobListEnvelope
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			require.Len(t, body.Data.Jobs, tt.wantJobs)
			require.Equal(t, tt.wantNext, body.Data.NextCursor)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestGetJob(t *testing.T) {
	t.Parallel()
	job := specJob()
	h := newHarness(t, &fakeJobs{get: func(accountID, id uuid.UUID) (parsejob.Job, error) {
		if accountID != testAccount || id != job.ID {
			return parsejob.Job{}, parsejob.ErrNotFound
		}
		return job, nil
	}}, true)

	rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs/"+job.ID.String(), nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var body parseapi.JobEnvelope
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, job.ID, body.Data.JobId)

	other := uuid.New()
	rec = h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs/"+other.String(), nil))
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), "Job "+other.String()+" was not found.")
}

func TestGetJobResults(t *testing.T) {
	t.Parallel()
	ready := specJob()
	jobs := map[uuid.UUID]parsejob.Job{ready.ID: ready}
	for _, st := range []parsejob.Status{parsejob.StatusQueued, parsejob.StatusProcessing, parsejob.StatusFailed} {
		j := parsejob.Job{ID: uuid.New(), AccountID: testAccount, Status: st, Format: statement.FormatCSV}
		jobs[j.ID] = j
	}
	var gotCursor string
	var gotLimit int
	h := newHarness(t, &fakeJobs{results: func(accountID, id uuid.UUID, after string, limit int) (parsejob.Job, []parsejob.Transaction, string, error) {
		gotCursor, gotLimit = after, limit
		if after == "bad" {
			return parsejob.Job{}, nil, "", errors.Join(cursor.ErrBad, errors.New("the cursor belongs to another job's results"))
		}
		j, ok := jobs[id]
		if !ok || accountID != testAccount {
			return parsejob.Job{}, nil, "", parsejob.ErrNotFound
		}
		if !j.Status.HasResults() {
			return j, nil, "", parsejob.ErrNotReady
		}
		if after == "" {
			return j, specTransactions()[:1], "page-2", nil
		}
		return j, specTransactions()[1:], "", nil
	}}, true)
	path := func(id uuid.UUID) string { return "/api/v1/jobs/" + id.String() + "/results" }

	rec := h.do(t, httptest.NewRequest(http.MethodGet, path(ready.ID)+"?limit=1", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, 1, gotLimit)
	var page parseapi.TransactionPageEnvelope
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
	require.Equal(t, ready.ID, page.Data.JobId)
	require.Equal(t, ptr("page-2"), page.Data.NextCursor)
	require.Len(t, page.Data.Transactions, 1)

	rec = h.do(t, httptest.NewRequest(http.MethodGet, path(ready.ID)+"?cursor=page-2", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "page-2", gotCursor)
	require.Zero(t, gotLimit, "no limit: the service's default (the spec's) applies")
	require.Contains(t, rec.Body.String(), `"next_cursor":null`)
	require.Contains(t, rec.Body.String(), `"amount":-89.90,`)
	require.Contains(t, rec.Body.String(), `"value_date":null`)

	for id, j := range jobs {
		if j.Status.HasResults() {
			continue
		}
		rec = h.do(t, httptest.NewRequest(http.MethodGet, path(id), nil))
		require.Equal(t, http.StatusConflict, rec.Code)
		want := "is " + string(j.Status) + "; poll GET /api/v1/jobs/" + id.String()
		if j.Status == parsejob.StatusFailed {
			want = "failed and has no results; see the job's error"
		}
		require.Contains(t, rec.Body.String(), want)
	}

	rec = h.do(t, httptest.NewRequest(http.MethodGet, path(uuid.New()), nil))
	require.Equal(t, http.StatusNotFound, rec.Code)

	rec = h.do(t, httptest.NewRequest(http.MethodGet, path(ready.ID)+"?cursor=bad", nil))
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), "the cursor belongs to another job's results")
}

func TestGetUsage(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	h := newHarness(t, &fakeJobs{usage: func(accountID uuid.UUID) (parsejob.Usage, error) {
		require.Equal(t, testAccount, accountID)
		return parsejob.Usage{PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0), Plan: account.ParseStarter,
			JobsCreated: 425, JobsLimit: 1000, TransactionsParsed: 51830}, nil
	}}, true)
	rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/usage", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, map[string]any{"period_start": "2025-04-01T00:00:00Z", "period_end": "2025-05-01T00:00:00Z", "plan": "starter",
		"jobs_created": 425.0, "jobs_limit": 1000.0, "jobs_remaining": 575.0, "transactions_parsed": 51830.0, "percent_used": 42.5},
		body["data"])
}

func TestGetStatus(t *testing.T) {
	t.Parallel()
	jobs := &fakeJobs{status: func(accountID uuid.UUID) (parsejob.AccountStatus, error) {
		require.Equal(t, testAccount, accountID)
		return parsejob.AccountStatus{Health: parsejob.HealthDegraded, Plan: account.ParsePro, RateLimit: 200, MonthlyLimit: 10000}, nil
	}}
	h := newHarness(t, jobs, true)
	rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/status", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var body parseapi.ServiceStatusEnvelope
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Equal(t, parseapi.ServiceStatus{Status: parseapi.ServiceHealthDegraded, Version: "1.2.3", Plan: parseapi.ParsePlanPro,
		RateLimit: parseapi.RateLimitInfo{Limit: 200, WindowSeconds: 60}, MonthlyJobLimit: 10000}, body.Data)
}

// TestRateLimitHeadersAreTheLimiters checks that the generated 200 answers, whose X-RateLimit
// header fields are plain ints the handlers leave zero, carry the limiter's values, and no
// invented zeros when no limiter counts the requests.
func TestRateLimitHeadersAreTheLimiters(t *testing.T) {
	t.Parallel()
	jobs := &fakeJobs{status: func(uuid.UUID) (parsejob.AccountStatus, error) {
		return parsejob.AccountStatus{Health: parsejob.HealthOK, Plan: account.ParseFree, RateLimit: 10, MonthlyLimit: 50}, nil
	}}
	t.Run("counted", func(t *testing.T) {
		t.Parallel()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		newHarness(t, jobs, true).handler.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "60", rec.Header().Get("X-RateLimit-Limit"))
		require.Equal(t, "57", rec.Header().Get("X-RateLimit-Remaining"))
		require.Equal(t, strconv.FormatInt(rateLimitReset.Unix(), 10), rec.Header().Get("X-RateLimit-Reset"))
		require.NotEmpty(t, rec.Header().Get("X-Request-Id"))
	})
	t.Run("no limiter", func(t *testing.T) {
		t.Parallel()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		newHarness(t, jobs, false).handler.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		for _, name := range rateLimitHeaders {
			require.Empty(t, rec.Header().Values(name), name)
		}
	})
}
