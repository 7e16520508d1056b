package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// cmdParse uploads a bank statement to the Parsing API, waits for the job with a progress
// display, and prints it (and, asked, its transactions).
func (a *app) cmdParse(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, `print the job as JSON; with --transactions {"job": ..., "transactions": [...]}, the shape of a JSON export`)
	withTransactions := fs.Bool("transactions", false, "also print the transactions")
	key := fs.String("idempotency-key", "", "send this `key` (a UUID, say), so that running the same command again within 24 hours gives the same job instead of a new one")
	timeout := fs.Duration("timeout", 0, "stop waiting after this `duration` (the job keeps running); 0 waits until the job ends")
	askPassword := addPasswordFlag(fs)
	if err := refusePasswordValue(args, cmd.name); err != nil {
		return err
	}
	pos, err := a.parseArgs(fs, cmd, args, 1, 1)
	if err != nil {
		return err
	}
	if *timeout < 0 {
		return &usageError{msg: "--timeout must not be negative", cmd: cmd.name}
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	password, err := a.password(*askPassword)
	if err != nil {
		return err
	}
	contentType, body, err := parseUpload(pos[0], password)
	if err != nil {
		return err
	}

	var params parseclient.CreateJobParams
	if *key != "" {
		params.IdempotencyKey = key
	}
	meter := a.newByteMeter("uploading "+filepath.Base(pos[0]), int64(len(body)))
	created, err := c.Raw.CreateJobWithBodyWithResponse(withUploadMeter(ctx, meter), &params, contentType, bytes.NewReader(body))
	meter.finish()
	if err != nil {
		return err
	}
	if err := parseOK(created.HTTPResponse, created.Body, created.JSON202 != nil); err != nil {
		return err
	}
	job, err := a.waitParse(ctx, c, created.JSON202.Data.JobId, *timeout)
	if err != nil {
		return err
	}

	failed := job.Status == parseclient.JobStatusFailed
	transactions := *withTransactions && !failed
	switch {
	case *asJSON && transactions:
		err = printJobWithTransactions(ctx, a.stdout, c, job)
	case *asJSON:
		err = printJSON(a.stdout, job)
	default:
		err = printParseJob(a.stdout, job)
		if err == nil && transactions {
			fmt.Fprintln(a.stdout)
			_, err = printTransactions(a.stdout, c.AllTransactions(ctx, job.JobId, 0))
		}
	}
	if err != nil {
		return err
	}
	if failed {
		msg := fmt.Sprintf("job %s failed", job.JobId)
		if job.Error != nil {
			msg += fmt.Sprintf(": %s: %s", job.Error.Code, job.Error.Message)
		}
		return &outcomeError{msg: msg}
	}
	return nil
}

// printJobWithTransactions writes {"job": job, "transactions": [...]}, the transactions streamed
// one at a time.
func printJobWithTransactions(ctx context.Context, w io.Writer, c *parseclient.Client, job parseclient.Job) error {
	b, err := marshalIndent(job, "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "{\n  \"job\": %s,\n  \"transactions\": ", b)
	arr := &jsonArray{w: w, indent: "  "}
	if err := addAll(arr, c.AllTransactions(ctx, job.JobId, 0)); err != nil {
		return err
	}
	if err := arr.close(); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n}\n")
	return err
}

// waitParse waits for a parsing job to finish (completed, review or failed), showing its
// progress.
func (a *app) waitParse(ctx context.Context, c *parseclient.Client, id parseclient.JobId, timeout time.Duration) (parseclient.Job, error) {
	waitCtx, cancel := withOptionalTimeout(ctx, timeout)
	defer cancel()
	p := a.startProgress("job " + id.String())
	job, err := c.WaitForJob(waitCtx, id, a.pollInterval, func(j parseclient.Job) {
		if !j.Status.Finished() {
			p.update(string(j.Status))
		}
	})
	if err != nil {
		p.end()
		return job, waitError(ctx, err, id.String(), timeout)
	}
	p.finish(string(job.Status))
	return job, nil
}

