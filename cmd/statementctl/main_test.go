package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunWithoutAService(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{name: "help lists the commands, the environment and the exit codes", args: []string{"help"},
			wantCode: exitOK, wantStdout: "  5    the webhook signature is invalid (verify-webhook)\n"},
		{name: "version names the release, the commit and the Go release", args: []string{"version"},
			wantCode: exitOK, wantStdout: "statementctl dev\ncommit "},
		{name: "version takes no argument", args: []string{"version", "extra"}, wantCode: exitUsage},
		{name: "no command shows the help as an error", args: nil,
			wantCode: exitUsage, wantStderr: "Usage: statementctl COMMAND"},
		{name: "help COMMAND shows the command's flags", args: []string{"help", "jobs", "list"},
			wantCode: exitOK, wantStdout: "  --status status    only jobs in this status: queued, processing, completed, review or failed\n"},
		{name: "COMMAND -h shows the command's flags", args: []string{"export", "-h"},
			wantCode: exitOK, wantStdout: "Usage: statementctl export ID [flags]"},
		{name: "an unknown command is a usage error", args: []string{"frobnicate"},
			wantCode: exitUsage, wantStderr: `unknown command "frobnicate"; run 'statementctl help' for the list`},
		{name: "a group without its subcommand lists them", args: []string{"webhooks"},
			wantCode: exitUsage, wantStderr: "webhooks needs a subcommand: add, list, rm, test, deliveries"},
		{name: "an unknown subcommand lists the known ones", args: []string{"jobs", "delete"},
			wantCode: exitUsage, wantStderr: `unknown command "jobs delete": jobs takes list, get`},
		{name: "a missing argument points at -h", args: []string{"reconcile", "bank.csv"},
			wantCode: exitUsage, wantStderr: "statementctl reconcile: needs BANK EXPECTED\nRun 'statementctl reconcile -h' for its usage.\n"},
		{name: "a missing API key says how to give one", args: []string{"usage"},
			wantCode: exitUsage, wantStderr: "statementctl: no API key: pass --api-key or set STATEMENT_API_KEY (or save one: statementctl login)\n"},
		{name: "missing client credentials say how to give them", args: []string{"limits"},
			wantCode: exitUsage, wantStderr: "no client credentials: pass --client-id and --client-secret, or set STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET"},
		{name: "an id that is no UUID is a usage error", args: []string{"jobs", "get", "42"}, env: map[string]string{envAPIKey: "smk_x"},
			wantCode: exitUsage, wantStderr: `"42" is not an id`},
		{name: "an unreadable file is a usage error", args: []string{"parse", "/nonexistent/statement.csv"}, env: map[string]string{envAPIKey: "smk_x"},
			wantCode: exitUsage, wantStderr: "cannot read the statement: open /nonexistent/statement.csv: no such file or directory"},
		{name: "an unknown export format is a usage error", args: []string{"export", "3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f", "--format", "xml"},
			wantCode: exitUsage, wantStderr: `--format "xml" is not csv or json`},
		{name: "an unknown job status is a usage error", args: []string{"jobs", "list", "--status", "done"},
			wantCode: exitUsage, wantStderr: `--status "done" is not one of queued, processing, completed, review, failed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, stdout, stderr := testApp(tt.env)
			code := a.run(context.Background(), tt.args)
			require.Equal(t, tt.wantCode, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Contains(t, stdout.String(), tt.wantStdout)
			require.Contains(t, stderr.String(), tt.wantStderr)
		})
	}
}

// fakeAPI serves canned answers by "METHOD /path"; the error bodies are each API's.
func fakeAPI(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// answer writes status and body as JSON with a request id, and the extra headers (name, value).
func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-1")
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

func parseError(code, detail string) string {
	return fmt.Sprintf(`{"ok":false,"error":%q,"detail":%q,"meta":{"request_id":"req-1"}}`, code, detail)
}

const (
	fakeJobID  = "3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f"
	fakeJobAPI = "/api/v1/jobs/" + fakeJobID
)

func parseJob(status, extra string) string {
	return fmt.Sprintf(`{"ok":true,"meta":{"request_id":"req-1"},"data":{"job_id":%q,"status":%q,"file_name":"s.csv","format":"csv",
		"bank_name":null,"account":null,"currency":null,"period_start":null,"period_end":null,"opening_balance":null,
		"closing_balance":null,"transactions_count":0,"created_at":"2026-03-05T14:00:00Z","completed_at":null,
		"review_reasons":[],"error":null%s}}`, fakeJobID, status, extra)
}

func TestParsingAPIErrors(t *testing.T) {
	t.Parallel()
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"GET " + fakeJobAPI:    answer(404, parseError("NOT_FOUND", "Job "+fakeJobID+" was not found.")),
		"GET /api/v1/status":   answer(401, parseError("AUTH_INVALID", "Invalid API key.")),
		"GET /api/v1/usage":    answer(429, parseError("RATE_LIMITED", "Too many requests."), "Retry-After", "3600"),
		"GET /api/v1/webhooks": answer(403, parseError("FORBIDDEN", "The API key lacks the scope webhooks:manage.")),
	})
	env := map[string]string{envParseBaseURL: srv.URL, envAPIKey: "smk_test"}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"an unknown job gives the code, the detail and the request id", []string{"jobs", "get", fakeJobID},
			"statementctl: parsing API answered 404 NOT_FOUND: Job " + fakeJobID + " was not found. (request req-1)\n"},
		{"a refused key says which credentials to check", []string{"status"},
			"statementctl: parsing API answered 401 AUTH_INVALID: Invalid API key. (request req-1)\n" +
				"statementctl: check the API key (--api-key or STATEMENT_API_KEY): the service at " + srv.URL + " does not accept them\n"},
		{"a rate limit says when to retry", []string{"usage"},
			"statementctl: parsing API answered 429 RATE_LIMITED: Too many requests. (request req-1)\n" +
				"statementctl: the limit resets at 2026-03-05T15:00:00Z; retry then\n"},
		{"a missing scope says what to ask for", []string{"webhooks", "list"},
			"statementctl: the API key lacks the scope this command needs (the detail names it); ask the operator for one that has it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, stdout, stderr := testApp(env)
			code := a.run(context.Background(), tt.args)
			require.Equal(t, exitRefused, code, "stderr: %s", stderr)
			require.Empty(t, stdout.String())
			require.Contains(t, stderr.String(), tt.wantStderr)
		})
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	const csv = "id,date,amount\r\n1,2024-03-01,10.00\r\n"
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"GET " + fakeJobAPI + "/export": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("format") == "json" {
				answer(409, parseError("JOB_NOT_READY", "The job is still processing."))(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, csv)
		},
	})
	env := map[string]string{envParseBaseURL: srv.URL, envAPIKey: "smk_test"}
	dir := t.TempDir()

	t.Run("the export is written to the file", func(t *testing.T) {
		a, _, stderr := testApp(env)
		out := filepath.Join(dir, "march.csv")
		require.Equal(t, exitOK, a.run(context.Background(), []string{"export", fakeJobID, "-o", out}), stderr.String())
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, csv, string(got))
		require.Equal(t, fmt.Sprintf("wrote %s (%d bytes)\n", out, len(csv)), stderr.String())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 1, "no temporary file is left")
	})
	t.Run("-o - writes to stdout", func(t *testing.T) {
		a, stdout, stderr := testApp(env)
		require.Equal(t, exitOK, a.run(context.Background(), []string{"export", "-o", "-", fakeJobID}), stderr.String())
		require.Equal(t, csv, stdout.String())
	})
	t.Run("a refused export writes no file", func(t *testing.T) {
		a, _, stderr := testApp(env)
		out := filepath.Join(dir, "refused.json")
		require.Equal(t, exitRefused, a.run(context.Background(), []string{"export", fakeJobID, "--format", "json", "-o", out}))
		require.Contains(t, stderr.String(), "409 JOB_NOT_READY: The job is still processing.")
		require.Contains(t, stderr.String(), "see 'statementctl jobs get ID'")
		require.NoFileExists(t, out)
	})
}

func TestParseWaitsAndReportsAFailedJob(t *testing.T) {
	t.Parallel()
	var polls atomic.Int32
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"POST /api/v1/jobs": func(w http.ResponseWriter, r *http.Request) {
			_, header, err := r.FormFile("file")
			require.NoError(t, err)
			require.Equal(t, "statement.csv", header.Filename)
			answer(202, parseJob("queued", ""))(w, r)
		},
		"GET " + fakeJobAPI: func(w http.ResponseWriter, r *http.Request) {
			if polls.Add(1) < 3 {
				answer(200, parseJob("processing", ""))(w, r)
				return
			}
			answer(200, parseJob("failed", `,"error":{"code":"no_transactions","message":"The statement holds no transactions."}`))(w, r)
		},
	})
	file := filepath.Join(t.TempDir(), "statement.csv")
	require.NoError(t, os.WriteFile(file, []byte("Date,Amount\n"), 0o600))
	a, stdout, stderr := testApp(map[string]string{envParseBaseURL: srv.URL, envAPIKey: "smk_test"})

	code := a.run(context.Background(), []string{"parse", file, "--json"})
	require.Equal(t, exitOutcome, code, stderr.String())
	var job map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &job), "the failed job is still printed: %s", stdout)
	require.Equal(t, "failed", job["status"])
	require.Equal(t, "job "+fakeJobID+" processing (0s)\n"+
		"job "+fakeJobID+" failed in 0s\n"+
		"statementctl: job "+fakeJobID+" failed: no_transactions: The statement holds no transactions.\n", stderr.String(),
		"one progress line per state (the fixed clock stands still), then the outcome")
}

func TestReconcileReportsAFailedJob(t *testing.T) {
	t.Parallel()
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"POST /api/v1/token": answer(200, `{"access_token":"sat_1","token_type":"Bearer","expires_in":3600,"scope":"jobs:read jobs:write"}`),
		"POST /api/v1/jobs": func(w http.ResponseWriter, r *http.Request) {
			require.Equal(t, "Bearer sat_1", r.Header.Get("Authorization"))
			require.NotEmpty(t, r.Header.Get("Idempotency-Key"), "the SDK makes the upload safe to retry")
			require.NoError(t, r.ParseMultipartForm(1<<20))
			require.Equal(t, "sandbox", r.FormValue("env"), "--sandbox marks the job")
			require.Len(t, r.MultipartForm.File["bank"], 1)
			require.Equal(t, "expected.csv", r.MultipartForm.File["expected"][0].Filename)
			answer(202, `{"job_id":"`+fakeJobID+`","status":"processing","created_at":"2026-03-05T14:00:00Z"}`)(w, r)
		},
		"GET " + fakeJobAPI: answer(200, `{"job_id":"`+fakeJobID+`","status":"failed","created_at":"2026-03-05T14:00:00Z",
			"completed_at":"2026-03-05T14:00:01Z","env":"sandbox","bank_file":"bank.csv","expected_file":"expected.csv",
			"error":{"code":"FILE_INVALID","message":"expected: row 3: amount \"12,50,00\" is not a decimal number"}}`),
	})
	dir := t.TempDir()
	for _, name := range []string{"bank.csv", "expected.csv"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o600))
	}
	a, stdout, stderr := testApp(map[string]string{envBaseURL: srv.URL, envClientID: "cli_1", envClientSecret: "cs_1"})
	code := a.run(context.Background(), []string{"reconcile", "--sandbox", filepath.Join(dir, "bank.csv"), filepath.Join(dir, "expected.csv")})
	require.Equal(t, exitOutcome, code, stderr.String())
	require.Empty(t, stdout.String())
	require.True(t, strings.HasSuffix(stderr.String(),
		"statementctl: job "+fakeJobID+` failed: FILE_INVALID: expected: row 3: amount "12,50,00" is not a decimal number`+"\n"), stderr.String())
}
