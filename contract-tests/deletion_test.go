package contracttests

import (
	"database/sql"
	"io"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// count runs a SELECT count(*) on db.
func count(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(query, args...).Scan(&n), query)
	return n
}

// TestDeleteParseJob (O2): DELETE /api/v1/jobs/{id} on the Parsing API removes the job's file,
// transactions and the events that announced it at once (checked in the database), and leaves
// a tombstone: the id answers 410 GONE to every operation and to a second DELETE 204, and the
// job leaves the list. Another account's DELETE is 404, a key without jobs:write 403, and a job
// not yet finished is 409 JOB_NOT_READY and keeps everything.
func TestDeleteParseJob(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	acct := s.newAccount(t, "Deleting")
	c := s.parseCaller(t, acct)
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	hook := webhookCaller(c).create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL})
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	kept := c.wait(t, c.create(t, "kept.csv", simpleCSV(2)).JobId)
	job := c.wait(t, c.create(t, "march.csv", simpleCSV(5)).JobId)
	require.Equal(t, parseclient.JobStatusCompleted, job.Status)
	rcv.waitFor(t, 4, 1, 30*time.Second)
	var upload uuid.UUID
	require.NoError(t, db.QueryRow(`SELECT upload_id FROM parse_jobs WHERE id = $1`, job.JobId).Scan(&upload))
	require.Equal(t, 5, count(t, db, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, job.JobId))
	require.Positive(t, count(t, db, `SELECT count(*) FROM upload_chunks WHERE upload_id = $1`, upload))
	events := `SELECT count(*) FROM webhook_events WHERE strpos(convert_from(body, 'UTF8'), $1) > 0`
	require.Equal(t, 2, count(t, db, events, job.JobId.String()), "job.created and job.completed")

	other := s.parseCaller(t, s.newAccount(t, "Other"))
	resp, err := other.pc.DeleteJobWithResponse(t.Context(), job.JobId, bearer(other.key))
	require.NoError(t, err)
	requireParseError(t, resp.HTTPResponse, resp.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
	readOnly := s.parseCaller(t, acct, "jobs:read")
	resp, err = readOnly.pc.DeleteJobWithResponse(t.Context(), job.JobId, bearer(readOnly.key))
	require.NoError(t, err)
	requireParseError(t, resp.HTTPResponse, resp.Body, http.StatusForbidden, parseclient.ErrorCodeForbidden)

	for i := range 2 {
		resp, err = c.pc.DeleteJobWithResponse(t.Context(), job.JobId, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, resp.StatusCode(), "delete %d: %s", i+1, resp.Body)
		require.NotEmpty(t, resp.HTTPResponse.Header.Get("X-Request-Id"))
	}

	got := c.getJob(t, job.JobId)
	gone := requireParseError(t, got.HTTPResponse, got.Body, http.StatusGone, parseclient.ErrorCodeGone)
	require.Contains(t, gone.Detail, "was deleted on request on ")
	res := c.results(t, job.JobId, nil)
	requireParseError(t, res.HTTPResponse, res.Body, http.StatusGone, parseclient.ErrorCodeGone)
	exp := c.export(t, job.JobId, parseclient.ExportFormatCsv)
	requireParseError(t, exp.HTTPResponse, exp.Body, http.StatusGone, parseclient.ErrorCodeGone)
	list := c.listed(t, nil)
	require.Len(t, list.Jobs, 1, "the deleted job leaves the list")
	require.Equal(t, kept.JobId, list.Jobs[0].JobId)
	require.Equal(t, 2, c.usage(t).JobsCreated, "it still counts against the month's limit")

	// Nothing of the file is left: no transaction, no upload or piece of it, no event naming
	// the job; the tombstone keeps neither the file's name nor the statement's details.
	require.Zero(t, count(t, db, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, job.JobId))
	require.Zero(t, count(t, db, `SELECT count(*) FROM uploads WHERE id = $1`, upload))
	require.Zero(t, count(t, db, `SELECT count(*) FROM upload_chunks WHERE upload_id = $1`, upload))
	require.Zero(t, count(t, db, events, job.JobId.String()))
	require.Zero(t, count(t, db, `SELECT count(*) FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
  WHERE strpos(convert_from(e.body, 'UTF8'), $1) > 0`, job.JobId.String()))
	require.Equal(t, 1, count(t, db, `SELECT count(*) FROM parse_jobs WHERE id = $1 AND deleted_at IS NOT NULL AND upload_id IS NULL
   AND file_name = '' AND bank_name IS NULL AND account IS NULL AND opening_balance IS NULL AND closing_balance IS NULL`, job.JobId))
	require.Equal(t, 2, count(t, db, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, kept.JobId), "the other job keeps its own")
	require.Equal(t, 2, count(t, db, events, kept.JobId.String()))

	// A job that has not finished (no worker runs here) cannot be deleted yet.
	api := startServer(t, "STATEMENTD_ROLE=api")
	waiting := api.parseCaller(t, api.newAccount(t, "Waiting"))
	queued := waiting.create(t, "queued.csv", simpleCSV(1))
	resp, err = waiting.pc.DeleteJobWithResponse(t.Context(), queued.JobId, bearer(waiting.key))
	require.NoError(t, err)
	busy := requireParseError(t, resp.HTTPResponse, resp.Body, http.StatusConflict, parseclient.ErrorCodeJobNotReady)
	require.Contains(t, busy.Detail, "delete it once it has")
	require.Equal(t, parseclient.JobStatusQueued, waiting.job(t, queued.JobId).Status)
}