// parseUpload builds the multipart body of a parsing job: the file as the part file, and its
// password, if any, as the part password.
func parseUpload(path, password string) (contentType string, body []byte, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := addFilePart(w, "file", "statement", path); err != nil {
		return "", nil, err
	}
	if password != "" {
		if err := w.WriteField("password", password); err != nil {
			return "", nil, err
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), buf.Bytes(), nil
}

// cmdJobsList lists parsing jobs, newest first, fetching pages as needed.
func (a *app) cmdJobsList(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the jobs as a JSON array")
	status := fs.String("status", "", "only jobs in this `status`: queued, processing, completed, review or failed")
	limit := fs.Int("limit", 20, "show at most `N` jobs; 0 shows all")
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return err
	}
	var params parseclient.ListJobsParams
	if *status != "" {
		s := parseclient.JobStatus(*status)
		if !s.Valid() {
			return &usageError{msg: fmt.Sprintf("--status %q is not one of queued, processing, completed, review, failed", *status), cmd: cmd.name}
		}
		params.Status = &s
	}
	if *limit < 0 {
		return &usageError{msg: "--limit must not be negative", cmd: cmd.name}
	}
	page := 100 // the API's largest page
	if *limit > 0 {
		page = min(*limit, page)
	}
	params.Limit = &page
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	jobs := take(c.AllJobs(ctx, params), *limit)
	if *asJSON {
		_, err := printJSONSeq(a.stdout, jobs)
		return err
	}
	tw := newTable(a.stdout)
	row(tw, "JOB", "STATUS", "FORMAT", "TRANSACTIONS", "CREATED", "FILE")
	for j, err := range jobs {
		if err != nil {
			_ = tw.Flush()
			return err
		}
		row(tw, j.JobId.String(), string(j.Status), string(j.Format), fmt.Sprint(j.TransactionsCount), timeOrDash(&j.CreatedAt), j.FileName)
	}
	return tw.Flush()
}

// cmdJobsGet prints one parsing job.
func (a *app) cmdJobsGet(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the job as JSON")
	id, err := a.parseIDArg(fs, cmd, args)
	if err != nil {
		return err
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	r, err := c.Raw.GetJobWithResponse(ctx, id)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(a.stdout, r.JSON200.Data)
	}
	return printParseJob(a.stdout, r.JSON200.Data)
}

// cmdResults prints every transaction of a parsing job, page after page.
func (a *app) cmdResults(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, "print the transactions as a JSON array")
	id, err := a.parseIDArg(fs, cmd, args)
	if err != nil {
		return err
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	if *asJSON {
		_, err = printJSONSeq(a.stdout, c.AllTransactions(ctx, id, 0))
	} else {
		_, err = printTransactions(a.stdout, c.AllTransactions(ctx, id, 0))
	}
	return err
}

// cmdExport streams a parsing job's export to a file (or stdout) without holding it in memory.
func (a *app) cmdExport(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addParseFlags(fs)
	format := fs.String("format", "csv", "`csv` or json")
	out := fs.String("output", "", "write to `FILE` (- for stdout); default JOB_ID.csv or JOB_ID.json here. A file is created with mode 0600 (it holds bank data) and appears only when complete")
	fs.StringVar(out, "o", "", "short for --output")
	id, err := a.parseIDArg(fs, cmd, args)
	if err != nil {
		return err
	}
	f := parseclient.ExportFormat(*format)
	if !f.Valid() {
		return &usageError{msg: fmt.Sprintf("--format %q is not csv or json", *format), cmd: cmd.name}
	}
	path := *out
	if path == "" {
		path = id.String() + "." + *format
	}
	c, err := a.parseClientOf(fs)
	if err != nil {
		return err
	}
	resp, err := c.Raw.ExportJob(ctx, id, &parseclient.ExportJobParams{Format: &f})
	return a.saveDownload(resp, err, parseclient.Check, path)
}

// saveDownload streams a download into path (- for stdout), or returns the API's refusal, as
// check reads it from the answer's body.
func (a *app) saveDownload(resp *http.Response, err error, check func(*http.Response, []byte) error, path string) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return check(resp, body)
	}
	if path == "-" {
		_, err := io.Copy(a.stdout, resp.Body)
		return err
	}
	meter := a.newByteMeter("downloading "+filepath.Base(path), resp.ContentLength)
	n, err := writeFile(path, meter.reader(resp.Body))
	if err != nil {
		return err
	}
	meter.finish()
	fmt.Fprintf(a.stderr, "wrote %s (%d bytes)\n", path, n)
	return nil
}

