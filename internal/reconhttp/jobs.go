package reconhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/httpkit/spool"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/upload"
)

// Jobs is what the Reconciliation API needs of the job rules; *reconjob.Service has it.
type Jobs interface {
	Create(ctx context.Context, req reconjob.NewJob) (reconjob.Accepted, error)
	Get(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (reconjob.Job, error)
	Delete(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) error
	Results(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (reconjob.Job, reconjob.Results, error)
	OpenResults(ctx context.Context, accountID uuid.UUID, env account.Environment, id uuid.UUID) (reconjob.Job, io.Reader, error)
	Quota(ctx context.Context, accountID uuid.UUID, env account.Environment) (reconjob.Quota, error)
}

// The parts of POST /api/v1/jobs (CreateJobRequest).
const (
	partBank     = "bank"
	partExpected = "expected"
	partEnv      = "env"
	partPassword = "password"
)

// CreateJob reads the two files as a stream, checks them and creates the job.
func (s *Server) CreateJob(ctx context.Context, req reconapi.CreateJobRequestObject) (reconapi.CreateJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("create job: no authenticated caller")
	}
	key, err := httpkit.IdempotencyKey(req.Params.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	form, err := spool.Read(req.Body, spool.FormSpec{
		Files: []string{partBank, partExpected}, Required: []string{partBank, partExpected},
		Fields: []string{partEnv, partPassword}, MaxFileBytes: s.maxFileBytes,
		MaxFieldChars: map[string]int{partPassword: upload.MaxPasswordChars},
	})
	if err != nil {
		return nil, err
	}
	defer form.Remove()
	if env, sent := form.Fields[partEnv]; sent {
		if msg := s.envRefusal(env); msg != "" {
			return reconapi.CreateJob400JSONResponse{FileInvalidJSONResponse: reconapi.FileInvalidJSONResponse{
				Body: errorBody(httpkit.CodeInvalidRequest, msg)}}, nil
		}
	}
	acc, err := s.jobs.Create(ctx, reconjob.NewJob{AccountID: caller.AccountID, Env: s.env,
		Bank: form.Files[partBank], Expected: form.Files[partExpected], Password: form.Fields[partPassword], IdempotencyKey: key})
	var (
		fileErr  *reconjob.FileError
		quotaErr *quota.Error
	)
	switch {
	case errors.As(err, &fileErr):
		return reconapi.CreateJob400JSONResponse{FileInvalidJSONResponse: reconapi.FileInvalidJSONResponse{
			Body: errorBody(codeFileInvalid, fileErr.Error())}}, nil
	case errors.As(err, &quotaErr):
		// The X-RateLimit headers and the request id are the pipeline's (httpkit.SetRateLimit).
		return reconapi.CreateJob429JSONResponse{QuotaExceededJSONResponse: reconapi.QuotaExceededJSONResponse{
			Body: errorBody(httpkit.CodeLimitExceeded, fmt.Sprintf("monthly job quota of %d jobs used up; it resets at %s",
				quotaErr.Limit, quotaErr.ResetAt.UTC().Format(time.RFC3339))),
			Headers: reconapi.QuotaExceededResponseHeaders{RetryAfter: httpkit.SecondsUntil(quotaErr.ResetAt, s.now())}}}, nil
	case errors.Is(err, idempotency.ErrConflict):
		return reconapi.CreateJob409JSONResponse{IdempotencyConflictJSONResponse: reconapi.IdempotencyConflictJSONResponse{
			Body: errorBody(codeIdempotencyConflict, "a request with this Idempotency-Key is still in progress")}}, nil
	case errors.Is(err, idempotency.ErrKeyReused):
		return reconapi.CreateJob422JSONResponse{IdempotencyKeyReusedJSONResponse: reconapi.IdempotencyKeyReusedJSONResponse{
			Body: errorBody(codeIdempotencyKeyReused,
				"this Idempotency-Key was used with a different request (other files or env) in the last 24 hours; use a new key")}}, nil
	case err != nil:
		return nil, err
	}
	headers := reconapi.CreateJob202ResponseHeaders{Location: "/api/v1/jobs/" + acc.Job.ID.String()}
	if acc.Replayed {
		replayed := true
		headers.IdempotentReplayed = &replayed
	}
	return reconapi.CreateJob202JSONResponse{Headers: headers, Body: reconapi.JobAccepted{
		JobId: acc.Job.ID, Status: reconapi.JobStatus(acc.Job.Status), CreatedAt: acc.Job.CreatedAt.UTC()}}, nil
}

// envRefusal says why an env field is refused: it names the other environment, or none. "" when
// it names this one.
func (s *Server) envRefusal(env string) string {
	switch account.Environment(env) {
	case s.env:
		return ""
	case account.Production, account.Sandbox:
		return fmt.Sprintf("env: this is the %s environment; send %s jobs to the %s base URL", s.env, env, env)
	default:
		return "env: must be production or sandbox"
	}
}

// GetJob returns the caller's job.
func (s *Server) GetJob(ctx context.Context, req reconapi.GetJobRequestObject) (reconapi.GetJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get job: no authenticated caller")
	}
	j, err := s.jobs.Get(ctx, caller.AccountID, s.env, req.JobId)
	switch {
	case errors.Is(err, reconjob.ErrNotFound):
		return reconapi.GetJob404JSONResponse{NotFoundJSONResponse: jobNotFound(req.JobId)}, nil
	case errors.Is(err, reconjob.ErrGone):
		return reconapi.GetJob410JSONResponse{GoneJSONResponse: jobGone(err)}, nil
	case err != nil:
		return nil, err
	}
	return reconapi.GetJob200JSONResponse{Body: apiJob(j)}, nil
}

// DeleteJob deletes a finished job's files and results at once; the id then answers 410.
func (s *Server) DeleteJob(ctx context.Context, req reconapi.DeleteJobRequestObject) (reconapi.DeleteJobResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("delete job: no authenticated caller")
	}
	err := s.jobs.Delete(ctx, caller.AccountID, s.env, req.JobId)
	switch {
	case errors.Is(err, reconjob.ErrNotFound):
		return reconapi.DeleteJob404JSONResponse{NotFoundJSONResponse: jobNotFound(req.JobId)}, nil
	case errors.Is(err, reconjob.ErrNotReady):
		return reconapi.DeleteJob409JSONResponse{JobStillProcessingJSONResponse: reconapi.JobStillProcessingJSONResponse{
			Body: errorBody(codeJobNotReady, fmt.Sprintf("job %s is still processing; delete it once it has finished", req.JobId))}}, nil
	case err != nil:
		return nil, err
	}
	s.logger.InfoContext(ctx, "reconciliation job deleted on request", slog.String("job_id", req.JobId.String()))
	return reconapi.DeleteJob204Response{Headers: reconapi.DeleteJob204ResponseHeaders{XRequestId: httpkit.RequestID(ctx)}}, nil
}

