package contracttests

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

var (
	statementctlOnce sync.Once
	statementctlPath string
	statementctlErr  error
)

// statementctlBin builds cmd/statementctl once per test run, beside the statementd that
// TestMain built (and removes with its folder).
func statementctlBin(t *testing.T) string {
	t.Helper()
	statementctlOnce.Do(func() {
		statementctlPath = filepath.Join(filepath.Dir(statementdBin), "statementctl")
		out, err := exec.Command("go", "build", "-o", statementctlPath, "../cmd/statementctl").CombinedOutput()
		if err != nil {
			statementctlErr = fmt.Errorf("building statementctl: %v\n%s", err, out)
		}
	})
	require.NoError(t, statementctlErr)
	return statementctlPath
}

// ctlRun is the outcome of one statementctl run.
type ctlRun struct {
	stdout, stderr string
	code           int
}

// ctl runs statementctl with args, only the environment env (besides PATH and an empty HOME) and stdin
// as its input. Its streams are pipes, not a terminal, so progress comes as plain lines.
func ctl(t *testing.T, env []string, stdin []byte, args ...string) ctlRun {
	t.Helper()
	cmd := exec.Command(statementctlBin(t), args...)
	// A home of its own: never the profiles (statementctl login) of whoever runs the tests.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	require.NoError(t, cmd.Start())
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("statementctl %s did not end within 60 s\nstderr: %s", strings.Join(args, " "), stderr.String())
	}
	run := ctlRun{stdout: stdout.String(), stderr: stderr.String()}
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		run.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return run
}

// ok requires a run that exited 0.
func (r ctlRun) ok(t *testing.T, what string) ctlRun {
	t.Helper()
	require.Zero(t, r.code, "%s: exit code\nstdout: %s\nstderr: %s", what, r.stdout, r.stderr)
	return r
}

// resultCounts counts the rows of a reconcile table by their first column.
func resultCounts(table string) map[string]int {
	counts := map[string]int{}
	for line := range strings.SplitSeq(table, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			switch fields[0] {
			case "matched", "partial", "unmatched":
				counts[fields[0]]++
			}
		}
	}
	return counts
}

