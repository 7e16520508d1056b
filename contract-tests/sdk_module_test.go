package contracttests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// The Go SDK is its own module (gen/sdk): these tests check what an integrator gets from it.

// sdkDir is the SDK module's directory.
func sdkDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "gen", "sdk"))
	require.NoError(t, err)
	return dir
}

// TestSDKHasAOneCallFormOfEveryOperation lists the operations of both specs and requires a
// method of the one-call Client for each (named after the operationId), returning an error as
// its last result. The webhook a receiver gets (receiveWebhookEvent) is verified and decoded by
// VerifyWebhook instead.
func TestSDKHasAOneCallFormOfEveryOperation(t *testing.T) {
	t.Parallel()
	receivers := map[string]any{"receiveWebhookEvent": parseclient.VerifyWebhook}
	errType := reflect.TypeFor[error]()
	for _, tc := range []struct {
		api    *api
		client reflect.Type
	}{
		{recon(t), reflect.TypeFor[*reconclient.Client]()},
		{parse(t), reflect.TypeFor[*parseclient.Client]()},
	} {
		ops := 0
		for _, item := range tc.api.spec.Paths.Map() {
			for _, op := range item.Operations() {
				ops++
				if fn, ok := receivers[op.OperationID]; ok {
					require.NotNil(t, fn)
					continue
				}
				name := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:]
				m, ok := tc.client.MethodByName(name)
				require.True(t, ok, "the %s API's %s has a one-call method %s.%s", tc.api.name, op.OperationID, tc.client, name)
				require.Equal(t, reflect.TypeFor[context.Context](), m.Type.In(1), "%s takes a context first", name)
				require.Equal(t, errType, m.Type.Out(m.Type.NumOut()-1), "%s returns an error last", name)
			}
		}
		require.Positive(t, ops)
	}
}

// TestSDKModuleIsLight builds a fresh module that imports both clients, as an integrator's
// would, and requires at most 10 modules in its graph (`go list -m all`): the SDK brings its
// few dependencies and none of the server's. (The SDK inside the server's module gave 149.)
func TestSDKModuleIsLight(t *testing.T) {
	t.Parallel()
	consumer := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(consumer, name), []byte(text), 0o600))
	}
	write("go.mod", "module example.com/integrator\n\ngo 1.24.0\n\nrequire github.com/statementmatch/service/gen/sdk v0.0.0\n\n"+
		"replace github.com/statementmatch/service/gen/sdk => "+sdkDir(t)+"\n")
	write("main.go", `package main

import (
	"context"
	"fmt"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

func main() {
	usage, err := parseclient.New("http://localhost:8082", "key").GetUsage(context.Background())
	fmt.Println(usage, err)
	limits, err := reconclient.New("http://localhost:8080", "id", "secret").GetLimits(context.Background())
	fmt.Println(limits, err)
}
`)
	run := func(args ...string) string {
		cmd := exec.Command("go", args...)
		cmd.Dir = consumer
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	run("mod", "tidy")
	run("build", "./...")
	modules := strings.Fields(run("list", "-m", "-f", "{{.Path}}", "all"))
	t.Logf("an integrator's module graph: %s", strings.Join(modules, " "))
	require.LessOrEqual(t, len(modules), 10, "modules in the graph of a module importing both clients")
	for _, m := range modules {
		for _, server := range []string{"labstack/echo", "jackc/pgx", "riverqueue", "pdfcpu", "oapi-codegen", "stretchr/testify"} {
			require.NotContains(t, m, server)
		}
	}
}

// TestSDKTestsAndExamplesPassAgainstAServer runs the SDK module's own tests and its examples,
// the ones with // Output: lines compared, against a server and a fresh account.
func TestSDKTestsAndExamplesPassAgainstAServer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = sdkDir(t)
	cmd.Env = append(os.Environ(), "GOWORK=off",
		"STATEMENT_BASE_URL="+s.ReconURL, "STATEMENT_CLIENT_ID="+ten.ClientID, "STATEMENT_CLIENT_SECRET="+ten.ClientSecret,
		"STATEMENT_PARSE_BASE_URL="+s.ParseURL, "STATEMENT_API_KEY="+ten.APIKey)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test in gen/sdk: %s", out)
	t.Logf("%s", out)
}
