package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/httpkit/spool"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/upload"
)

// jobsPageSize is how many jobs a list page shows.
const jobsPageSize = 25

// The kinds of job, as the dashboard's addresses name them.
const (
	kindRecon = "reconciliation"
	kindParse = "parsing"
)

// jobRow is a job of either kind as a list shows it.
type jobRow struct {
	ID, Kind, Env, Status string
	// Files are the job's file names, as sent, safe to show.
	Files     []string
	CreatedAt time.Time
	Completed *time.Time
	// Link is the job's page.
	Link string
	// Detail is a line under the status: the failure, the count of transactions.
	Detail string
}

// Live reports whether the job may still change, for the page to poll.
func (j jobRow) Live() bool {
	return j.Status == string(reconjob.StatusProcessing) || j.Status == string(parsejob.StatusQueued)
}

// jobFilter is a list's filters as the page's form and address hold them.
type jobFilter struct {
	Kind, Env, Status, From, To, File string
	// After is the cursor of the page (empty on the first).
	After string
}

func (f jobFilter) query(after string) string {
	v := url.Values{"kind": {f.Kind}}
	if f.Kind == kindRecon {
		v.Set("env", f.Env)
	}
	for k, s := range map[string]string{"status": f.Status, "from": f.From, "to": f.To, "file": f.File, "after": after} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return "/jobs?" + v.Encode()
}

type jobsPage struct {
	Filter jobFilter
	Jobs   []jobRow
	// Statuses are the filter's choices for the kind.
	Statuses []string
	// Next is the address of the next page ("" on the last), Tabs the lists' addresses.
	Next      string
	CanCreate bool
	Live      bool
}

// Tab is the address of a list, with this page's other filters dropped.
func (p jobsPage) Tab(kind, env string) string {
	return jobFilter{Kind: kind, Env: env}.query("")
}

// dayParam reads a date filter (YYYY-MM-DD, a UTC day); "" is none.
func dayParam(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
	}
	return &t, nil
}

func (s *Server) jobsPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	q := r.URL.Query()
	f := jobFilter{Kind: q.Get("kind"), Env: q.Get("env"), Status: q.Get("status"), From: q.Get("from"), To: q.Get("to"),
		File: strings.TrimSpace(q.Get("file")), After: q.Get("after")}
	if f.Kind != kindParse {
		f.Kind = kindRecon
		if f.Env != string(account.Sandbox) {
			f.Env = string(account.Production)
		}
	} else {
		f.Env = ""
	}
	page := jobsPage{Filter: f, CanCreate: req.user.Role.ManagesCredentials()}
	bad := func(msg string) {
		s.message(w, r, http.StatusBadRequest, "Bad filter", msg)
	}
	from, err := dayParam(f.From)
	if err != nil {
		bad(err.Error())
		return
	}
	to, err := dayParam(f.To)
	if err != nil {
		bad(err.Error())
		return
	}
	if to != nil {
		end := to.AddDate(0, 0, 1) // the "to" day is included
		to = &end
	}
	if len(f.File) > 200 {
		bad("The file name to look for is longer than 200 characters.")
		return
	}
	ctx := r.Context()
	if f.Kind == kindRecon {
		page.Statuses = []string{string(reconjob.StatusProcessing), string(reconjob.StatusCompleted), string(reconjob.StatusFailed)}
		lq := reconjob.ListQuery{Env: account.Environment(f.Env), FileName: f.File, CreatedAfter: from, CreatedBefore: to, Limit: jobsPageSize}
		if f.Status != "" {
			st := reconjob.Status(f.Status)
			lq.Status = &st
		}
		filter := cursor.Filter("env="+f.Env, "status="+f.Status, "from="+f.From, "to="+f.To, "file="+f.File)
		if f.After != "" {
			m, err := cursor.DecodeList(f.After, filter, "start from the first page")
			if err != nil {
				bad("This page of the list is not one the dashboard made for these filters: start from the first page.")
				return
			}
			lq.After = &m
		}
		jobs, next, err := s.cfg.Recon.List(ctx, req.user.AccountID, lq)
		if err != nil {
			s.unavailable(w, r, err)
			return
		}
		for _, j := range jobs {
			page.Jobs = append(page.Jobs, reconRow(j))
		}
		if next != nil {
			page.Next = f.query(cursor.EncodeList(*next, filter))
		}
	} else {
		page.Statuses = []string{string(parsejob.StatusQueued), string(parsejob.StatusProcessing), string(parsejob.StatusCompleted),
			string(parsejob.StatusReview), string(parsejob.StatusFailed)}
		lr := parsejob.ListRequest{FileName: f.File, CreatedAfter: from, CreatedBefore: to, Cursor: f.After, Limit: jobsPageSize}
		if f.Status != "" {
			st := parsejob.Status(f.Status)
			lr.Status = &st
		}
		jobs, next, err := s.cfg.Parse.List(ctx, req.user.AccountID, lr)
		switch {
		case errors.Is(err, cursor.ErrBad):
			bad("This page of the list is not one the dashboard made for these filters: start from the first page.")
			return
		case err != nil:
			s.unavailable(w, r, err)
			return
		}
		for _, j := range jobs {
			page.Jobs = append(page.Jobs, parseRow(j))
		}
		if next != "" {
			page.Next = f.query(next)
		}
	}
	for _, j := range page.Jobs {
		page.Live = page.Live || j.Live()
	}
	s.render(w, r, http.StatusOK, "jobs", signedInView(req, "Jobs", "jobs", page))
}