// writeFile streams r into path through a temporary file beside it that is renamed into place
// only when complete, so an interrupted download never leaves a truncated file that looks whole.
func writeFile(path string, r io.Reader) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	n, err := io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return n, fmt.Errorf("write %s: %w", path, err)
	}
	return n, nil
}

// cmdUsage prints this month's usage of the Parsing API.
func (a *app) cmdUsage(ctx context.Context, cmd command, args []string) error {
	c, asJSON, err := a.jsonOnlyParseCommand(cmd, args, "print the usage as JSON")
	if err != nil {
		return err
	}
	r, err := c.Raw.GetUsageWithResponse(ctx)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	u := r.JSON200.Data
	if asJSON {
		return printJSON(a.stdout, u)
	}
	return printFields(a.stdout, [][2]string{
		{"plan", string(u.Plan)},
		{"period", timeOrDash(&u.PeriodStart) + " to " + timeOrDash(&u.PeriodEnd)},
		{"jobs", fmt.Sprintf("%d of %d (%g%%)", u.JobsCreated, u.JobsLimit, u.PercentUsed)},
		{"jobs remaining", fmt.Sprint(u.JobsRemaining)},
		{"transactions parsed", fmt.Sprint(u.TransactionsParsed)},
	})
}

// cmdStatus prints the Parsing API's status, the plan and the rate limit.
func (a *app) cmdStatus(ctx context.Context, cmd command, args []string) error {
	c, asJSON, err := a.jsonOnlyParseCommand(cmd, args, "print the status as JSON")
	if err != nil {
		return err
	}
	r, err := c.Raw.GetStatusWithResponse(ctx)
	if err != nil {
		return err
	}
	if err := parseOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	s := r.JSON200.Data
	if asJSON {
		return printJSON(a.stdout, s)
	}
	return printFields(a.stdout, [][2]string{
		{"status", string(s.Status)},
		{"version", s.Version},
		{"plan", string(s.Plan)},
		{"monthly job limit", fmt.Sprint(s.MonthlyJobLimit)},
		{"rate limit", fmt.Sprintf("%d requests per %d s", s.RateLimit.Limit, s.RateLimit.WindowSeconds)},
	})
}

// parseIDArg parses a command whose one argument is an id.
func (a *app) parseIDArg(fs *flag.FlagSet, cmd command, args []string) (uuid.UUID, error) {
	pos, err := a.parseArgs(fs, cmd, args, 1, 1)
	if err != nil {
		return uuid.UUID{}, err
	}
	return parseID(cmd, pos[0])
}

// parseID reads an id argument: the API's ids are UUIDs.
func parseID(cmd command, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}, &usageError{msg: fmt.Sprintf("%q is not an id (a UUID such as 3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f)", s), cmd: cmd.name}
	}
	return id, nil
}

// parseClientOf resolves the settings of fs and returns a client of the Parsing API.
// jsonOnlyParseCommand sets up a Parsing API command that takes no arguments and only --json
// (described by jsonUsage) besides the connection flags: it parses args and returns the client
// and whether JSON was asked for.
func (a *app) jsonOnlyParseCommand(cmd command, args []string, jsonUsage string) (*parseclient.Client, bool, error) {
	fs := newFlags(cmd)
	addParseFlags(fs)
	asJSON := fs.Bool("json", false, jsonUsage)
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return nil, false, err
	}
	c, err := a.parseClientOf(fs)
	return c, *asJSON, err
}

func (a *app) parseClientOf(fs *flag.FlagSet) (*parseclient.Client, error) {
	p, err := a.profileOf(fs)
	if err != nil {
		return nil, err
	}
	cfg, err := parseSettingsOf(fs, a.getenv, p)
	if err != nil {
		return nil, err
	}
	return a.parseClient(cfg)
}

// parseClient returns a client of the Parsing API that sends the key and retries by the API's
// rule, and points error hints at it.
func (a *app) parseClient(cfg parseSettings) (*parseclient.Client, error) {
	a.target = parseTarget
	a.target.baseURL = cfg.BaseURL
	return parseclient.New(cfg.BaseURL, cfg.APIKey, parseclient.WithHTTPClient(httpClient(a.traceTo(cfg.Verbose)))), nil
}
