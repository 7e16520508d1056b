package contracttests

import (
	"context"
	"database/sql"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// adminURL returns the URL of the maintenance database on the server of databaseURL.
func adminURL(t *testing.T, databaseURL string) (admin, name string) {
	t.Helper()
	u, err := url.Parse(databaseURL)
	require.NoError(t, err)
	name = strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	return u.String(), name
}

// TestReadinessFollowsTheDatabase cuts statementd off from its database and requires 503 in each
// API's body (valid against the spec) while the outage lasts, and 200 again once it ends.
func TestReadinessFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()
	adminDSN, name := adminURL(t, s.DatabaseURL)
	admin, err := sql.Open("pgx", adminDSN)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() }) // registered first, so it runs after the re-enabling below
	setConnections := func(allow bool) {
		_, err := admin.ExecContext(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH ALLOW_CONNECTIONS "+map[bool]string{true: "true", false: "false"}[allow])
		require.NoError(t, err)
		if !allow {
			_, err = admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name)
			require.NoError(t, err)
		}
	}
	setConnections(false)
	t.Cleanup(func() { setConnections(true) })

	rc := reconClient(t, s.ReconURL)
	ready, err := rc.GetReadinessWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, ready.StatusCode())
	require.Equal(t, reconclient.DatabaseStatusUnreachable, ready.JSON503.Database)
	require.NotEmpty(t, ready.HTTPResponse.Header.Get("Retry-After"))

	pc := parseClient(t, s.ParseURL)
	pready, err := pc.GetReadinessWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, pready.StatusCode())
	require.False(t, pready.JSON503.Ok)
	require.Equal(t, parseclient.DatabaseStatusUnreachable, pready.JSON503.Data.Database)

	// Liveness does not depend on the database.
	health, err := rc.GetHealthWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, health.StatusCode())

	setConnections(true)
	require.Eventually(t, func() bool {
		r, err := rc.GetReadinessWithResponse(ctx)
		return err == nil && r.StatusCode() == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond, "readiness recovers when the database is back")
}

// TestEmbeddedDefault is the `make run` promise: with no DATABASE_URL, statementd starts its own
// PostgreSQL cluster in the data dir, migrates it and serves every listener; SIGTERM stops both.
func TestEmbeddedDefault(t *testing.T) {
	t.Parallel()
	dataDir := embeddedDataDir(t)

	s := startServer(t, "DATABASE_URL=", "STATEMENTD_DATA_DIR="+dataDir)
	for _, base := range []string{s.ReconURL, s.SandboxURL, s.ParseURL, s.OpsURL} {
		resp, err := http.Get(base + "/readyz")
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, base)
	}
	require.FileExists(t, filepath.Join(dataDir, "pgdata", "PG_VERSION"))
	require.Contains(t, s.logs.String(), "using embedded PostgreSQL", "the log says which database is used")

	// The new database comes with a demo account whose credentials are printed once, as the
	// environment statementctl and the SDK examples read, and work.
	demo := map[string]string{}
	for _, m := range regexp.MustCompile(`export (STATEMENT_[A-Z_]+)=(\S+)`).FindAllStringSubmatch(s.logs.String(), -1) {
		demo[m[1]] = m[2]
	}
	require.Equal(t, s.ReconURL, demo["STATEMENT_BASE_URL"])
	require.Equal(t, s.ParseURL, demo["STATEMENT_PARSE_BASE_URL"])
	ctx := context.Background()
	rc := reconclient.New(demo["STATEMENT_BASE_URL"], demo["STATEMENT_CLIENT_ID"], demo["STATEMENT_CLIENT_SECRET"],
		reconclient.WithHTTPClient(recon(t).client(t)))
	_, err := rc.GetLimits(ctx)
	require.NoError(t, err, "the demo API client gets a token and reads its limits")
	pc := parseclient.New(demo["STATEMENT_PARSE_BASE_URL"], demo["STATEMENT_API_KEY"], parseclient.WithHTTPClient(parse(t).client(t)))
	_, err = pc.GetUsage(ctx)
	require.NoError(t, err, "the demo API key reads the usage")

	// And an owner for the dashboard, with a link that opens the set-password form.
	link := regexp.MustCompile(`(http://\S+/set-password/\S+)`).FindStringSubmatch(s.logs.String())
	require.NotNil(t, link, "the demo owner's set-password link is printed")
	require.True(t, strings.HasPrefix(link[1], s.DashboardURL), link[1])
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	resp, err := (&http.Client{Jar: jar}).Get(link[1])
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Contains(t, string(page), `action="/set-password"`, "the link opens the form")
	require.Contains(t, string(page), "demo@example.com", "")

	require.NoError(t, s.stop(t), "statementd exits 0 on SIGTERM")
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
		return os.IsNotExist(err)
	}, 30*time.Second, 100*time.Millisecond, "the embedded cluster stops with statementd")

	again := startServer(t, "DATABASE_URL=", "STATEMENTD_DATA_DIR="+dataDir)
	require.NotContains(t, again.logs.String(), "STATEMENT_API_KEY", "the credentials are shown only when the database is created")
	require.NoError(t, again.stop(t))
}