// TestDeleteReconciliationJob (O3): DELETE /api/v1/jobs/{job_id} on the Reconciliation API
// removes the job's two files and its results at once (checked in the database); the id then
// answers 410 GONE to the job, its results and its downloads, and a second DELETE 204. The
// other environment's base URL and another account answer 404, a client without jobs:write
// 403.
func TestDeleteReconciliationJob(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	acct := s.newAccount(t, "Deleting recon")
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	created := c.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	id := created.JSON202.JobId
	require.Equal(t, reconclient.JobStatusCompleted, c.wait(t, id).Status)
	var bank, expected uuid.UUID
	require.NoError(t, db.QueryRow(`SELECT bank_upload, expected_upload FROM recon_jobs WHERE id = $1`, id).Scan(&bank, &expected))
	require.Equal(t, 1, count(t, db, `SELECT count(*) FROM recon_results WHERE job_id = $1`, id))

	sandbox := s.reconCaller(t, s.SandboxURL, clientID, secret)
	otherID, otherSecret := s.newClient(t, s.newAccount(t, "Other recon"))
	readOnlyID, readOnlySecret := s.newClient(t, acct, "jobs:read")
	for _, refused := range []struct {
		caller reconCaller
		status int
		code   reconclient.ErrorCode
	}{
		{sandbox, http.StatusNotFound, reconclient.ErrorCodeNotFound},
		{s.reconCaller(t, s.ReconURL, otherID, otherSecret), http.StatusNotFound, reconclient.ErrorCodeNotFound},
		{s.reconCaller(t, s.ReconURL, readOnlyID, readOnlySecret), http.StatusForbidden, reconclient.ErrorCodeForbidden},
	} {
		resp, err := refused.caller.rc.DeleteJobWithResponse(t.Context(), id, bearer(refused.caller.token))
		require.NoError(t, err)
		require.Equal(t, refused.status, resp.StatusCode(), string(resp.Body))
		require.Contains(t, string(resp.Body), string(refused.code))
	}
	require.Equal(t, 1, count(t, db, `SELECT count(*) FROM recon_results WHERE job_id = $1`, id), "refused deletes delete nothing")

	for i := range 2 {
		resp, err := c.rc.DeleteJobWithResponse(t.Context(), id, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusNoContent, resp.StatusCode(), "delete %d: %s", i+1, resp.Body)
	}
	got, err := c.rc.GetJobWithResponse(t.Context(), id, bearer(c.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusGone, got.StatusCode(), string(got.Body))
	require.Equal(t, reconclient.ErrorCodeGone, got.JSON410.Error)
	require.Contains(t, got.JSON410.Detail.Message, "was deleted on request on ")
	for _, format := range []reconclient.ResultsFormat{reconclient.ResultsFormatJson, reconclient.ResultsFormatCsv, reconclient.ResultsFormatXlsx} {
		res, err := c.rc.GetJobResultsWithResponse(t.Context(), id, &reconclient.GetJobResultsParams{Format: &format}, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusGone, res.StatusCode(), "%s: %s", format, res.Body)
	}

	require.Zero(t, count(t, db, `SELECT count(*) FROM recon_results WHERE job_id = $1`, id))
	require.Zero(t, count(t, db, `SELECT count(*) FROM uploads WHERE id IN ($1, $2)`, bank, expected))
	require.Zero(t, count(t, db, `SELECT count(*) FROM upload_chunks WHERE upload_id IN ($1, $2)`, bank, expected))
	require.Equal(t, 1, count(t, db, `SELECT count(*) FROM recon_jobs WHERE id = $1 AND deleted_at IS NOT NULL
   AND bank_upload IS NULL AND expected_upload IS NULL AND bank_file = '' AND expected_file = ''`, id))
	require.Equal(t, 1, c.limits(t).JobsUsed, "it still counts against the month's quota")
}

// TestDeleteAccount (O4): `statementd admin account delete ID --yes` removes an account and
// everything it owns: afterwards no table holds a row of the account, nor a file piece,
// transaction, result, event, delivery, attempt or queued work of its jobs and webhooks, and
// its credentials no longer work. Without --yes it refuses and deletes nothing; another
// account keeps all of its own.
func TestDeleteAccount(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	// Two accounts with the same kinds of data: jobs of both APIs, a webhook with its
	// deliveries, a person invited to the dashboard.
	type owned struct {
		ten  fullTenant
		jobs []uuid.UUID
	}
	populate := func(name string) owned {
		ten := s.newTenant(t, name)
		pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
		rcv := newHookReceiver(t, answer(http.StatusNoContent))
		hook := webhookCaller(pc).create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL})
		require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
		o := owned{ten: ten}
		o.jobs = append(o.jobs, pc.wait(t, pc.create(t, "statement.csv", simpleCSV(3)).JobId).JobId)
		rc := s.reconCaller(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
		ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
		created := rc.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		o.jobs = append(o.jobs, rc.wait(t, created.JSON202.JobId).JobId)
		rcv.waitFor(t, 2, 1, 30*time.Second)
		s.invite(t, ten.AccountID, name+"@example.com", "owner")
		return o
	}
	doomed, kept := populate("doomed"), populate("kept")

	// Every table with an account_id column, and the rows that reach an account through
	// another table.
	var tables []string
	rows, err := db.Query(`SELECT table_name FROM information_schema.columns
 WHERE table_schema = 'public' AND column_name = 'account_id' ORDER BY table_name`)
	require.NoError(t, err)
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		tables = append(tables, name)
	}
	require.NoError(t, rows.Err())
	require.Contains(t, tables, "uploads")
	require.Contains(t, tables, "audit_events")
	reached := map[string]string{
		"upload_chunks":      `SELECT count(*) FROM upload_chunks c JOIN uploads u ON u.id = c.upload_id WHERE u.account_id = $1`,
		"parse_transactions": `SELECT count(*) FROM parse_transactions x JOIN parse_jobs j ON j.id = x.job_id WHERE j.account_id = $1`,
		"recon_results":      `SELECT count(*) FROM recon_results x JOIN recon_jobs j ON j.id = x.job_id WHERE j.account_id = $1`,
		"webhook_deliveries": `SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.account_id = $1`,
		"webhook_attempts": `SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
  JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.account_id = $1`,
		"dashboard_sessions": `SELECT count(*) FROM dashboard_sessions x JOIN users u ON u.id = x.user_id WHERE u.account_id = $1`,
	}
	rowsOf := func(accountID string) map[string]int {
		n := map[string]int{}
		for _, table := range tables {
			n[table] = count(t, db, `SELECT count(*) FROM `+table+` WHERE account_id = $1`, accountID)
		}
		for name, query := range reached {
			n[name] = count(t, db, query, accountID)
		}
		return n
	}
	queued := func(o owned) int {
		ids := make([]string, len(o.jobs))
		for i, id := range o.jobs {
			ids[i] = id.String()
		}
		return count(t, db, `SELECT count(*) FROM river_job WHERE args ->> 'job_id' = ANY($1)`, pq.Array(ids))
	}
	before := rowsOf(doomed.ten.AccountID)
	for _, table := range []string{"uploads", "upload_chunks", "parse_jobs", "parse_transactions", "recon_jobs", "recon_results",
		"webhook_endpoints", "webhook_events", "webhook_deliveries", "webhook_attempts", "api_clients", "api_keys", "users", "audit_events"} {
		require.Positive(t, before[table], "the doomed account has rows in %s", table)
	}
	require.Equal(t, 2, queued(doomed))
	keptBefore := rowsOf(kept.ten.AccountID)

	refused := exec.Command(statementdBin, "admin", "account", "delete", doomed.ten.AccountID)
	refused.Env = []string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + s.DatabaseURL, "STATEMENTD_DATA_DIR=" + s.DataDir}
	out, err := refused.CombinedOutput()
	require.Error(t, err, "without --yes: %s", out)
	require.Contains(t, string(out), "add --yes to confirm")
	require.Equal(t, before, rowsOf(doomed.ten.AccountID), "a refused delete deletes nothing")

	done := s.admin(t, "account", "delete", doomed.ten.AccountID, "--yes", "--json")
	require.Equal(t, true, done["deleted"])
	require.Equal(t, "doomed", done["name"])
	for table, n := range rowsOf(doomed.ten.AccountID) {
		require.Zero(t, n, "rows of the deleted account left in %s", table)
	}
	require.Zero(t, queued(doomed), "queued work of the deleted account's jobs")
	require.Zero(t, count(t, db, `SELECT count(*) FROM accounts WHERE id = $1`, doomed.ten.AccountID))
	require.Equal(t, keptBefore, rowsOf(kept.ten.AccountID), "the other account keeps everything")
	require.Equal(t, 2, queued(kept))

	// Its credentials are gone with it.
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: doomed.ten.APIKey}
	got := pc.getJob(t, doomed.jobs[0])
	requireParseError(t, got.HTTPResponse, got.Body, http.StatusUnauthorized, parseclient.ErrorCodeAuthInvalid)
	token := send(t, recon(t).client(t), tokenRequest(t, s.ReconURL, httpBasic, doomed.ten.ClientID, doomed.ten.ClientSecret))
	require.Equal(t, http.StatusUnauthorized, token.StatusCode, string(token.body))
	require.Contains(t, string(token.body), string(reconclient.ErrorCodeAuthInvalid))

	again := exec.Command(statementdBin, "admin", "account", "delete", doomed.ten.AccountID, "--yes")
	again.Env = refused.Env
	out, err = again.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "does not exist")
}

