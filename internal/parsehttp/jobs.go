package parsehttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/httpkit/spool"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

// Jobs is what the Parsing API needs of the parsing job rules; *parsejob.Service has it.
type Jobs interface {
	Create(ctx context.Context, req parsejob.NewJob) (parsejob.Accepted, error)
	Get(ctx context.Context, accountID, id uuid.UUID) (parsejob.Job, error)
	Delete(ctx context.Context, accountID, id uuid.UUID) error
	List(ctx context.Context, accountID uuid.UUID, req parsejob.ListRequest) ([]parsejob.Job, string, error)
	Results(ctx context.Context, accountID, id uuid.UUID, cursor string, limit int) (parsejob.Job, []parsejob.Transaction, string, error)
	Export(ctx context.Context, accountID, id uuid.UUID) (parsejob.Job, error)
	EachTransaction(ctx context.Context, jobID uuid.UUID, fn func(parsejob.Transaction) error) error
	Usage(ctx context.Context, accountID uuid.UUID) (parsejob.Usage, error)
	Status(ctx context.Context, accountID uuid.UUID) (parsejob.AccountStatus, error)
}

var _ Jobs = (*parsejob.Service)(nil)

// The parts of POST /api/v1/jobs (CreateParseJobRequest).
const (
	partFile     = "file"
	partPassword = "password"
)

// CreateJob reads the uploaded statement as a stream into a temporary file and creates the job.
func (s *Server) CreateJob(ctx context.Context, req parseapi.CreateJobRequestObject) (parseapi.CreateJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("create job: no authenticated caller")
	}
	key, err := httpkit.IdempotencyKey(req.Params.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	form, err := spool.Read(req.Body, spool.FormSpec{
		Files: []string{partFile}, Required: []string{partFile}, Fields: []string{partPassword}, MaxFileBytes: s.maxFileBytes,
		MaxFieldChars: map[string]int{partPassword: upload.MaxPasswordChars},
	})
	if err != nil {
		return nil, err
	}
	defer form.Remove()
	acc, err := s.jobs.Create(ctx, parsejob.NewJob{AccountID: caller.AccountID, File: form.Files[partFile],
		Password: form.Fields[partPassword], IdempotencyKey: key, RequestID: httpkit.RequestID(ctx)})
	var (
		fileErr  *parsejob.FileError
		quotaErr *quota.Error
	)
	switch {
	case errors.As(err, &fileErr) && fileErr.TooLarge:
		return parseapi.CreateJob413JSONResponse{PayloadTooLargeJSONResponse: parseapi.PayloadTooLargeJSONResponse{
			Body: errorBody(ctx, httpkit.CodeFileTooLarge, fileErr.Error())}}, nil
	case errors.As(err, &fileErr):
		return parseapi.CreateJob400JSONResponse{InvalidUploadJSONResponse: parseapi.InvalidUploadJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeFileInvalid), fileErr.Error())}}, nil
	case errors.As(err, &quotaErr):
		// The X-RateLimit headers and the request id are the pipeline's (httpkit.SetRateLimit).
		return parseapi.CreateJob429JSONResponse{TooManyRequestsOrLimitExceededJSONResponse: parseapi.TooManyRequestsOrLimitExceededJSONResponse{
			Body: errorBody(ctx, httpkit.CodeLimitExceeded, fmt.Sprintf("The monthly limit of %d jobs is used up; it resets at %s.",
				quotaErr.Limit, quotaErr.ResetAt.UTC().Format(time.RFC3339))),
			Headers: parseapi.TooManyRequestsOrLimitExceededResponseHeaders{RetryAfter: httpkit.SecondsUntil(quotaErr.ResetAt, s.now())}}}, nil
	case errors.Is(err, idempotency.ErrConflict):
		return parseapi.CreateJob409JSONResponse{IdempotencyConflictJSONResponse: parseapi.IdempotencyConflictJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeIdempotencyConflict),
				"A request with this Idempotency-Key is still in progress; retry shortly.")}}, nil
	case errors.Is(err, idempotency.ErrKeyReused):
		return parseapi.CreateJob422JSONResponse{IdempotencyKeyReusedJSONResponse: parseapi.IdempotencyKeyReusedJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeIdempotencyKeyReused),
				"This Idempotency-Key was used with a different request (another file or file name) in the last 24 hours; use a new key.")}}, nil
	case err != nil:
		return nil, err
	}
	headers := parseapi.CreateJob202ResponseHeaders{Location: "/api/v1/jobs/" + acc.Job.ID.String()}
	m := meta(ctx)
	if acc.Replayed {
		replayed := true
		headers.IdempotentReplayed = &replayed
		// The first answer repeated, request id included.
		if acc.Job.RequestID != "" {
			m.RequestId = acc.Job.RequestID
		}
	}
	return parseapi.CreateJob202JSONResponse{Headers: headers, Body: parseapi.JobEnvelope{Ok: true, Data: apiJob(acc.Job), Meta: m}}, nil
}