func reconRow(j reconjob.Job) jobRow {
	row := jobRow{ID: j.ID.String(), Kind: kindRecon, Env: string(j.Env), Status: string(j.Status),
		Files: []string{httpkit.DisplayText(j.BankFile), httpkit.DisplayText(j.ExpectedFile)}, CreatedAt: j.CreatedAt,
		Completed: j.CompletedAt, Link: "/jobs/reconciliation/" + string(j.Env) + "/" + j.ID.String()}
	if j.Error != nil {
		row.Detail = j.Error.Message
	}
	return row
}

func parseRow(j parsejob.Job) jobRow {
	row := jobRow{ID: j.ID.String(), Kind: kindParse, Status: string(j.Status), Files: []string{httpkit.DisplayText(j.FileName)},
		CreatedAt: j.CreatedAt, Completed: j.CompletedAt, Link: "/jobs/parsing/" + j.ID.String()}
	switch {
	case j.Error != nil:
		row.Detail = j.Error.Message
	case j.Status.HasResults():
		row.Detail = fmt.Sprintf("%d transactions", j.TransactionsCount)
		if n := len(j.ReviewReasons); n > 0 {
			row.Detail += fmt.Sprintf(", %d to review", n)
		}
	}
	return row
}

// newJobPage is the upload forms; Problems hold a refusal beside the field it is about.
type newJobPage struct {
	Kind string
	Env  string
	// Key is the forms' idempotency key: a second click sends the same one, and makes no
	// second job.
	Key      string
	Problems map[string]string
	MaxMB    int64
}

func (s *Server) newJobPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayCreateJobs(w, r, req) {
		return
	}
	kind := r.URL.Query().Get("kind")
	if kind != kindParse {
		kind = kindRecon
	}
	env := r.URL.Query().Get("env")
	if env != string(account.Sandbox) {
		env = string(account.Production)
	}
	s.render(w, r, http.StatusOK, "new_job", signedInView(req, "New job", "new-job", s.newJobView(kind, env, nil)))
}

func (s *Server) newJobView(kind, env string, problems map[string]string) newJobPage {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return newJobPage{Kind: kind, Env: env, Key: "dash-" + base64.RawURLEncoding.EncodeToString(b), Problems: problems,
		MaxMB: s.cfg.MaxFileBytes >> 20}
}

// mayCreateJobs answers 403 unless the user's role creates jobs.
func (s *Server) mayCreateJobs(w http.ResponseWriter, r *http.Request, req signedInRequest) bool {
	if req.user.Role.ManagesCredentials() {
		return true
	}
	s.message(w, r, http.StatusForbidden, "Not allowed", "Your role ("+string(req.user.Role)+") reads jobs; a developer or an owner creates them.")
	return false
}

// readUpload reads a job form, multipart, as the API reads its uploads (spool.Read: files
// spooled to disk as they arrive, each at most MaxFileBytes), and checks its CSRF token: the
// token is a part of the form, so the generic check of signedIn cannot read it without reading
// the files first. A refusal is answered here and the form is nil.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request, req signedInRequest, files, fields []string) *spool.Form {
	if !s.mayCreateJobs(w, r, req) {
		return nil
	}
	if !sameOrigin(r) {
		s.message(w, r, http.StatusForbidden, "Form expired", "This form was not sent from this dashboard's page.")
		return nil
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		s.message(w, r, http.StatusBadRequest, "Not an upload", "Send the form of the New job page.")
		return nil
	}
	body := http.MaxBytesReader(w, r.Body, 2*s.cfg.MaxFileBytes+1<<20)
	form, err := spool.Read(multipart.NewReader(body, params["boundary"]), spool.FormSpec{
		Files: files, Required: files, Fields: append([]string{"csrf", "idempotency_key"}, fields...), MaxFileBytes: s.cfg.MaxFileBytes,
		MaxFieldChars: map[string]int{"password": upload.MaxPasswordChars},
	})
	var herr *httpkit.Error
	switch {
	case errors.As(err, &herr):
		s.message(w, r, herr.Status, "Upload refused", herr.Message)
		return nil
	case err != nil:
		s.message(w, r, http.StatusBadRequest, "Upload refused", "The upload could not be read: "+err.Error())
		return nil
	}
	if got := form.Fields["csrf"]; got == "" || !constantEqual(got, req.session.CSRF) {
		form.Remove()
		s.message(w, r, http.StatusForbidden, "Form expired", "This form was not sent from this dashboard's page, or its page is too old. Go back, reload the page and try again.")
		return nil
	}
	return form
}

