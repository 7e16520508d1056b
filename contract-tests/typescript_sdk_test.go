package contracttests

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/webhook"
	"github.com/statementmatch/service/openapi"
)

// tsSDKDir is the TypeScript SDK package (gen/typescript): its sources, the types generated from
// the specs (src/generated, by `make gen`) and its pinned tooling; node_modules/ and dist/ are
// gitignored.
const tsSDKDir = "../gen/typescript"

// TestTypeScriptSDKPackage builds the TypeScript SDK, runs its unit tests, packs it with `npm pack`, installs the
// tarball offline into a fresh project (openapi-fetch travels bundled in it), type-checks the
// integrator's flows of contract-tests/sdkts against the package's published types, and runs
// them with node against a server: both APIs' flows, exact amounts (a trailing zero, and digits
// past 2^53), errors as APIError, the iterators, and a webhook the service signed.
func TestTypeScriptSDKPackage(t *testing.T) {
	t.Parallel()
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		t.Skip("node and npm are not installed: the TypeScript SDK needs Node.js 20 or later and npm on PATH")
	}
	requireNodeVersion(t, node, 20)
	pkg, err := filepath.Abs(tsSDKDir)
	require.NoError(t, err)
	npmCI(t, npm, pkg)

	require.NoError(t, os.RemoveAll(filepath.Join(pkg, "dist")))
	tsc := filepath.Join(pkg, "node_modules", "typescript", "bin", "tsc")
	runTool(t, pkg, 2*time.Minute, nil, node, tsc, "-p", "tsconfig.json")
	runTool(t, pkg, 2*time.Minute, nil, node, "--test", filepath.Join("dist", "json.test.js"), filepath.Join("dist", "http.test.js"))
	packs := t.TempDir()
	out := runTool(t, pkg, 2*time.Minute, os.Environ(), npm, "pack", "--pack-destination", packs, "--loglevel=error")
	tarball := filepath.Join(packs, strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]))
	require.FileExists(t, tarball)

	consumer := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(consumer, name)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		return path
	}
	write("package.json", []byte(`{"name":"integrator","private":true,"type":"module"}`))
	// Offline: nothing may come from the registry or its cache that the tarball does not hold.
	runTool(t, consumer, 2*time.Minute, append(os.Environ(), "npm_config_cache="+t.TempDir()), npm,
		"install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball)
	flows, err := os.ReadFile(filepath.Join("sdkts", "flows.ts"))
	require.NoError(t, err)
	write("flows.ts", flows)
	for _, f := range openapi.CodeSamples {
		if f.Lang == "typescript" {
			write("samples.ts", f.Source) // the docs pages' TypeScript samples, which flows.ts runs
		}
	}
	tsconfig, err := json.Marshal(map[string]any{
		"compilerOptions": map[string]any{
			"target": "ES2022", "lib": []string{"ES2022", "DOM"}, "module": "NodeNext", "moduleResolution": "NodeNext",
			"strict": true, "outDir": "dist", "skipLibCheck": true, "noEmitOnError": true,
			// Node's types come from the SDK's tooling: the integrator's project installs nothing else.
			"typeRoots": []string{filepath.Join(pkg, "node_modules", "@types")}, "types": []string{"node"},
		},
		"files": []string{"flows.ts"},
	})
	require.NoError(t, err)
	write("tsconfig.json", tsconfig)
	runTool(t, consumer, 2*time.Minute, nil, node, tsc, "-p", "tsconfig.json")

	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten := s.newTenant(t, "TS")
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hooks.Close)
	secret := webhook.NewSecret()
	body := []byte(`{"event":"job.completed","data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"completed","bank_name":"Deutsche Bank","transactions_count":3,"created_at":"2025-04-01T08:15:30Z"},"timestamp":"2025-04-01T08:15:34Z"}`)
	signed, err := webhook.Headers(secret, uuid.New(), time.Now(), body)
	require.NoError(t, err)
	headers := map[string]string{}
	for name := range signed {
		headers[name] = signed.Get(name)
	}
	headersJSON, err := json.Marshal(headers)
	require.NoError(t, err)
	// The docs samples upload these from the working directory, as a reader's would.
	docsFixtures(t, consumer)
	out = runTool(t, consumer, 2*time.Minute, []string{
		"RECON_URL=" + s.ReconURL, "RECON_CLIENT_ID=" + ten.ClientID, "RECON_CLIENT_SECRET=" + ten.ClientSecret,
		"RECON_BANK_FILE=" + write("bank.csv", bankCSV(reconBankLines)),
		"RECON_EXPECTED_FILE=" + write("open invoices.csv", []byte(reconExpectedCSV)),
		"PARSE_URL=" + s.ParseURL, "PARSE_API_KEY=" + ten.APIKey,
		"PARSE_STATEMENT_FILE=" + write("march.csv", []byte("Date,Description,Amount\n"+
			"2024-03-04,SEPA CREDIT ACME GMBH,1250.50\n2024-03-05,CARD PAYMENT,-42.90\n2024-03-06,LARGE TRANSFER,98765432109876543.21\n")),
		"WEBHOOK_SECRET=" + secret, "WEBHOOK_HEADERS=" + string(headersJSON), "WEBHOOK_BODY=" + string(body),
		"HOOK_URL=" + hooks.URL + "/ts",
	}, node, filepath.Join("dist", "flows.js"))
	t.Logf("node dist/flows.js:\n%s", out)
}
