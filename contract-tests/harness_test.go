// Package contracttests drives a real statementd binary over HTTP with the generated Go SDK and
// checks every response it receives, errors included, against the OpenAPI specs with kin-openapi.
// These tests are black-box: they know the server only through its command line and the specs.
package contracttests

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// statementdBin is the binary under test, built once per test run by TestMain.
var statementdBin string

func TestMain(m *testing.M) {
	// The HTML docs page is text; kin-openapi has no decoder for text/html of its own.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	// Nor for XLSX workbooks, a binary string to the spec.
	openapi3filter.RegisterBodyDecoder("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", openapi3filter.FileBodyDecoder)
	// Amounts keep the decimals they were sent with (1250.50), so tests can check the wire format.
	decimal.TrimTrailingZeros = false
	dir, err := os.MkdirTemp("", "statementd-contract-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	statementdBin = filepath.Join(dir, "statementd")
	build := exec.Command("go", "build", "-o", statementdBin, "../cmd/statementd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building statementd:", err)
		os.Exit(1)
	}
	code := pgtest.Run(m)
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// server is one running statementd process.
type server struct {
	ReconURL, SandboxURL, ParseURL, OpsURL, DashboardURL string
	DatabaseURL                                          string
	// DataDir is the server's data dir, for `statementd admin` to share its secret key.
	DataDir string
	// HTTP reaches the listeners: http.DefaultClient, or with STATEMENTD_TLS_CERT a client that
	// trusts that certificate.
	HTTP *http.Client

	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan error
	// killed is set by kill: the process ended by SIGKILL on purpose.
	killed atomic.Bool

	// secrets are the credentials issued to the tests, none of which may appear in logs.
	secretsMu sync.Mutex
	secrets   []string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// nextPort hands out the ports of freeAddr. They lie below the kernel's ephemeral range
// (32768-60999 on Linux), so that no outgoing connection of a parallel test (to PostgreSQL, to a
// listener) takes a port between freeAddr finding it free and statementd binding it, and the
// counter never gives one port twice. The start depends on the process id, so that test
// binaries running side by side start far apart.
var nextPort atomic.Int32

func init() { nextPort.Store(int32(20000 + (os.Getpid()%100)*100)) }

// freeAddr returns a loopback address with a port that was free a moment ago and that no other
// test of this process is given.
func freeAddr(t testing.TB) string {
	t.Helper()
	for range 1000 {
		port := nextPort.Add(1)
		if port >= 32768 {
			nextPort.Store(20000)
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken by another process
		}
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return addr
	}
	t.Fatal("no free port below 32768")
	return ""
}

// startServer runs `statementd serve` on a fresh database and free ports, waits until every
// listener is ready, and on cleanup sends SIGTERM and requires a clean exit. extraEnv entries
// (KEY=VALUE) are added to the environment; one that sets DATABASE_URL makes the server use that
// database instead of a fresh test database, and DATABASE_URL= (empty) its embedded cluster.
func startServer(t testing.TB, extraEnv ...string) *server {
	t.Helper()
	s := &server{logs: &lockedBuffer{}, done: make(chan error, 1)}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	useTestDB, worker := true, false
	for _, e := range extraEnv {
		if url, ok := strings.CutPrefix(e, "DATABASE_URL="); ok {
			useTestDB, s.DatabaseURL = false, url
		}
		if e == "STATEMENTD_ROLE=worker" {
			worker = true // a worker serves the operator listener only
		}
	}
	if useTestDB {
		_, s.DatabaseURL = pgtest.NewURL(t)
		env = append(env, "DATABASE_URL="+s.DatabaseURL)
	}
	addrs := map[string]string{}
	for _, name := range []string{"RECON", "RECON_SANDBOX", "PARSE", "OPS", "DASHBOARD"} {
		addrs[name] = freeAddr(t)
		env = append(env, "STATEMENTD_"+name+"_ADDR="+addrs[name])
	}
	s.DataDir = t.TempDir()
	env = append(env, "STATEMENTD_DATA_DIR="+s.DataDir, "STATEMENTD_SHUTDOWN_TIMEOUT=10s")
	if os.Getenv("BENCH_PROFILE_DIR") != "" {
		env = append(env, "STATEMENTD_PPROF=true") // benchmarks save the server's profiles
	}
	env = append(env, extraEnv...)
	for _, e := range extraEnv {
		if a, ok := strings.CutPrefix(e, "STATEMENTD_OPS_ADDR="); ok {
			addrs["OPS"] = strings.Replace(a, "0.0.0.0:", "127.0.0.1:", 1) // reached from here
		}
	}
	scheme := "http://"
	s.HTTP = http.DefaultClient
	for _, e := range extraEnv {
		if certFile, ok := strings.CutPrefix(e, "STATEMENTD_TLS_CERT="); ok {
			pem, err := os.ReadFile(certFile)
			require.NoError(t, err)
			pool := x509.NewCertPool()
			require.True(t, pool.AppendCertsFromPEM(pem), "STATEMENTD_TLS_CERT holds no certificate")
			scheme = "https://"
			s.HTTP = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		}
	}
	s.ReconURL, s.SandboxURL = scheme+addrs["RECON"], scheme+addrs["RECON_SANDBOX"]
	s.ParseURL, s.OpsURL = scheme+addrs["PARSE"], scheme+addrs["OPS"]
	s.DashboardURL = scheme + addrs["DASHBOARD"]

	s.cmd = exec.Command(statementdBin, "serve")
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	require.NoError(t, s.cmd.Start())
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case err := <-s.done:
			if err != nil && !s.killed.Load() && !t.Failed() {
				t.Errorf("statementd did not exit cleanly after SIGTERM: %v\n%s", err, s.logs.String())
			}
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("statementd did not stop within 30 s of SIGTERM\n%s", s.logs.String())
		}
		if t.Failed() {
			t.Logf("statementd log:\n%s", s.logs.String())
		}
	})
	bases := []string{s.ReconURL, s.SandboxURL, s.ParseURL, s.OpsURL, s.DashboardURL}
	if worker {
		bases = []string{s.OpsURL}
	}
	for _, base := range bases {
		s.waitReady(t, base)
	}
	return s
}