// ListJobs returns a page of the caller's jobs, newest first. A created_after at or after
// created_before is an empty range: an empty page, not an error.
func (s *Server) ListJobs(ctx context.Context, req parseapi.ListJobsRequestObject) (parseapi.ListJobsResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("list jobs: no authenticated caller")
	}
	p := req.Params
	lr := parsejob.ListRequest{CreatedAfter: p.CreatedAfter, CreatedBefore: p.CreatedBefore}
	if p.Status != nil {
		st := parsejob.Status(*p.Status)
		lr.Status = &st
	}
	if p.Cursor != nil {
		lr.Cursor = *p.Cursor
	}
	if p.Limit != nil {
		lr.Limit = *p.Limit
	}
	jobs, next, err := s.jobs.List(ctx, caller.AccountID, lr)
	switch {
	case errors.Is(err, cursor.ErrBad):
		return parseapi.ListJobs400JSONResponse{BadRequestJSONResponse: badCursor(ctx, err)}, nil
	case err != nil:
		return nil, err
	}
	list := parseapi.JobList{Jobs: make([]parseapi.Job, len(jobs)), NextCursor: nextCursor(next)}
	for i, j := range jobs {
		list.Jobs[i] = apiJob(j)
	}
	return parseapi.ListJobs200JSONResponse{Body: parseapi.JobListEnvelope{Ok: true, Data: list, Meta: meta(ctx)}}, nil
}

// GetJob returns one of the caller's jobs.
func (s *Server) GetJob(ctx context.Context, req parseapi.GetJobRequestObject) (parseapi.GetJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get job: no authenticated caller")
	}
	j, err := s.jobs.Get(ctx, caller.AccountID, req.Id)
	switch {
	case errors.Is(err, parsejob.ErrNotFound):
		return parseapi.GetJob404JSONResponse{NotFoundJSONResponse: jobNotFound(ctx, req.Id)}, nil
	case errors.Is(err, parsejob.ErrGone):
		return parseapi.GetJob410JSONResponse{GoneJSONResponse: jobGone(ctx, err)}, nil
	case err != nil:
		return nil, err
	}
	return parseapi.GetJob200JSONResponse{Body: parseapi.JobEnvelope{Ok: true, Data: apiJob(j), Meta: meta(ctx)}}, nil
}

// DeleteJob deletes a finished job's file and transactions at once; the id then answers 410.
func (s *Server) DeleteJob(ctx context.Context, req parseapi.DeleteJobRequestObject) (parseapi.DeleteJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("delete job: no authenticated caller")
	}
	err := s.jobs.Delete(ctx, caller.AccountID, req.Id)
	switch {
	case errors.Is(err, parsejob.ErrNotFound):
		return parseapi.DeleteJob404JSONResponse{NotFoundJSONResponse: jobNotFound(ctx, req.Id)}, nil
	case errors.Is(err, parsejob.ErrNotReady):
		return parseapi.DeleteJob409JSONResponse{JobStillProcessingJSONResponse: parseapi.JobStillProcessingJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeJobNotReady),
				fmt.Sprintf("Job %s has not finished; delete it once it has (poll GET /api/v1/jobs/%s).", req.Id, req.Id))}}, nil
	case err != nil:
		return nil, err
	}
	s.logger.InfoContext(ctx, "parse job deleted on request", slog.String("job_id", req.Id.String()))
	return parseapi.DeleteJob204Response{Headers: parseapi.DeleteJob204ResponseHeaders{XRequestId: httpkit.RequestID(ctx)}}, nil
}