// jobGone says when a job's data was deleted (reconjob.GoneError's message).
func jobGone(err error) reconapi.GoneJSONResponse {
	return reconapi.GoneJSONResponse{Body: errorBody(string(reconapi.ErrorCodeGone), err.Error())}
}

func jobNotFound(id uuid.UUID) reconapi.NotFoundJSONResponse {
	return reconapi.NotFoundJSONResponse{Body: errorBody(httpkit.CodeNotFound, fmt.Sprintf("job %s not found", id))}
}

func apiJob(j reconjob.Job) reconapi.Job {
	out := reconapi.Job{JobId: j.ID, Status: reconapi.JobStatus(j.Status), CreatedAt: j.CreatedAt.UTC(),
		BankFile: j.BankFile, ExpectedFile: j.ExpectedFile, Env: reconapi.Environment(j.Env)}
	if j.CompletedAt != nil {
		t := j.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	if j.Error != nil {
		out.Error = &reconapi.JobError{Code: reconapi.JobErrorCode(j.Error.Code), Message: j.Error.Message}
	}
	return out
}

// GetJobResults returns a completed job's results.
func (s *Server) GetJobResults(ctx context.Context, req reconapi.GetJobResultsRequestObject) (reconapi.GetJobResultsResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get job results: no authenticated caller")
	}
	if f := req.Params.Format; f != nil && *f != reconapi.ResultsFormatJson {
		j, doc, err := s.jobs.OpenResults(ctx, caller.AccountID, s.env, req.JobId)
		if err != nil {
			return resultsError(j, req.JobId, err)
		}
		return resultsDownload{ctx: ctx, job: j, doc: doc, format: *f, logger: s.logger}, nil
	}
	j, res, err := s.jobs.Results(ctx, caller.AccountID, s.env, req.JobId)
	if err != nil {
		return resultsError(j, req.JobId, err)
	}
	return reconapi.GetJobResults200JSONResponse{Body: apiResults(j.ID, res)}, nil
}