// TestMigrateCommand runs `statementd migrate` on an empty database and requires the schema.
func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	_, dbURL := pgtest.NewURL(t)
	adminDSN, _ := adminURL(t, dbURL)
	admin, err := sql.Open("pgx", adminDSN)
	require.NoError(t, err)
	defer admin.Close()
	name := "migrate_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	_, err = admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	u.Path = "/" + name

	for range 2 { // the second run finds nothing to do and succeeds
		cmd := exec.Command(statementdBin, "migrate", "--database-url="+u.String())
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	db, err := sql.Open("pgx", u.String())
	require.NoError(t, err)
	defer db.Close()
	var exists bool
	require.NoError(t, db.QueryRow(`SELECT to_regclass('public.accounts') IS NOT NULL`).Scan(&exists))
	require.True(t, exists, "the accounts table exists after migrate")
}

// TestServeRefusesBadSettings requires a clear error and a non-zero exit for settings that
// cannot work, before anything is served.
func TestServeRefusesBadSettings(t *testing.T) {
	t.Parallel()
	_, dbURL := pgtest.NewURL(t)
	busy := freeAddr(t)
	holder, err := net.Listen("tcp", busy)
	require.NoError(t, err)
	defer holder.Close()

	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{name: "an unknown role", args: []string{"--role=boss"}, want: "must be all, api or worker"},
		{name: "a bad upload limit in the environment", env: []string{"STATEMENTD_MAX_UPLOAD_BYTES=lots"}, want: "STATEMENTD_MAX_UPLOAD_BYTES"},
		{name: "an address already in use", args: []string{"--parse-addr=" + busy}, want: "address already in use"},
		{name: "an unreachable database", args: []string{"--database-url=postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"}, want: "127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--database-url=" + dbURL,
				"--recon-addr=127.0.0.1:0", "--recon-sandbox-addr=127.0.0.1:0", "--parse-addr=127.0.0.1:0", "--ops-addr=127.0.0.1:0"}, tt.args...)
			cmd := exec.Command(statementdBin, args...)
			// A data dir of its own: serve writes its generated secret key there.
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "STATEMENTD_DATA_DIR=" + t.TempDir()}, tt.env...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				require.Error(t, err, "statementd must exit non-zero")
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("statementd kept running with a bad setting")
			}
			require.Contains(t, out.String(), tt.want)
		})
	}
}

// TestShutdownFinishesInFlightRequests sends SIGTERM while an upload is half sent: the request
// still gets its answer (202, the job accepted), new connections are refused, and statementd
// exits 0.
func TestShutdownFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "A")
	body, contentType := halfSentUpload(t)
	req, err := http.NewRequest(http.MethodPost, s.ParseURL+"/api/v1/jobs", body.reader)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+ten.APIKey)

	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := parse(t).client(t).Do(req)
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
			answered <- nil
			return
		}
		answered <- resp
	}()
	<-body.firstHalfRead // the client has sent half the body
	// The half sent may still sit in socket buffers; give the server the moment it needs to take
	// the request in hand (headers read, credentials checked, body being read). A request the
	// server has not yet read is not in flight, and a shutdown may rightly refuse it.
	time.Sleep(200 * time.Millisecond)

	stopped := make(chan error, 1)
	go func() { stopped <- s.stop(t) }()
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(s.ParseURL, "http://"), 100*time.Millisecond)
		if err != nil {
			return true
		}
		// An accepted connection that never sends a request would hold up the shutdown.
		_ = conn.Close()
		return false
	}, 10*time.Second, 20*time.Millisecond, "new connections are refused once shutdown starts")

	body.sendRest()
	resp := <-answered
	require.NotNil(t, resp)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "the in-flight upload was accepted")
	require.NoError(t, <-stopped, "statementd exits 0 after finishing the request")
}

// halfSentBody is a request body whose second half is held back until sendRest.
type halfSentBody struct {
	reader        io.Reader
	firstHalfRead chan struct{}
	sendRest      func()
}

func halfSentUpload(t *testing.T) (*halfSentBody, string) {
	t.Helper()
	var buf strings.Builder
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", "statement.csv")
	require.NoError(t, err)
	_, _ = part.Write([]byte(strings.Repeat("2026-01-02,10.00,INV-1\n", 2000)))
	require.NoError(t, w.Close())
	full := buf.String()
	pr, pw := io.Pipe()
	h := &halfSentBody{reader: pr, firstHalfRead: make(chan struct{})}
	release := make(chan struct{})
	h.sendRest = func() { close(release) }
	go func() {
		_, _ = io.WriteString(pw, full[:len(full)/2]) // returns once the server has read it
		close(h.firstHalfRead)
		<-release
		_, _ = io.WriteString(pw, full[len(full)/2:])
		_ = pw.Close()
	}()
	return h, w.FormDataContentType()
}