// TestStatementctl runs the statementctl binary, configured by its environment alone, against a
// live server: every command of both APIs, the webhook round trip with a signature check of a
// real test delivery, and the exit codes scripts rely on.
func TestStatementctl(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "CLI")
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, content, 0o600))
		return path
	}
	bank := write("bank.csv", bankCSV(reconBankLines))
	expected := write("open invoices.csv", []byte(reconExpectedCSV))
	statement := write("statement.csv", simpleCSV(3))

	reconEnv := []string{"STATEMENT_BASE_URL=" + s.ReconURL, "STATEMENT_CLIENT_ID=" + ten.ClientID, "STATEMENT_CLIENT_SECRET=" + ten.ClientSecret}
	parseEnv := []string{"STATEMENT_PARSE_BASE_URL=" + s.ParseURL, "STATEMENT_API_KEY=" + ten.APIKey}

	t.Run("reconcile prints matched, partial and unmatched as a table", func(t *testing.T) {
		r := ctl(t, reconEnv, nil, "reconcile", bank, expected).ok(t, "reconcile")
		// recon_jobs_test.go: INV-2024-001 and -002 matched, -003 and -005 partial, -004 unmatched.
		require.Equal(t, map[string]int{"matched": 2, "partial": 2, "unmatched": 1}, resultCounts(r.stdout), r.stdout)
		require.Regexp(t, `(?m)^partial\s+INV-2024-005\s+300\.00\s+600\.00\s+EUR\s+6,7\s+duplicate_payment$`, r.stdout)
		require.Regexp(t, `(?m)^1\s+2024-03-01\s+-42\.99\s+-\s+CARD PAYMENT OFFICE SUPPLIES$`, r.stdout, "the bank line that paid nothing")
		require.Contains(t, r.stdout, "2 matched, 2 partial, 1 unmatched of 5 references (2150.50 of 3025.50 expected matched); 1 bank line paid nothing")
		require.Regexp(t, `(?m)^job [0-9a-f-]{36} completed in \d+s$`, r.stderr, "plain progress lines when stderr is no terminal")
		require.NotContains(t, r.stderr, "\r", "no carriage returns in a log")
	})

	t.Run("login saves a checked profile that later commands use with no other settings", func(t *testing.T) {
		config := filepath.Join(t.TempDir(), "profiles.json")
		saved := ctl(t, append(append([]string{"STATEMENT_CONFIG=" + config}, reconEnv...), parseEnv...), nil,
			"login", "--profile", "ci").ok(t, "login")
		require.Contains(t, saved.stdout, "saved profile ci (API client "+ten.ClientID+", API key ")
		info, err := os.Stat(config)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		profileEnv := []string{"STATEMENT_CONFIG=" + config, "STATEMENT_PROFILE=ci"}
		ctl(t, profileEnv, nil, "limits").ok(t, "limits from the profile")
		ctl(t, profileEnv, nil, "usage").ok(t, "usage from the profile")
		wrong := ctl(t, []string{"STATEMENT_CONFIG=" + config, "STATEMENT_PARSE_BASE_URL=" + s.ParseURL, "STATEMENT_API_KEY=smk_live_wrong"}, nil,
			"login", "--profile", "broken")
		require.Equal(t, 3, wrong.code, "a key the API refuses is not saved: %s", wrong.stderr)
		ctl(t, profileEnv, nil, "usage").ok(t, "the saved profile is untouched")
	})

	t.Run("reconcile --json prints the results", func(t *testing.T) {
		r := ctl(t, reconEnv, nil, "reconcile", "--json", bank, expected).ok(t, "reconcile --json")
		var res reconclient.JobResults
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		require.Len(t, res.Matched, 2)
		require.Len(t, res.Partial, 2)
		require.Len(t, res.Unmatched, 1)
		require.Equal(t, 5, res.Summary.ExpectedCount)
		require.Contains(t, r.stdout, `"amount": 1250.50`, "amounts are JSON numbers with their decimals")
	})

	t.Run("reconcile --sandbox uses the sandbox, and a production base URL refuses it", func(t *testing.T) {
		sandbox := []string{"STATEMENT_BASE_URL=" + s.SandboxURL, "STATEMENT_CLIENT_ID=" + ten.ClientID, "STATEMENT_CLIENT_SECRET=" + ten.ClientSecret}
		ctl(t, sandbox, nil, "reconcile", "--sandbox", bank, expected).ok(t, "reconcile --sandbox")
		limits := ctl(t, sandbox, nil, "limits", "--json").ok(t, "limits")
		var q reconclient.Quota
		require.NoError(t, json.Unmarshal([]byte(limits.stdout), &q), limits.stdout)
		require.Equal(t, reconclient.Environment("sandbox"), q.Env)
		require.Equal(t, 1, q.JobsUsed)

		r := ctl(t, reconEnv, nil, "reconcile", "--sandbox", bank, expected)
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "INVALID_REQUEST")
	})

	t.Run("limits shows the production quota", func(t *testing.T) {
		r := ctl(t, reconEnv, nil, "limits").ok(t, "limits")
		require.Regexp(t, `(?m)^environment\s+production$`, r.stdout)
		require.Regexp(t, `(?m)^jobs used\s+2 of \d+ this month$`, r.stdout, "two jobs; the refused sandbox upload is not counted")
	})

	t.Run("reconcile --output saves the results as a spreadsheet", func(t *testing.T) {
		xlsxPath := filepath.Join(dir, "results.xlsx")
		r := ctl(t, reconEnv, nil, "reconcile", "--output", xlsxPath, bank, expected).ok(t, "reconcile --output results.xlsx")
		require.Empty(t, r.stdout, "the results go to the file")
		require.Regexp(t, `(?m)^wrote .*results\.xlsx \(\d+ bytes\)$`, r.stderr)
		info, err := os.Stat(xlsxPath)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "it holds bank data")
		f, err := excelize.OpenFile(xlsxPath)
		require.NoError(t, err)
		defer f.Close()
		rows, err := f.GetRows("Results")
		require.NoError(t, err)
		require.Len(t, rows, 1+5+1, "a header, five references, one line that paid nothing")
		require.Equal(t, []string{"matched", "INV-2024-001", "EUR", "1,250.50", "1,250.50", "", "exact"}, rows[1][:7])

		csvPath := filepath.Join(dir, "results.CSV")
		ctl(t, reconEnv, nil, "reconcile", "--output", csvPath, bank, expected).ok(t, "reconcile --output results.CSV")
		data, err := os.ReadFile(csvPath)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), "status,reference,currency,"), string(data))

		r = ctl(t, reconEnv, nil, "reconcile", "--output", filepath.Join(dir, "results.ods"), bank, expected)
		require.Equal(t, 2, r.code, r.stderr)
		require.Contains(t, r.stderr, "must end in .csv or .xlsx")
	})

	var jobID string
	t.Run("parse reports the transactions", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "parse", statement).ok(t, "parse")
		require.Regexp(t, `(?m)^status\s+completed$`, r.stdout)
		require.Regexp(t, `(?m)^transactions\s+3$`, r.stdout)
		m := regexp.MustCompile(`(?m)^job\s+([0-9a-f-]{36})$`).FindStringSubmatch(r.stdout)
		require.NotNil(t, m, r.stdout)
		jobID = m[1]
		require.Regexp(t, `(?m)^job `+jobID+` completed in \d+s$`, r.stderr)

		r = ctl(t, parseEnv, nil, "parse", "--json", "--transactions", statement).ok(t, "parse --json --transactions")
		var export parseclient.TransactionExport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &export), r.stdout)
		require.Equal(t, parseclient.JobStatusCompleted, export.Job.Status)
		require.Len(t, export.Transactions, 3)
	})
	require.NotEmpty(t, jobID, "parse ran")

	t.Run("results --json gives every transaction", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "results", jobID, "--json").ok(t, "results")
		var txs []parseclient.Transaction
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &txs), r.stdout)
		require.Len(t, txs, 3)
		require.Equal(t, "PAYMENT 1", txs[0].Description)

		table := ctl(t, parseEnv, nil, "results", jobID).ok(t, "results")
		require.Len(t, strings.Split(strings.TrimSpace(table.stdout), "\n"), 4, "a header and 3 rows: %s", table.stdout)
	})

	t.Run("export streams the CSV to a file", func(t *testing.T) {
		out := filepath.Join(dir, "export.csv")
		r := ctl(t, parseEnv, nil, "export", jobID, "--format", "csv", "-o", out).ok(t, "export")
		require.Contains(t, r.stderr, "wrote "+out)
		f, err := os.Open(out)
		require.NoError(t, err)
		defer f.Close()
		records, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 4, "a header and 3 rows")
		require.Equal(t, "id", records[0][0])

		r = ctl(t, parseEnv, nil, "export", jobID, "--format", "json", "-o", "-").ok(t, "export to stdout")
		var export parseclient.TransactionExport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &export))
		require.Len(t, export.Transactions, 3)
	})

	t.Run("jobs list and get", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "jobs", "list", "--status", "completed", "--json").ok(t, "jobs list")
		var jobs []parseclient.Job
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &jobs), r.stdout)
		require.Len(t, jobs, 2, "two parse runs")
		require.Equal(t, jobID, jobs[1].JobId.String(), "newest first")
		r = ctl(t, parseEnv, nil, "jobs", "list", "--limit", "1").ok(t, "jobs list --limit 1")
		require.Len(t, strings.Split(strings.TrimSpace(r.stdout), "\n"), 2, "a header and one job: %s", r.stdout)

		r = ctl(t, parseEnv, nil, "jobs", "get", jobID).ok(t, "jobs get")
		require.Regexp(t, `(?m)^transactions\s+3$`, r.stdout)
	})

	t.Run("usage and status", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "usage").ok(t, "usage")
		require.Regexp(t, `(?m)^jobs\s+2 of `, r.stdout)
		r = ctl(t, parseEnv, nil, "status").ok(t, "status")
		require.Regexp(t, `(?m)^status\s+ok$`, r.stdout)
	})

	t.Run("webhooks add, list, test, verify and rm", func(t *testing.T) {
		recv := newReceiver(t, http.StatusNoContent)
		r := ctl(t, parseEnv, nil, "webhooks", "add", recv.URL+"/hook", "--events", "job.completed,job.failed", "--description", "CLI test", "--json").ok(t, "webhooks add")
		var created parseclient.WebhookEndpointCreated
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
		require.True(t, strings.HasPrefix(created.SigningSecret, "whsec_"))
		s.remember(created.SigningSecret)
		id := created.Id.String()

		r = ctl(t, parseEnv, nil, "webhooks", "list").ok(t, "webhooks list")
		require.Regexp(t, `(?m)^`+id+`\s+yes\s+job.completed,job.failed\s+`+regexp.QuoteMeta(recv.URL)+`/hook\s+CLI test$`, r.stdout)

		r = ctl(t, parseEnv, nil, "webhooks", "test", id, "--event", "job.review").ok(t, "webhooks test")
		require.Regexp(t, `(?m)^`+id+`\s+\S+\s+job.review\s+ok\s+204\s`, r.stdout)
		got := recv.received()
		require.Len(t, got, 1)
		var headerArgs []string
		for _, name := range []string{"X-Service-Signature", "X-Service-Timestamp", "X-Service-Delivery-Id", "webhook-id", "webhook-timestamp", "webhook-signature"} {
			require.NotEmpty(t, got[0].header.Get(name), name)
			headerArgs = append(headerArgs, "--header", name+": "+got[0].header.Get(name))
		}
		secretEnv := []string{"STATEMENT_WEBHOOK_SECRET=" + created.SigningSecret}

		r = ctl(t, secretEnv, got[0].body, append([]string{"verify-webhook"}, headerArgs...)...).ok(t, "verify-webhook")
		require.Equal(t, "valid: delivery "+got[0].header.Get("X-Service-Delivery-Id")+"\n", r.stdout)
		tampered := bytes.Replace(got[0].body, []byte("job.review"), []byte("job.failed"), 1)
		require.NotEqual(t, got[0].body, tampered)
		r = ctl(t, secretEnv, tampered, append([]string{"verify-webhook"}, headerArgs...)...)
		require.Equal(t, 5, r.code, "a tampered body: %s", r.stderr)
		require.Contains(t, r.stderr, "invalid webhook: no webhook signature matches")
		r = ctl(t, nil, got[0].body, append([]string{"verify-webhook", "--secret", "whsec_" + "AAAA"}, headerArgs...)...)
		require.Equal(t, 5, r.code, "another secret: %s", r.stderr)

		r = ctl(t, parseEnv, nil, "webhooks", "deliveries", id).ok(t, "webhooks deliveries")
		ctl(t, parseEnv, nil, "webhooks", "rm", id).ok(t, "webhooks rm")
		r = ctl(t, parseEnv, nil, "webhooks", "list", "--json").ok(t, "webhooks list")
		require.Equal(t, "[]\n", r.stdout, "the endpoint is gone")
	})

	t.Run("a failed webhook test delivery exits 4", func(t *testing.T) {
		failing := newReceiver(t, http.StatusInternalServerError)
		r := ctl(t, parseEnv, nil, "webhooks", "add", failing.URL+"/hook", "--json").ok(t, "webhooks add")
		var created parseclient.WebhookEndpointCreated
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &created), r.stdout)
		r = ctl(t, parseEnv, nil, "webhooks", "test", created.Id.String())
		require.Equal(t, 4, r.code, r.stderr)
		require.Contains(t, r.stderr, "1 of 1 test delivery did not succeed")
	})

	t.Run("missing credentials exit 2 with what to set", func(t *testing.T) {
		r := ctl(t, []string{"STATEMENT_PARSE_BASE_URL=" + s.ParseURL}, nil, "usage")
		require.Equal(t, 2, r.code)
		require.Equal(t, "statementctl: no API key: pass --api-key or set STATEMENT_API_KEY (or save one: statementctl login)\n", r.stderr)
		r = ctl(t, []string{"STATEMENT_BASE_URL=" + s.ReconURL}, nil, "reconcile", bank, expected)
		require.Equal(t, 2, r.code)
		require.Contains(t, r.stderr, "no client credentials: pass --client-id and --client-secret, or set STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET")
	})

	t.Run("flags win over the environment", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "status", "--api-key", "smk_live_wrong")
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "AUTH_INVALID")
		require.Contains(t, r.stderr, "check the API key (--api-key or STATEMENT_API_KEY)")
		r = ctl(t, reconEnv, nil, "limits", "--client-secret", "cs_wrong")
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "AUTH_INVALID")
		require.Contains(t, r.stderr, "check the client credentials")
	})

	t.Run("an unknown job exits 3 with NOT_FOUND and the request id", func(t *testing.T) {
		r := ctl(t, parseEnv, nil, "jobs", "get", uuid.NewString())
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "404 NOT_FOUND")
		require.Regexp(t, `\(request [^)]+\)`, r.stderr)
		out := filepath.Join(dir, "missing.csv")
		r = ctl(t, parseEnv, nil, "export", uuid.NewString(), "-o", out)
		require.Equal(t, 3, r.code, r.stderr)
		require.NoFileExists(t, out, "a refused export leaves no file")
	})

	t.Run("a protected PDF is read with the password asked for or given in the environment, never as an argument", func(t *testing.T) {
		password := secretWord(t, "pw-")
		data, _ := protect(t, "uk-current-groff", password)
		protected := write("protected.pdf", data)
		r := ctl(t, parseEnv, nil, "parse", protected)
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "send it in the `password` field")

		r = ctl(t, parseEnv, []byte(password+"\n"), "parse", "--password", protected).ok(t, "parse --password, the password on stdin")
		require.Regexp(t, `(?m)^status\s+completed$`, r.stdout)
		r = ctl(t, append(parseEnv, "STATEMENT_PDF_PASSWORD="+password), nil, "parse", protected).ok(t, "parse with STATEMENT_PDF_PASSWORD")
		require.Regexp(t, `(?m)^status\s+completed$`, r.stdout)
		r = ctl(t, append(reconEnv, "STATEMENT_PDF_PASSWORD="+password), nil, "reconcile", protected, expected).ok(t, "reconcile with STATEMENT_PDF_PASSWORD")
		require.Contains(t, r.stdout, "of 5 references")

		r = ctl(t, parseEnv, []byte("not-it\n"), "parse", "--password", protected)
		require.Equal(t, 3, r.code, r.stderr)
		require.Contains(t, r.stderr, "the password does not open this PDF")
		require.NotContains(t, r.stderr, "not-it")
		r = ctl(t, parseEnv, nil, "parse", "--password="+password, protected)
		require.Equal(t, 2, r.code, "a password on the command line is a usage error")
		require.Contains(t, r.stderr, "--password takes no value")
		require.NotContains(t, r.stderr+r.stdout, password, "and is not repeated")
	})

	s.requireNoSecretsInLogs(t)
}

