package contracttests

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// TestScaleOut (O6): the deployment the README shows, two `--role api` and two `--role worker`
// processes sharing one PostgreSQL and one secret key, through a mixed workload: parsing jobs
// (completed, to review, failed) and reconciliations uploaded alternately through either API
// process and read back through the other. Every job finishes once (one attempt, one queued
// work), in the status its file calls for, and every webhook event arrives once, signed with the
// account's secret whichever process signed it.
func TestScaleOut(t *testing.T) {
	t.Parallel()
	c := newJobCluster(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	api2 := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*", "STATEMENTD_ROLE=api",
		"DATABASE_URL="+c.api.DatabaseURL, "STATEMENTD_DATA_DIR="+c.api.DataDir)
	c.worker(t)
	c.worker(t)
	apis := []*server{c.api, api2}

	ten := c.api.newTenant(t, "Scale")
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	callers := make([]parseCaller, 2)
	recons := make([]reconCaller, 2)
	for i, s := range apis {
		callers[i] = parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
		recons[i] = s.reconCaller(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	}
	hook := webhookCaller(callers[0]).create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL})
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	secret := hook.JSON201.Data.SigningSecret

	files := []struct {
		name    string
		content []byte
		want    parseclient.JobStatus
	}{
		{"statement.csv", simpleCSV(6), parseclient.JobStatusCompleted},
		{"statement.sta", unbalancedMT940(), parseclient.JobStatusReview},
		{"statement.xml", truncatedCAMT053(t), parseclient.JobStatusFailed},
	}
	const parses, reconciliations = 24, 8
	want := map[uuid.UUID]parseclient.JobStatus{}
	for i := range parses {
		f := files[i%len(files)]
		want[callers[i%2].create(t, fmt.Sprintf("%d-%s", i, f.name), f.content).JobId] = f.want
	}
	var recon []uuid.UUID
	ct, body := jobUpload(t, "bank.csv", bankCSV(reconBankLines), "expected.csv", []byte(reconExpectedCSV))
	for i := range reconciliations {
		created := recons[i%2].create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		recon = append(recon, created.JSON202.JobId)
	}

	// Read back through the process that did not take the upload.
	i := 0
	for id, status := range want {
		require.Equal(t, status, callers[i%2].wait(t, id).Status, "job %s", id)
		i++
	}
	for i, id := range recon {
		require.Equal(t, reconclient.JobStatusCompleted, recons[(i+1)%2].wait(t, id).Status)
	}

	// Each job was worked once: one attempt, one piece of queued work, completed.
	require.Equal(t, parses, c.count(t, `SELECT count(*) FROM parse_jobs WHERE account_id = $1 AND attempt = 1`, ten.AccountID))
	require.Equal(t, reconciliations, c.count(t, `SELECT count(*) FROM recon_jobs WHERE account_id = $1 AND attempt = 1`, ten.AccountID))
	// The queue records its work completed just after the job is stored.
	require.Eventually(t, func() bool {
		return c.count(t, `
SELECT count(DISTINCT args ->> 'job_id') FROM river_job WHERE kind IN ('parse', 'reconcile') AND state = 'completed'`) == parses+reconciliations
	}, 10*time.Second, 50*time.Millisecond)
	require.Equal(t, 2, c.count(t, `
SELECT count(DISTINCT attempted_by[array_length(attempted_by, 1)]) FROM river_job WHERE kind IN ('parse', 'reconcile')`),
		"both workers took jobs")
	require.Equal(t, parses+reconciliations, c.count(t, `SELECT count(*) FROM river_job WHERE kind IN ('parse', 'reconcile')`))

	// Every event arrives once: job.created and the final event of each parsing job.
	got := rcv.waitFor(t, 2*parses, 1, time.Minute)
	require.Len(t, got, 2*parses)
	events := map[string]int{}
	for id, reqs := range got {
		require.Len(t, reqs, 1, "delivery %s arrived once", id)
		ev := requireSigned(t, secret, id, reqs[0])
		jobID, err := uuid.Parse(fmt.Sprint(ev.Data["job_id"]))
		require.NoError(t, err)
		require.Contains(t, want, jobID)
		events[ev.Event]++
	}
	require.Equal(t, map[string]int{"job.created": parses, "job.completed": parses / 3, "job.review": parses / 3, "job.failed": parses / 3}, events)
}