func (s *server) waitReady(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err // let the cleanup see the exit rather than wait for one
			t.Fatalf("statementd exited before it was ready: %v\n%s", err, s.logs.String())
		default:
		}
		resp, err := s.HTTP.Get(base + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s/readyz did not answer 200 within 60 s\n%s", base, s.logs.String())
}

// embeddedDataDir returns a data dir for a server on its embedded cluster (DATABASE_URL=), removed
// when the test ends. The postgres user must be able to reach it, so it is not under t.TempDir
// (0700).
func embeddedDataDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "statementd-embedded-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// waitLog waits up to 10 s until the log holds text times times: a request's line is written
// after its answer is sent.
func (s *server) waitLog(t testing.TB, text string, times int) {
	t.Helper()
	s.waitLogWithin(t, text, times, 10*time.Second)
}

// waitLogWithin is waitLog for something that takes longer, such as a database restarting under
// load.
func (s *server) waitLogWithin(t testing.TB, text string, times int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for strings.Count(s.logs.String(), text) < times {
		if time.Now().After(deadline) {
			t.Fatalf("the log holds %q fewer than %d times after %s", text, times, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the exit, returning its error.
func (s *server) stop(t testing.TB) error {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-s.done:
		s.done <- err // let the cleanup see it too
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("statementd did not stop within 30 s of SIGTERM")
		return nil
	}
}

// kill ends the process with SIGKILL, as a crash or the OOM killer would, and waits for it.
func (s *server) kill(t testing.TB) {
	t.Helper()
	s.killed.Store(true)
	require.NoError(t, s.cmd.Process.Kill())
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(30 * time.Second):
		t.Fatalf("statementd did not die within 30 s of SIGKILL")
	}
}

// api is one of the two specs, with a router to find a response's operation.
type api struct {
	name   string
	spec   *openapi3.T
	router routers.Router
	// errorSchema is the schema of the API's error body, for answers to paths the spec lacks.
	errorSchema *openapi3.Schema
}

func loadAPI(t testing.TB, name string, get func() (*openapi3.T, error), errorSchema string) *api {
	t.Helper()
	spec, err := get()
	require.NoError(t, err)
	spec.Servers = nil
	router, err := gorillamux.NewRouter(spec)
	require.NoError(t, err)
	ref, ok := spec.Components.Schemas[errorSchema]
	require.True(t, ok, "schema %s in the %s spec", errorSchema, name)
	return &api{name: name, spec: spec, router: router, errorSchema: ref.Value}
}

var (
	reconOnce, parseOnce sync.Once
	reconSpec, parseSpec *api
)

func recon(t testing.TB) *api {
	reconOnce.Do(func() { reconSpec = loadAPI(t, "reconciliation", reconapi.GetSpec, "Error") })
	return reconSpec
}

func parse(t testing.TB) *api {
	parseOnce.Do(func() { parseSpec = loadAPI(t, "parsing", parseapi.GetSpec, "ErrorEnvelope") })
	return parseSpec
}

// validatingTransport checks every response against the API's spec, with every status the
// operation can answer declared (IncludeResponseStatus). An answer to a path or method the spec
// does not have must still be the API's error body. Violations fail the test.
type validatingTransport struct {
	t   testing.TB
	api *api
	// base makes the requests; http.DefaultTransport when nil.
	base http.RoundTripper
}

// client returns an HTTP client whose responses are all validated against a's spec.
func (a *api) client(t testing.TB) *http.Client {
	return &http.Client{Transport: validatingTransport{t: t, api: a}, Timeout: 30 * time.Second}
}

func (v validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := v.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := v.api.validate(req, resp, body); err != nil {
		v.t.Errorf("%s %s -> %d does not match the %s spec: %v\nbody: %s", req.Method, req.URL.Path, resp.StatusCode, v.api.name, err, truncate(body))
	}
	return resp, nil
}

func (a *api) validate(req *http.Request, resp *http.Response, body []byte) error {
	if resp.Header.Get("X-Request-Id") == "" {
		return fmt.Errorf("no X-Request-Id header")
	}
	route, params, err := a.router.FindRoute(req)
	if err != nil {
		// No operation: the answer must be the API's error body, as JSON.
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return fmt.Errorf("content type %q for an unknown route", resp.Header.Get("Content-Type"))
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return fmt.Errorf("error body is not JSON: %w", err)
		}
		return a.errorSchema.VisitJSON(v)
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	})
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}
