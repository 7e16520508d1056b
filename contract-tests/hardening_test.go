package contracttests

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// The S series: findings of an independent security probe (issue 23), each a test.

// TestOperatorListenerServesNoProfilesUnlessAsked (S1): the operator listener asks no
// credentials, so Go's profiles are off by default, and /debug/pprof/cmdline, which shows the
// command line and any secret on it, is never served.
func TestOperatorListenerServesNoProfilesUnlessAsked(t *testing.T) {
	t.Parallel()
	get := func(t *testing.T, base, path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	t.Run("by default", func(t *testing.T) {
		t.Parallel()
		s := startServer(t)
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/heap", "/debug/pprof/profile?seconds=1"} {
			code, _ := get(t, s.OpsURL, path)
			require.Equal(t, http.StatusNotFound, code, path)
		}
		code, _ := get(t, s.OpsURL, "/healthz")
		require.Equal(t, http.StatusOK, code)
		require.NotContains(t, s.logs.String(), "reachable beyond this machine", "the harness's operator address is loopback")
	})
	t.Run("with STATEMENTD_PPROF=true", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, "STATEMENTD_PPROF=true")
		code, body := get(t, s.OpsURL, "/debug/pprof/")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, "goroutine")
		code, _ = get(t, s.OpsURL, "/debug/pprof/heap?debug=1")
		require.Equal(t, http.StatusOK, code)
		code, body = get(t, s.OpsURL, "/debug/pprof/cmdline")
		require.Equal(t, http.StatusNotFound, code, "the command line is never served")
		require.NotContains(t, body, "serve")
	})
	t.Run("on every interface, it says so", func(t *testing.T) {
		t.Parallel()
		_, port, _ := strings.Cut(freeAddr(t), ":")
		s := startServer(t, "STATEMENTD_OPS_ADDR=0.0.0.0:"+port)
		code, _ := get(t, s.OpsURL, "/healthz")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, s.logs.String(), "the operator listener asks no credentials and is reachable beyond this machine")
	})
}

// TestSecretsFromFiles (S2): the database URL and the secret key can be given as files, so that
// neither is on a command line nor in the environment, and the server runs on them.
func TestSecretsFromFiles(t *testing.T) {
	t.Parallel()
	_, dbURL := pgtest.NewURL(t)
	dir := t.TempDir()
	urlFile, keyFile := filepath.Join(dir, "database-url"), filepath.Join(dir, "secret-key")
	require.NoError(t, os.WriteFile(urlFile, []byte(dbURL+"\n"), 0o600))
	require.NoError(t, os.WriteFile(keyFile, []byte("c2VjcmV0LWtleS1tYXRlcmlhbC0zMi1ieXRlcy4uLi4=\n"), 0o600))

	s := startServer(t, "DATABASE_URL=", "DATABASE_URL_FILE="+urlFile, "STATEMENTD_SECRET_KEY_FILE="+keyFile)
	require.NoDirExists(t, filepath.Join(s.DataDir, "pgdata"), "the file's URL wins over the embedded cluster")
	require.NoFileExists(t, filepath.Join(s.DataDir, "secret.key"), "the key file is used, no key generated")
	s.DatabaseURL = dbURL // for the admin commands below
	acct := s.newAccount(t, "Files")
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	require.Equal(t, 0, c.limits(t).JobsUsed, "the server answers from the database the file names")

	// admin reads the same files.
	cmd := exec.Command(statementdBin, "admin", "account", "list", "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "STATEMENTD_DATA_DIR=" + s.DataDir,
		"DATABASE_URL_FILE=" + urlFile, "STATEMENTD_SECRET_KEY_FILE=" + keyFile}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "Files")
}