// idempotencyKey is the form's key, as the API would take it from its header; a malformed one
// is replaced, which costs only the protection against a double click.
func idempotencyKey(form *spool.Form) string {
	sent := form.Fields["idempotency_key"]
	k, err := httpkit.IdempotencyKey(&sent)
	if err != nil {
		return ""
	}
	return k
}

func (s *Server) createReconJob(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	form := s.readUpload(w, r, req, []string{"bank", "expected"}, []string{"env", "password"})
	if form == nil {
		return
	}
	defer form.Remove()
	env := form.Fields["env"]
	if env != string(account.Sandbox) {
		env = string(account.Production)
	}
	acc, err := s.cfg.Recon.Create(r.Context(), reconjob.NewJob{AccountID: req.user.AccountID, Env: account.Environment(env),
		Bank: form.Files["bank"], Expected: form.Files["expected"], Password: form.Fields["password"], IdempotencyKey: idempotencyKey(form)})
	var fileErr *reconjob.FileError
	if errors.As(err, &fileErr) {
		s.refuseJob(w, r, req, kindRecon, env, map[string]string{fileErr.Field: sentence(fileErr.Msg)})
		return
	}
	if s.jobRefused(w, r, req, kindRecon, env, err) {
		return
	}
	http.Redirect(w, r, "/jobs/reconciliation/"+env+"/"+acc.Job.ID.String(), http.StatusSeeOther)
}

func (s *Server) createParseJob(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	form := s.readUpload(w, r, req, []string{"file"}, []string{"password"})
	if form == nil {
		return
	}
	defer form.Remove()
	acc, err := s.cfg.Parse.Create(r.Context(), parsejob.NewJob{AccountID: req.user.AccountID, File: form.Files["file"],
		Password: form.Fields["password"], IdempotencyKey: idempotencyKey(form)})
	var fileErr *parsejob.FileError
	if errors.As(err, &fileErr) {
		s.refuseJob(w, r, req, kindParse, "", map[string]string{"file": sentence(fileErr.Msg)})
		return
	}
	if s.jobRefused(w, r, req, kindParse, "", err) {
		return
	}
	http.Redirect(w, r, "/jobs/parsing/"+acc.Job.ID.String(), http.StatusSeeOther)
}

// sentence makes a message of the job rules, written to follow "file: " in an API error, a
// sentence of its own.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// refuseJob shows the form again with each problem beside its field.
func (s *Server) refuseJob(w http.ResponseWriter, r *http.Request, req signedInRequest, kind, env string, problems map[string]string) {
	v := signedInView(req, "New job", "new-job", s.newJobView(kind, env, problems))
	v.Problem = "The job was not created: see below."
	s.render(w, r, http.StatusUnprocessableEntity, "new_job", v)
}

// jobRefused answers the refusals both kinds share, reporting whether err was one (or any
// error).
func (s *Server) jobRefused(w http.ResponseWriter, r *http.Request, req signedInRequest, kind, env string, err error) bool {
	var quotaErr *quota.Error
	problem, status := "", http.StatusOK
	switch {
	case err == nil:
		return false
	case errors.As(err, &quotaErr):
		problem, status = fmt.Sprintf("The monthly limit of %d jobs is used up; it resets on %s.", quotaErr.Limit,
			quotaErr.ResetAt.UTC().Format("2 January 2006 at 15:04 UTC")), http.StatusTooManyRequests
	case errors.Is(err, idempotency.ErrConflict):
		problem, status = "This form is being sent already; wait for its job.", http.StatusConflict
	case errors.Is(err, idempotency.ErrKeyReused):
		problem, status = "This form was sent before with other files: reload the page to send new ones.", http.StatusUnprocessableEntity
	default:
		s.unavailable(w, r, err)
		return true
	}
	v := signedInView(req, "New job", "new-job", s.newJobView(kind, env, nil))
	v.Problem = problem
	s.render(w, r, status, "new_job", v)
	return true
}

// jobID reads the {id} of a job's address; a malformed one is a job not found.
func jobID(r *http.Request) (uuid.UUID, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	return id, err == nil
}
