package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// cmdReconcile uploads a bank statement and an expected-references file as one reconciliation
// job, waits for it with a progress display, and prints the results.
func (a *app) cmdReconcile(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addReconFlags(fs)
	asJSON := fs.Bool("json", false, "print the results as JSON (the API's job results object)")
	output := fs.String("output", "", "save the results to `FILE` as a spreadsheet, CSV or XLSX by its extension (.csv, .xlsx), instead of printing them. The file is created with mode 0600 (it holds bank data) and appears only when complete")
	key := fs.String("idempotency-key", "", "send this `key` (a UUID, say), so that running the same command again within 24 hours gives the same job instead of a new one")
	timeout := fs.Duration("timeout", 0, "stop waiting after this `duration` (the job keeps running); 0 waits until the job ends")
	askPassword := addPasswordFlag(fs)
	if err := refusePasswordValue(args, cmd.name); err != nil {
		return err
	}
	pos, err := a.parseArgs(fs, cmd, args, 2, 2)
	if err != nil {
		return err
	}
	if *timeout < 0 {
		return &usageError{msg: "--timeout must not be negative", cmd: cmd.name}
	}
	var sheetFormat reconclient.ResultsFormat
	if *output != "" {
		switch ext := strings.ToLower(filepath.Ext(*output)); ext {
		case ".csv":
			sheetFormat = reconclient.ResultsFormatCsv
		case ".xlsx":
			sheetFormat = reconclient.ResultsFormatXlsx
		default:
			return &usageError{msg: fmt.Sprintf("--output %q: the file must end in .csv or .xlsx", *output), cmd: cmd.name}
		}
		if *asJSON {
			return &usageError{msg: "--output and --json do not go together", cmd: cmd.name}
		}
	}
	prof, err := a.profileOf(fs)
	if err != nil {
		return err
	}
	cfg, err := reconSettingsOf(fs, a.getenv, prof)
	if err != nil {
		return err
	}
	password, err := a.password(*askPassword)
	if err != nil {
		return err
	}
	contentType, body, err := reconUpload(pos[0], pos[1], password, cfg.Sandbox)
	if err != nil {
		return err
	}
	c, err := a.reconClient(cfg)
	if err != nil {
		return err
	}

	var params reconclient.CreateJobParams
	if *key != "" {
		params.IdempotencyKey = key
	}
	meter := a.newByteMeter("uploading "+filepath.Base(pos[0])+" and "+filepath.Base(pos[1]), int64(len(body)))
	created, err := c.Raw.CreateJobWithBodyWithResponse(withUploadMeter(ctx, meter), &params, contentType, bytes.NewReader(body))
	meter.finish()
	if err != nil {
		return err
	}
	if err := reconOK(created.HTTPResponse, created.Body, created.JSON202 != nil); err != nil {
		return err
	}
	id := created.JSON202.JobId

	job, err := a.waitRecon(ctx, c, id, *timeout)
	if err != nil {
		return err
	}
	if job.Status == reconclient.JobStatusFailed {
		msg := fmt.Sprintf("job %s failed", id)
		if job.Error != nil {
			msg += fmt.Sprintf(": %s: %s", job.Error.Code, job.Error.Message)
		}
		return &outcomeError{msg: msg}
	}

	if sheetFormat != "" {
		return a.saveReconResults(ctx, c, id, sheetFormat, *output)
	}
	results, err := c.Raw.GetJobResultsWithResponse(ctx, id, nil)
	if err != nil {
		return err
	}
	if err := reconOK(results.HTTPResponse, results.Body, results.JSON200 != nil); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(a.stdout, results.JSON200)
	}
	return printReconResults(a.stdout, *results.JSON200)
}

// saveReconResults streams a completed job's results as a spreadsheet into path.
func (a *app) saveReconResults(ctx context.Context, c *reconclient.Client, id reconclient.JobId, format reconclient.ResultsFormat, path string) error {
	resp, err := c.Raw.GetJobResults(ctx, id, &reconclient.GetJobResultsParams{Format: &format})
	return a.saveDownload(resp, err, reconclient.Check, path)
}

