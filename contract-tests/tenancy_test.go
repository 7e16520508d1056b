package contracttests

import (
	"bytes"
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// TestOtherTenantsObjectsAreNotFound (A6) is generated from the specs: every operation of both APIs
// whose path names an object ({id}, {job_id}) is called with tenant B's credentials on an id B does
// not own, and must answer 404 NOT_FOUND; new routes are covered as they are added. After each
// call, whatever its method, everything A reads through every authenticated GET of both specs
// (its jobs, results, exports, webhooks, deliveries, usage and quota, in both environments) is
// exactly as before: a refused foreign write has no side effect. And every list B reads (the GET
// operations whose path names no object) holds none of A's objects.
//
// The ids are tenant A's objects: a reconciliation job (in production), a parsing job and a
// webhook endpoint. A's own sandbox token must not reach A's production job either.
func TestOtherTenantsObjectsAreNotFound(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	a := s.newTenant(t, "A")
	b := s.newTenant(t, "B")
	token := s.token(t, s.ReconURL, b.ClientID, b.ClientSecret)
	aProd := s.reconCaller(t, s.ReconURL, a.ClientID, a.ClientSecret)
	ct, upload := jobUpload(t, "b.csv", bankCSV(reconBankLines), "e.csv", []byte(reconExpectedCSV))
	created := aProd.create(t, "", ct, upload)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	aJob := created.JSON202.JobId.String()
	aSandboxToken := s.token(t, s.SandboxURL, a.ClientID, a.ClientSecret)
	aParseJob := parseCaller{pc: parseClient(t, s.ParseURL), key: a.APIKey}.create(t, "a.csv", simpleCSV(2)).JobId.String()
	// An event the test never causes: A's deliveries stay as they are while the test reads them.
	hook, err := parseClient(t, s.ParseURL).CreateWebhookWithResponse(context.Background(), nil,
		parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/hook", Events: &[]parseclient.WebhookEventType{"usage.threshold"}}, bearer(a.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	aHook := hook.JSON201.Data.Id.String()
	aProd.wait(t, created.JSON202.JobId)
	parseCaller{pc: parseClient(t, s.ParseURL), key: a.APIKey}.wait(t, uuid.MustParse(aParseJob))
	owner := []view{{recon(t), s.ReconURL, aProd.token, ids{job: aJob}}, {recon(t), s.SandboxURL, aSandboxToken, ids{job: aJob}},
		{parse(t), s.ParseURL, a.APIKey, ids{job: aParseJob, hook: aHook}}}
	before := readAll(t, owner...)
	require.GreaterOrEqual(t, len(before), 3+3+8, "every authenticated GET of both specs")

	checked := 0
	for _, a := range []struct {
		api        *api
		base, cred string
		jobID      string
	}{{recon(t), s.ReconURL, token, aJob}, {recon(t), s.SandboxURL, aSandboxToken, aJob}, {parse(t), s.ParseURL, b.APIKey, aParseJob}} {
		paths := a.api.spec.Paths.Map()
		names := make([]string, 0, len(paths))
		for p := range paths {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, path := range names {
			if !strings.Contains(path, "{") {
				continue
			}
			for method, op := range paths[path].Operations() {
				name := a.api.name + " " + method + " " + path
				jobID, otherID := a.jobID, uuid.NewString()
				if jobID == "" {
					jobID = uuid.NewString()
				}
				switch {
				case strings.HasPrefix(path, "/api/v1/jobs/"):
					otherID = jobID // the Parsing API names its job ids {id}
				case strings.HasPrefix(path, "/api/v1/webhooks/"):
					otherID = aHook
				}
				url := a.base + strings.NewReplacer("{id}", otherID, "{job_id}", jobID).Replace(path)
				var body *bytes.Reader
				if op.RequestBody != nil {
					body = bytes.NewReader([]byte("{}"))
				} else {
					body = bytes.NewReader(nil)
				}
				req, err := http.NewRequest(method, url, body)
				require.NoError(t, err, name)
				req.Header.Set("Authorization", "Bearer "+a.cred)
				if op.RequestBody != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := a.api.client(t).Do(req)
				require.NoError(t, err, name)
				_ = resp.Body.Close()
				require.Equal(t, http.StatusNotFound, resp.StatusCode, "%s with another tenant's id", name)
				require.Equal(t, before, readAll(t, owner...), "%s with another tenant's id left the owner's objects as they were", name)
				checked++
			}
		}
	}
	require.GreaterOrEqual(t, checked, 8, "every {id} route of both specs was called")

	bSandboxToken := s.token(t, s.SandboxURL, b.ClientID, b.ClientSecret)
	lists := readAll(t, view{recon(t), s.ReconURL, token, ids{}}, view{recon(t), s.SandboxURL, bSandboxToken, ids{}},
		view{parse(t), s.ParseURL, b.APIKey, ids{}})
	require.GreaterOrEqual(t, len(lists), 1+1+4, "every list of both specs")
	for name, answer := range lists {
		require.True(t, strings.HasPrefix(answer, "200 "), "%s: %s", name, answer)
		for _, foreign := range []string{aJob, aParseJob, aHook} {
			require.NotContains(t, answer, foreign, "%s shows none of another tenant's objects", name)
		}
	}
	usage, err := parseClient(t, s.ParseURL).GetUsageWithResponse(context.Background(), bearer(b.APIKey))
	require.NoError(t, err)
	require.Zero(t, usage.JSON200.Data.JobsCreated, "B's usage counts none of A's jobs")
	quota, err := reconClient(t, s.ReconURL).GetLimitsWithResponse(context.Background(), bearer(token))
	require.NoError(t, err)
	require.Zero(t, quota.JSON200.JobsUsed, "B's quota counts none of A's jobs")
	r, err := aProd.rc.GetJobWithResponse(context.Background(), created.JSON202.JobId, bearer(aProd.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), "the job exists for its owner")
}