// TestRetention (O5): data past its retention is deleted by the worker's periodic purge (which
// also runs when a worker starts): a parsing and a reconciliation job created 400 days ago keep
// their rows (GET /jobs/{id} 200) but answer 410 GONE on their results and export, with no file,
// result or transaction left in the database; a job created today keeps everything.
func TestRetention(t *testing.T) {
	t.Parallel()
	c := newJobCluster(t)
	w := c.worker(t)
	acct := c.api.newAccount(t, "Retention")
	pc := c.api.parseCaller(t, acct)
	old := pc.wait(t, pc.create(t, "old.csv", simpleCSV(4)).JobId)
	fresh := pc.wait(t, pc.create(t, "fresh.csv", simpleCSV(2)).JobId)
	clientID, secret := c.api.newClient(t, acct)
	rc := c.api.reconCaller(t, c.api.ReconURL, clientID, secret)
	ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	created := rc.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	recon := created.JSON202.JobId
	require.Equal(t, reconclient.JobStatusCompleted, rc.wait(t, recon).Status)
	require.NoError(t, w.stop(t))

	// A year and a month go by for two of the jobs.
	for _, q := range []string{`UPDATE parse_jobs SET created_at = created_at - interval '400 days' WHERE id = $1`,
		`UPDATE recon_jobs SET created_at = created_at - interval '400 days' WHERE id = $1`} {
		for _, id := range []uuid.UUID{old.JobId, recon} {
			_, err := c.db.Exec(q, id)
			require.NoError(t, err)
		}
	}
	c.worker(t)
	require.Eventually(t, func() bool {
		return c.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, old.JobId) == 0 &&
			c.count(t, `SELECT count(*) FROM recon_results WHERE job_id = $1`, recon) == 0
	}, 30*time.Second, 100*time.Millisecond, "the starting worker's purge deletes the old data")

	j := pc.job(t, old.JobId)
	require.Equal(t, parseclient.JobStatusCompleted, j.Status, "the job itself stays")
	require.Equal(t, 4, j.TransactionsCount)
	res := pc.results(t, old.JobId, nil)
	gone := requireParseError(t, res.HTTPResponse, res.Body, http.StatusGone, parseclient.ErrorCodeGone)
	require.Contains(t, gone.Detail, "after the retention period")
	exp := pc.export(t, old.JobId, parseclient.ExportFormatJson)
	requireParseError(t, exp.HTTPResponse, exp.Body, http.StatusGone, parseclient.ErrorCodeGone)
	require.Len(t, pc.allResults(t, fresh.JobId, 100), 2, "a job of today keeps its transactions")

	got, err := rc.rc.GetJobWithResponse(t.Context(), recon, bearer(rc.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, got.StatusCode(), string(got.Body))
	results, err := rc.rc.GetJobResultsWithResponse(t.Context(), recon, nil, bearer(rc.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusGone, results.StatusCode(), string(results.Body))
	require.Contains(t, results.JSON410.Detail.Message, "after the retention period")

	// The dashboard shows the jobs, saying when their results went.
	web := dashboardSession(t, c.api, c.api.invite(t, acct, "keeper@retention.example", "viewer"), "keeper@retention.example",
		"a passphrase long enough 42")
	for path, want := range map[string]string{
		"/jobs/parsing/" + old.JobId.String():               "The transactions were deleted on ",
		"/jobs/reconciliation/production/" + recon.String(): "The results were deleted on ",
	} {
		resp, err := web.Get(c.api.DashboardURL + path)
		require.NoError(t, err)
		page, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, string(page), want, path)
	}

	require.Equal(t, 1, c.count(t, `SELECT count(*) FROM uploads WHERE account_id = $1`, acct), "only the fresh job's file")
	require.Zero(t, c.count(t, `SELECT count(*) FROM parse_transactions_purge`))
}