// GetJobResults returns a page of a readable job's transactions, in statement order.
func (s *Server) GetJobResults(ctx context.Context, req parseapi.GetJobResultsRequestObject) (parseapi.GetJobResultsResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get job results: no authenticated caller")
	}
	cur, limit := "", 0
	if req.Params.Cursor != nil {
		cur = *req.Params.Cursor
	}
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	j, txs, next, err := s.jobs.Results(ctx, caller.AccountID, req.Id, cur, limit)
	switch {
	case errors.Is(err, cursor.ErrBad):
		return parseapi.GetJobResults400JSONResponse{BadRequestJSONResponse: badCursor(ctx, err)}, nil
	case errors.Is(err, parsejob.ErrNotFound):
		return parseapi.GetJobResults404JSONResponse{NotFoundJSONResponse: jobNotFound(ctx, req.Id)}, nil
	case errors.Is(err, parsejob.ErrNotReady):
		return parseapi.GetJobResults409JSONResponse{JobNotReadyJSONResponse: jobNotReady(ctx, j)}, nil
	case errors.Is(err, parsejob.ErrGone):
		return parseapi.GetJobResults410JSONResponse{GoneJSONResponse: jobGone(ctx, err)}, nil
	case err != nil:
		return nil, err
	}
	page := parseapi.TransactionPage{JobId: j.ID, Transactions: make([]parseapi.Transaction, len(txs)), NextCursor: nextCursor(next)}
	for i, t := range txs {
		page.Transactions[i] = apiTransaction(t)
	}
	return parseapi.GetJobResults200JSONResponse{Body: parseapi.TransactionPageEnvelope{Ok: true, Data: page, Meta: meta(ctx)}}, nil
}

// ExportJob streams all transactions of a readable job as a CSV or JSON download (see
// exportResponse). Whether the job exists and is readable is decided here, before any byte of
// the download is written, so those refusals are ordinary envelopes.
func (s *Server) ExportJob(ctx context.Context, req parseapi.ExportJobRequestObject) (parseapi.ExportJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("export job: no authenticated caller")
	}
	j, err := s.jobs.Export(ctx, caller.AccountID, req.Id)
	switch {
	case errors.Is(err, parsejob.ErrNotFound):
		return parseapi.ExportJob404JSONResponse{NotFoundJSONResponse: jobNotFound(ctx, req.Id)}, nil
	case errors.Is(err, parsejob.ErrNotReady):
		return parseapi.ExportJob409JSONResponse{JobNotReadyJSONResponse: jobNotReady(ctx, j)}, nil
	case errors.Is(err, parsejob.ErrGone):
		return parseapi.ExportJob410JSONResponse{GoneJSONResponse: jobGone(ctx, err)}, nil
	case err != nil:
		return nil, err
	}
	format := parseapi.ExportFormatCsv
	if req.Params.Format != nil {
		format = *req.Params.Format
	}
	return exportResponse{ctx: ctx, jobs: s.jobs, job: j, format: format, logger: s.logger}, nil
}

// GetUsage returns the caller's usage in the current calendar month.
func (s *Server) GetUsage(ctx context.Context, _ parseapi.GetUsageRequestObject) (parseapi.GetUsageResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get usage: no authenticated caller")
	}
	u, err := s.jobs.Usage(ctx, caller.AccountID)
	if err != nil {
		return nil, err
	}
	return parseapi.GetUsage200JSONResponse{Body: parseapi.UsageEnvelope{Ok: true, Meta: meta(ctx), Data: parseapi.Usage{
		PeriodStart: u.PeriodStart.UTC(), PeriodEnd: u.PeriodEnd.UTC(), Plan: parseapi.ParsePlan(u.Plan),
		JobsCreated: u.JobsCreated, JobsLimit: u.JobsLimit, JobsRemaining: u.JobsRemaining(),
		TransactionsParsed: u.TransactionsParsed, PercentUsed: u.PercentUsed(),
	}}}, nil
}

// GetStatus returns the service's health and version and the caller's plan and limits.
func (s *Server) GetStatus(ctx context.Context, _ parseapi.GetStatusRequestObject) (parseapi.GetStatusResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get status: no authenticated caller")
	}
	st, err := s.jobs.Status(ctx, caller.AccountID)
	if err != nil {
		return nil, err
	}
	return parseapi.GetStatus200JSONResponse{Body: parseapi.ServiceStatusEnvelope{Ok: true, Meta: meta(ctx), Data: parseapi.ServiceStatus{
		Status: parseapi.ServiceHealth(st.Health), Version: s.version, Plan: parseapi.ParsePlan(st.Plan),
		RateLimit:       parseapi.RateLimitInfo{Limit: st.RateLimit, WindowSeconds: int(ratelimit.Window / time.Second)},
		MonthlyJobLimit: st.MonthlyLimit,
	}}}, nil
}