// TestStatementctlCompletionInRealShells sources the completion scripts into the shells
// themselves (bash always; zsh and fish when installed) and completes partial command lines
// through them, the binary on PATH as a user's would be.
func TestStatementctlCompletionInRealShells(t *testing.T) {
	t.Parallel()
	bin := statementctlBin(t)
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	run := func(shell, script string) string {
		cmd := exec.Command(shell, "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", shell, out)
		return string(out)
	}
	bash := func(words ...string) []string {
		script := `source <(statementctl completion bash)
COMP_WORDS=(` + shellQuote(words) + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _statementctl
printf '%s\n' "${COMPREPLY[@]}"`
		return strings.Fields(run("bash", script))
	}
	require.Equal(t, []string{"webhooks"}, bash("statementctl", "web"))
	require.Equal(t, []string{"list", "get"}, bash("statementctl", "jobs", ""))
	require.Equal(t, []string{"--format"}, bash("statementctl", "export", "--fo"))
	require.Equal(t, []string{"csv", "json"}, bash("statementctl", "export", "ID", "--format", ""))
	require.Equal(t, []string{"review"}, bash("statementctl", "jobs", "list", "--status", "r"))
	require.Equal(t, []string{"bash", "fish", "zsh"}, bash("statementctl", "completion", ""))
	require.Empty(t, bash("statementctl", "parse", "stat"), "a file argument is left to the shell")

	for _, shell := range []string{"zsh", "fish"} {
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("%s is not installed here: its script's candidates are the ones bash gets", shell)
			continue
		}
		// The shell parses the script without running it.
		out, err := exec.Command(shell, "-n", "-c", run("bash", "statementctl completion "+shell)).CombinedOutput()
		require.NoError(t, err, "%s -n: %s", shell, out)
	}
}

// shellQuote quotes words for a bash array literal.
func shellQuote(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}