// waitRecon waits for a reconciliation job to finish, showing its progress.
func (a *app) waitRecon(ctx context.Context, c *reconclient.Client, id reconclient.JobId, timeout time.Duration) (reconclient.Job, error) {
	waitCtx, cancel := withOptionalTimeout(ctx, timeout)
	defer cancel()
	p := a.startProgress("job " + id.String())
	job, err := c.WaitForJob(waitCtx, id, a.pollInterval, func(j reconclient.Job) {
		if j.Status == reconclient.JobStatusProcessing {
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

// withOptionalTimeout is context.WithTimeout, or no time limit for a timeout of 0.
func withOptionalTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// waitError explains why waiting for job id ended early: an interrupt, --timeout, or err.
func waitError(ctx context.Context, err error, id string, timeout time.Duration) error {
	switch {
	case ctx.Err() != nil:
		return &interruptedError{note: "job " + id + " keeps running on the server"}
	case timeout > 0 && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("job %s did not finish within %s (--timeout); it keeps running on the server", id, timeout)
	}
	return err
}

// reconUpload builds the multipart body of a reconciliation job: the two files as the parts
// bank and expected, named by their base names, the bank statement's password if any, and
// env=sandbox for the sandbox.
func reconUpload(bankPath, expectedPath, password string, sandbox bool) (contentType string, body []byte, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := addFilePart(w, "bank", "bank statement", bankPath); err != nil {
		return "", nil, err
	}
	if err := addFilePart(w, "expected", "expected-references file", expectedPath); err != nil {
		return "", nil, err
	}
	if password != "" {
		if err := w.WriteField("password", password); err != nil {
			return "", nil, err
		}
	}
	if sandbox {
		if err := w.WriteField("env", "sandbox"); err != nil {
			return "", nil, err
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), buf.Bytes(), nil
}

// addFilePart adds the file at path as the part field; what names the file in errors. The
// service finds the format from the content, so the part is sent as application/octet-stream.
func addFilePart(w *multipart.Writer, field, what, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return usagef("cannot read the %s: %v", what, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return usagef("the %s %s is a directory", what, path)
	}
	part, err := w.CreateFormFile(field, filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, f); err != nil {
		return usagef("cannot read the %s: %v", what, err)
	}
	return nil
}

// cmdLimits prints the monthly job quota of the environment the base URL serves.
func (a *app) cmdLimits(ctx context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	addReconFlags(fs)
	asJSON := fs.Bool("json", false, "print the quota as JSON")
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return err
	}
	c, err := a.reconClientOf(fs)
	if err != nil {
		return err
	}
	r, err := c.Raw.GetLimitsWithResponse(ctx)
	if err != nil {
		return err
	}
	if err := reconOK(r.HTTPResponse, r.Body, r.JSON200 != nil); err != nil {
		return err
	}
	q := r.JSON200
	if *asJSON {
		return printJSON(a.stdout, q)
	}
	return printFields(a.stdout, [][2]string{
		{"environment", string(q.Env)},
		{"plan", string(q.Plan)},
		{"jobs used", fmt.Sprintf("%d of %d this month", q.JobsUsed, q.JobsLimit)},
		{"jobs remaining", fmt.Sprint(q.JobsRemaining)},
		{"resets", timeOrDash(&q.ResetDate)},
	})
}

// reconClientOf resolves the settings of fs and returns a client of the Reconciliation API.
func (a *app) reconClientOf(fs *flag.FlagSet) (*reconclient.Client, error) {
	p, err := a.profileOf(fs)
	if err != nil {
		return nil, err
	}
	cfg, err := reconSettingsOf(fs, a.getenv, p)
	if err != nil {
		return nil, err
	}
	return a.reconClient(cfg)
}

// reconClient returns a client of the Reconciliation API that gets its own access tokens and
// retries by the API's rule, and points error hints at it.
func (a *app) reconClient(cfg reconSettings) (*reconclient.Client, error) {
	a.target = reconTarget
	a.target.baseURL = cfg.BaseURL
	return reconclient.New(cfg.BaseURL, cfg.ClientID, cfg.ClientSecret, reconclient.WithHTTPClient(httpClient(a.traceTo(cfg.Verbose)))), nil
}

// traceTo is where --verbose writes the HTTP exchanges: stderr, or nowhere without it.
func (a *app) traceTo(verbose bool) io.Writer {
	if !verbose {
		return nil
	}
	return a.stderr
}