// resultsError answers a failure to get a job's results: 404, 409, 410 or the error itself.
func resultsError(j reconjob.Job, id uuid.UUID, err error) (reconapi.GetJobResultsResponseObject, error) {
	switch {
	case errors.Is(err, reconjob.ErrNotFound):
		return reconapi.GetJobResults404JSONResponse{NotFoundJSONResponse: jobNotFound(id)}, nil
	case errors.Is(err, reconjob.ErrGone):
		return reconapi.GetJobResults410JSONResponse{GoneJSONResponse: jobGone(err)}, nil
	case errors.Is(err, reconjob.ErrNotReady):
		msg := fmt.Sprintf("job %s is still processing; poll GET /api/v1/jobs/%s until it is completed", j.ID, j.ID)
		if j.Status == reconjob.StatusFailed {
			msg = fmt.Sprintf("job %s failed and has no results; see the job's error", j.ID)
		}
		return reconapi.GetJobResults409JSONResponse{JobNotReadyJSONResponse: reconapi.JobNotReadyJSONResponse{Body: errorBody(codeJobNotReady, msg)}}, nil
	}
	return nil, err
}

func apiResults(id uuid.UUID, r reconjob.Results) reconapi.JobResults {
	out := reconapi.JobResults{
		JobId:                id,
		Matched:              make([]reconapi.MatchedReference, len(r.Matched)),
		Partial:              make([]reconapi.PartialReference, len(r.Partial)),
		Unmatched:            make([]reconapi.UnmatchedReference, len(r.Unmatched)),
		UnmatchedBankEntries: apiEntries(r.UnmatchedBankEntries),
		Summary: reconapi.ResultsSummary{
			ExpectedCount: r.Summary.ExpectedCount, MatchedCount: r.Summary.MatchedCount,
			PartialCount: r.Summary.PartialCount, UnmatchedCount: r.Summary.UnmatchedCount,
			UnmatchedBankEntriesCount: r.Summary.UnmatchedBankEntriesCount,
			ExpectedTotal:             r.Summary.ExpectedTotal, MatchedTotal: r.Summary.MatchedTotal,
		},
	}
	for i, m := range r.Matched {
		entries := apiEntries(m.BankEntries)
		out.Matched[i] = reconapi.MatchedReference{Reference: m.Reference, Amount: m.Amount, Currency: currency(m.Currency),
			Rule: reconapi.MatchRule(m.DecidingRule()), BankEntries: entries, BankEntry: entries[0].Text}
	}
	for i, p := range r.Partial {
		out.Partial[i] = reconapi.PartialReference{Reference: p.Reference, ExpectedAmount: p.ExpectedAmount,
			MatchedAmount: p.MatchedAmount, Reason: reconapi.PartialReason(p.Reason), Rule: reconapi.MatchRule(p.DecidingRule()), Currency: currency(p.Currency),
			BankEntries: apiEntries(p.BankEntries)}
	}
	for i, u := range r.Unmatched {
		out.Unmatched[i] = reconapi.UnmatchedReference{Reference: u.Reference, Amount: u.Amount, Currency: currency(u.Currency),
			Suggestions: apiEntries(u.Suggestions)}
	}
	return out
}

func apiEntries(entries []reconjob.BankEntry) []reconapi.BankEntry {
	out := make([]reconapi.BankEntry, len(entries))
	for i, e := range entries {
		out[i] = reconapi.BankEntry{Line: e.Line, Date: openapi_types.Date{Time: e.Date.Time()}, Amount: e.Amount,
			Currency: currency(e.Currency), Text: e.Text}
	}
	return out
}

func currency(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// GetLimits returns the caller's monthly job quota in this environment.
func (s *Server) GetLimits(ctx context.Context, _ reconapi.GetLimitsRequestObject) (reconapi.GetLimitsResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("get limits: no authenticated caller")
	}
	q, err := s.jobs.Quota(ctx, caller.AccountID, s.env)
	if err != nil {
		return nil, err
	}
	return reconapi.GetLimits200JSONResponse{Body: reconapi.Quota{Plan: reconapi.ReconPlan(q.Plan), Env: reconapi.Environment(q.Env),
		JobsLimit: q.Limit, JobsUsed: q.Used, JobsRemaining: q.Remaining(), ResetDate: q.ResetAt.UTC()}}, nil
}

// Error codes of this API's job operations.
const (
	codeFileInvalid          = "FILE_INVALID"
	codeJobNotReady          = "JOB_NOT_READY"
	codeIdempotencyConflict  = "IDEMPOTENCY_CONFLICT"
	codeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
)