func jobNotFound(ctx context.Context, id uuid.UUID) parseapi.NotFoundJSONResponse {
	return parseapi.NotFoundJSONResponse{Body: errorBody(ctx, httpkit.CodeNotFound, fmt.Sprintf("Job %s was not found.", id))}
}

// jobGone says when a job's data was deleted (parsejob.GoneError's message).
func jobGone(ctx context.Context, err error) parseapi.GoneJSONResponse {
	return parseapi.GoneJSONResponse{Body: errorBody(ctx, string(parseapi.ErrorCodeGone), err.Error())}
}

// jobNotReady says why a job has no results and what to do about it.
func jobNotReady(ctx context.Context, j parsejob.Job) parseapi.JobNotReadyJSONResponse {
	msg := fmt.Sprintf("Job %s is %s; poll GET /api/v1/jobs/%s until it is completed or in review.", j.ID, j.Status, j.ID)
	if j.Status == parsejob.StatusFailed {
		msg = fmt.Sprintf("Job %s failed and has no results; see the job's error (GET /api/v1/jobs/%s).", j.ID, j.ID)
	}
	return parseapi.JobNotReadyJSONResponse{Body: errorBody(ctx, string(parseapi.ErrorCodeJobNotReady), msg)}
}

// badCursor refuses a cursor; parsejob's cursor.ErrBad messages are written for the client.
func badCursor(ctx context.Context, err error) parseapi.BadRequestJSONResponse {
	return parseapi.BadRequestJSONResponse{Body: errorBody(ctx, httpkit.CodeInvalidRequest, err.Error())}
}

// nextCursor is a next_cursor: null on the last page.
func nextCursor(next string) *string { return text(next) }

// text is a nullable string of the API: null when empty.
func text(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// date is a nullable date of the API: null when not given.
func date(d statement.Date) *openapi_types.Date {
	if d.IsZero() {
		return nil
	}
	return &openapi_types.Date{Time: d.Time()}
}

// isFinal reports whether a job reached its final status.
func isFinal(s parsejob.Status) bool {
	return s == parsejob.StatusCompleted || s == parsejob.StatusReview || s == parsejob.StatusFailed
}

// apiJob is the API's Job: what the domain leaves empty is null, review_reasons is always an
// array, error is set only on a failed job and completed_at only on a finished one. Balances are
// kept exactly as stored.
func apiJob(j parsejob.Job) parseapi.Job {
	out := parseapi.Job{
		JobId: j.ID, Status: parseapi.JobStatus(j.Status), FileName: j.FileName, Format: parseapi.StatementFormat(j.Format),
		BankName: text(j.BankName), Account: text(j.Account), Currency: text(j.Currency),
		PeriodStart: date(j.PeriodStart), PeriodEnd: date(j.PeriodEnd),
		OpeningBalance: j.OpeningBalance, ClosingBalance: j.ClosingBalance,
		TransactionsCount: j.TransactionsCount, ReviewReasons: make([]parseapi.ReviewReason, len(j.ReviewReasons)),
		CreatedAt: j.CreatedAt.UTC(),
	}
	for i, r := range j.ReviewReasons {
		out.ReviewReasons[i] = parseapi.ReviewReason{Code: parseapi.ReviewReasonCode(r.Code), Message: r.Message}
		if r.Line > 0 {
			line := r.Line
			out.ReviewReasons[i].Line = &line
		}
	}
	if j.Status == parsejob.StatusFailed && j.Error != nil {
		out.Error = &parseapi.JobError{Code: parseapi.JobErrorCode(j.Error.Code), Message: j.Error.Message}
	}
	if isFinal(j.Status) && j.CompletedAt != nil {
		t := j.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	return out
}

// apiTransaction is the API's Transaction: what the statement did not give is null. Amounts
// are kept exactly as stored.
func apiTransaction(t parsejob.Transaction) parseapi.Transaction {
	return parseapi.Transaction{
		Id: t.ID, Date: openapi_types.Date{Time: t.Date.Time()}, ValueDate: date(t.ValueDate),
		Amount: t.Amount, Currency: text(t.Currency), Description: t.Description, Reference: text(t.Reference),
		CounterpartyName: text(t.CounterpartyName), CounterpartyAccount: text(t.CounterpartyAccount),
		Balance: t.Balance, Type: parseapi.TransactionType(t.Type), Raw: t.Raw,
	}
}
