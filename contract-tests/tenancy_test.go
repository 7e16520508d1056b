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

	"github.com/statementmatch/service/gen/parseclient"
)

// TestOtherTenantsObjectsAreNotFound (A6) is generated from the specs: every operation of both APIs
// whose path names an object ({id}, {job_id}) is called with tenant B's credentials on an id B does
// not own, and must answer 404 NOT_FOUND; new routes are covered as they are added.
//
// The ids are tenant A's objects: a reconciliation job (in production), a parsing job and a
// webhook endpoint. A's own sandbox token must not reach A's production job either.
func TestOtherTenantsObjectsAreNotFound(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8")
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
	hook, err := parseClient(t, s.ParseURL).CreateWebhookWithResponse(context.Background(), nil,
		parseclient.CreateWebhookJSONRequestBody{Url: "http://127.0.0.1:9/hook"}, bearer(a.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	aHook := hook.JSON201.Data.Id.String()

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
				checked++
			}
		}
	}
	require.GreaterOrEqual(t, checked, 8, "every {id} route of both specs was called")
	r, err := aProd.rc.GetJobWithResponse(context.Background(), created.JSON202.JobId, bearer(aProd.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), "the job exists for its owner")
}
