package contracttests

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/platform/apidocs"
	"github.com/statementmatch/service/internal/webhook"
	"github.com/statementmatch/service/openapi"
	"github.com/statementmatch/service/openapi/samples/gosamples"
)

// docsSamples reads the code samples the docs page of api shows.
func docsSamples(t *testing.T, api string) apidocs.Samples {
	t.Helper()
	samples := apidocs.Samples{}
	for _, f := range openapi.CodeSamples {
		require.NoError(t, samples.Add(api, f.Lang, f.Label, f.Source))
	}
	return samples
}

// TestDocsSamplesCoverEveryOperation requires a curl, a Go and a TypeScript sample for every
// operation of both specs on their docs pages; the webhook a receiver gets (a callback, sent by
// the service) has Go and TypeScript only.
func TestDocsSamplesCoverEveryOperation(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string][]byte{"reconciliation": openapi.Reconciliation, "parsing": openapi.Parsing} {
		// The spec as written: the generated packages' embedded copies capitalize operation ids.
		doc, err := openapi3.NewLoader().LoadFromData(spec)
		require.NoError(t, err)
		a := &api{name: name, spec: doc}
		samples := docsSamples(t, a.name)
		known := map[string]bool{}
		check := func(id string, labels ...string) {
			known[id] = true
			var got []string
			for _, s := range samples[id] {
				got = append(got, s.Label)
			}
			require.Equal(t, labels, got, "%s %s: its samples", a.name, id)
		}
		for _, item := range a.spec.Paths.Map() {
			for _, op := range item.Operations() {
				check(op.OperationID, "curl", "Go", "TypeScript")
				for _, cb := range op.Callbacks {
					for _, cbItem := range cb.Value.Map() {
						for _, cbOp := range cbItem.Operations() {
							check(cbOp.OperationID, "Go", "TypeScript")
						}
					}
				}
			}
		}
		for id := range samples {
			require.True(t, known[id], "%s: a sample for %s, which is no operation", a.name, id)
		}
	}
}

// docsFixtures writes the files the samples upload into dir.
func docsFixtures(t *testing.T, dir string) {
	t.Helper()
	for name, content := range map[string][]byte{
		"bank.csv": bankCSV(reconBankLines), "expected.csv": []byte(reconExpectedCSV), "statement.csv": simpleCSV(3),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), content, 0o600))
	}
}

// docsIDs creates what the samples of one language act on: a finished job of each API, a
// second one of each for the deletion samples, and a webhook endpoint.
type docsIDs struct {
	reconJob, reconJobToDelete, parseJob, parseJobToDelete, webhook string
}

func newDocsIDs(t *testing.T, s *server, ten fullTenant, hookURL string) docsIDs {
	t.Helper()
	ctx := context.Background()
	rc := reconclient.New(s.ReconURL, ten.ClientID, ten.ClientSecret)
	pc := parseclient.New(s.ParseURL, ten.APIKey)
	var ids docsIDs
	for _, id := range []*string{&ids.reconJob, &ids.reconJobToDelete} {
		accepted, err := rc.CreateJob(ctx, reconclient.Upload{Name: "bank.csv", Content: bytes.NewReader(bankCSV(reconBankLines))},
			reconclient.Upload{Name: "expected.csv", Content: strings.NewReader(reconExpectedCSV)}, nil)
		require.NoError(t, err)
		_, err = rc.WaitForJob(ctx, accepted.JobId, 20*time.Millisecond, nil)
		require.NoError(t, err)
		*id = accepted.JobId.String()
	}
	for _, id := range []*string{&ids.parseJob, &ids.parseJobToDelete} {
		job, err := pc.CreateJob(ctx, parseclient.Upload{Name: "statement.csv", Content: bytes.NewReader(simpleCSV(3))}, nil)
		require.NoError(t, err)
		_, err = pc.WaitForJob(ctx, job.JobId, 20*time.Millisecond, nil)
		require.NoError(t, err)
		*id = job.JobId.String()
	}
	endpoint, err := pc.CreateWebhook(ctx, parseclient.CreateWebhookRequest{Url: hookURL})
	require.NoError(t, err)
	ids.webhook = endpoint.Id.String()
	return ids
}

