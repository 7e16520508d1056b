package contracttests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tsDir holds the TypeScript flows, their pinned npm tooling (package.json, package-lock.json)
// and, gitignored, node_modules/, generated/ (the types openapi-typescript writes from the
// specs, as .ts so that tsc checks them in full while it skips the libraries' .d.ts) and dist/
// (what tsc compiles src/ and generated/ to). By hand: cd contract-tests/typescript && npm ci &&
// npm run build, then node dist/src/recon-flow.js with the environment the flow's comment lists.
const tsDir = "typescript"

// tsInstalledStamp is written into node_modules/ after a successful `npm ci`; node_modules is
// reinstalled when the stamp is missing (a clean clone, an interrupted install) or older than
// package.json or package-lock.json.
const tsInstalledStamp = ".statementmatch-npm-ci"

// TestTypeScriptClients proves the specs usable outside Go: it generates a TypeScript client
// from each spec with openapi-typescript, type-checks and compiles the flows of
// contract-tests/typescript/src against the generated types with tsc (a spec change that breaks
// a flow fails here), and runs each flow with node against a live server. A flow exits non-zero
// with a message on any unexpected answer.
func TestTypeScriptClients(t *testing.T) {
	t.Parallel()
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		t.Skip("node and npm are not installed: the TypeScript client flows of contract-tests/typescript " +
			"need Node.js 20 or later and npm on PATH")
	}
	dir, err := filepath.Abs(tsDir)
	require.NoError(t, err)
	requireNodeVersion(t, node, 20)
	npmCI(t, npm, dir)

	// Generate the types afresh from the specs, then type-check and compile the flows.
	start := time.Now()
	for _, sub := range []string{"generated", "dist"} {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, sub)))
	}
	for _, spec := range []string{"reconciliation", "parsing"} {
		runTool(t, dir, 2*time.Minute, nil, node, filepath.Join("node_modules", "openapi-typescript", "bin", "cli.js"),
			filepath.Join("..", "..", "openapi", spec+".yaml"), "--output", filepath.Join("generated", spec+".ts"))
	}
	runTool(t, dir, 2*time.Minute, nil, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json")
	t.Logf("openapi-typescript and tsc took %s", time.Since(start).Round(time.Millisecond))

	s := startServer(t)
	ten := s.newTenant(t, "TS")
	fixtures := t.TempDir()
	writeFixture := func(name string, content []byte) string {
		path := filepath.Join(fixtures, name)
		require.NoError(t, os.WriteFile(path, content, 0o600))
		return path
	}
	flows := []struct {
		name, script string
		env          []string
	}{
		{"reconciliation", "recon-flow.js", []string{
			"RECON_URL=" + s.ReconURL,
			"RECON_CLIENT_ID=" + ten.ClientID,
			"RECON_CLIENT_SECRET=" + ten.ClientSecret,
			"RECON_BANK_FILE=" + writeFixture("bank.csv", bankCSV(reconBankLines)),
			"RECON_EXPECTED_FILE=" + writeFixture("expected.csv", []byte(reconExpectedCSV)),
		}},
		{"parsing", "parse-flow.js", []string{
			"PARSE_URL=" + s.ParseURL,
			"PARSE_API_KEY=" + ten.APIKey,
			"PARSE_STATEMENT_FILE=" + writeFixture("three.csv", simpleCSV(3)),
		}},
	}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			script := filepath.Join("dist", "src", f.script)
			out := runTool(t, dir, 2*time.Minute, f.env, node, script)
			t.Logf("node %s:\n%s", script, out)
		})
	}
}

// requireNodeVersion fails the test when node is older than major, whose fetch, FormData and
// Blob the flows use.
func requireNodeVersion(t *testing.T, node string, major int) {
	t.Helper()
	out, err := exec.Command(node, "--version").Output()
	require.NoError(t, err, "node --version")
	v := strings.TrimSpace(string(out))
	got, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0])
	require.NoError(t, err, "node --version printed %q", v)
	if got < major {
		t.Fatalf("node %s is too old for the TypeScript client flows: Node.js %d or later is needed", v, major)
	}
}

// npmCI installs the pinned tooling with `npm ci` unless node_modules is up to date with
// package.json and package-lock.json.
func npmCI(t *testing.T, npm, dir string) {
	t.Helper()
	stamp := filepath.Join(dir, "node_modules", tsInstalledStamp)
	if st, err := os.Stat(stamp); err == nil {
		fresh := true
		for _, f := range []string{"package.json", "package-lock.json"} {
			fi, err := os.Stat(filepath.Join(dir, f))
			require.NoError(t, err)
			if fi.ModTime().After(st.ModTime()) {
				fresh = false
			}
		}
		if fresh {
			return
		}
	}
	start := time.Now()
	// npm needs the whole environment: HOME for its cache, proxies and registry settings.
	runTool(t, dir, 10*time.Minute, os.Environ(), npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	require.NoError(t, os.WriteFile(stamp, nil, 0o644))
	t.Logf("npm ci in %s took %s", dir, time.Since(start).Round(time.Millisecond))
}

// runTool runs name with args in dir and returns its combined output, failing the test with the
// output when it does not exit 0 within timeout. env is added to PATH and HOME.
func runTool(t *testing.T, dir string, timeout time.Duration, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	command := strings.Join(append([]string{filepath.Base(name)}, args...), " ")
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("not finished after %s: %w", timeout, err)
	}
	if err != nil {
		t.Fatalf("%s (in %s): %v\n%s", command, dir, err, out.String())
	}
	return out.String()
}