// jobFor is the job a sample of api for operation acts on.
func (ids docsIDs) jobFor(api, operation string) string {
	switch {
	case api == "reconciliation" && operation == "deleteJob":
		return ids.reconJobToDelete
	case api == "reconciliation":
		return ids.reconJob
	case operation == "deleteJob":
		return ids.parseJobToDelete
	}
	return ids.parseJob
}

// TestDocsSamplesRunAgainstAServer runs every Go and curl sample of the docs pages against a
// server, as a reader would with their own ids (the TypeScript samples run in
// TestTypeScriptSDKPackage, against the packed SDK).
func TestDocsSamplesRunAgainstAServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "Docs")
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hooks.Close)
	dir := t.TempDir()
	docsFixtures(t, dir)

	t.Run("Go", func(t *testing.T) {
		ids := newDocsIDs(t, s, ten, hooks.URL+"/go")
		secret := webhook.NewSecret()
		body := []byte(`{"event":"job.completed","data":{"job_id":"` + ids.parseJob + `","status":"completed","bank_name":null,"transactions_count":3,"created_at":"2026-03-01T08:00:00Z"},"timestamp":"2026-03-01T08:00:01Z"}`)
		headers, err := webhook.Headers(secret, uuid.New(), time.Now(), body)
		require.NoError(t, err)
		delivery := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
		delivery.Header = headers
		for _, sample := range gosamples.Samples {
			env := gosamples.Env{BaseURL: s.ReconURL, ClientID: ten.ClientID, ClientSecret: ten.ClientSecret,
				ParseURL: s.ParseURL, APIKey: ten.APIKey, JobID: ids.jobFor(sample.API, sample.Operation),
				WebhookID: ids.webhook, HookURL: hooks.URL + "/go-sample", Secret: secret, Delivery: delivery, Body: body,
				BankFile: filepath.Join(dir, "bank.csv"), ExpectedFile: filepath.Join(dir, "expected.csv"), StatementFile: filepath.Join(dir, "statement.csv")}
			require.NoError(t, sample.Run(context.Background(), env), "Go sample %s %s", sample.API, sample.Operation)
		}
	})

	t.Run("curl", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl is not installed")
		}
		ids := newDocsIDs(t, s, ten, hooks.URL+"/curl")
		token := s.token(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
		for _, a := range []string{"reconciliation", "parsing"} {
			samples := docsSamples(t, a)
			// Deletions last: the other samples read what they delete.
			ops := make([]string, 0, len(samples))
			for op := range samples {
				ops = append(ops, op)
			}
			slicesSortDeletionsLast(ops)
			for _, op := range ops {
				for _, sample := range samples[op] {
					if sample.Label != "curl" {
						continue
					}
					cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", sample.Code)
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "BASE_URL="+s.ReconURL, "CLIENT_ID="+ten.ClientID, "CLIENT_SECRET="+ten.ClientSecret,
						"TOKEN="+token, "PARSE_URL="+s.ParseURL, "API_KEY="+ten.APIKey, "JOB_ID="+ids.jobFor(a, op),
						"WEBHOOK_ID="+ids.webhook, "HOOK_URL="+hooks.URL+"/curl-sample")
					out, err := cmd.CombinedOutput()
					require.NoError(t, err, "curl sample %s %s:\n%s\n%s", a, op, sample.Code, out)
				}
			}
		}
	})
}

// slicesSortDeletionsLast sorts operation ids by name with the deletions at the end.
func slicesSortDeletionsLast(ops []string) {
	key := func(op string) string {
		if strings.HasPrefix(op, "delete") {
			return "~" + op
		}
		return op
	}
	for i := range ops {
		for j := i + 1; j < len(ops); j++ {
			if key(ops[j]) < key(ops[i]) {
				ops[i], ops[j] = ops[j], ops[i]
			}
		}
	}
}
