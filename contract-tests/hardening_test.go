package contracttests

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseclient"
	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// The S series from S4 on (RELIABILITY.md): findings of an independent security probe (issue 23),
// each a test.

// TestOperatorListenerServesNoProfilesUnlessAsked (S4): the operator listener asks no
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

// TestSecretsFromFiles (S5): the database URL and the secret key can be given as files, so that
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

// TestSecurityHeaders (S6): every answer of both APIs says nosniff; every one but the published
// spec and docs says no-store, account data or not, success or error; the docs page forbids
// framing in a header, where frame-ancestors works.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "Headers")
	cases := []struct {
		name, base, path, auth string
		status                 int
		noStore                bool
	}{
		{"recon limits", s.ReconURL, "/api/v1/limits", "", http.StatusUnauthorized, true},
		{"recon unknown route", s.ReconURL, "/api/v1/nothing", "", http.StatusNotFound, true},
		{"recon spec", s.ReconURL, "/api/v1/openapi.yaml", "", http.StatusOK, false},
		{"recon docs", s.ReconURL, "/docs", "", http.StatusOK, false},
		{"recon health", s.ReconURL, "/healthz", "", http.StatusOK, true},
		{"parse status", s.ParseURL, "/api/v1/status", "Bearer " + ten.APIKey, http.StatusOK, true},
		{"parse jobs", s.ParseURL, "/api/v1/jobs", "Bearer " + ten.APIKey, http.StatusOK, true},
		{"parse bad key", s.ParseURL, "/api/v1/jobs", "Bearer smk_live_nothing", http.StatusUnauthorized, true},
		{"parse spec", s.ParseURL, "/api/v1/openapi.yaml", "", http.StatusOK, false},
		{"parse docs", s.ParseURL, "/docs", "", http.StatusOK, false},
	}
	for _, tc := range cases {
		req, err := http.NewRequest(http.MethodGet, tc.base+tc.path, nil)
		require.NoError(t, err)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, tc.name)
		_ = resp.Body.Close()
		require.Equal(t, tc.status, resp.StatusCode, tc.name)
		require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), tc.name)
		if tc.noStore {
			require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), tc.name)
		} else {
			require.Empty(t, resp.Header.Get("Cache-Control"), tc.name)
		}
		if strings.HasSuffix(tc.path, "/docs") {
			csp := resp.Header.Get("Content-Security-Policy")
			require.Contains(t, csp, "frame-ancestors 'none'", tc.name)
			require.Contains(t, csp, "default-src 'none'", tc.name)
			require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), tc.name)
		}
	}
}

// TestAClientCannotBeLockedOutByWhoeverKnowsItsID (S7): ten wrong secrets for a client_id
// from one address refuse that client there, even with the right secret, in both
// environments; its owner, from another address, still gets tokens.
func TestAClientCannotBeLockedOutByWhoeverKnowsItsID(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Targeted")
	clientID, secret := s.newClient(t, acct)
	attacker, owner := fromAddress(t, recon(t), "127.0.0.2"), fromAddress(t, recon(t), "127.0.0.3")
	awayFromMinuteEnd(10 * time.Second)
	for i := range 10 {
		got := attacker(tokenRequest(t, s.ReconURL, jsonBody, clientID, "cs_"+randomBase62(t, 43)))
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, "attempt %d: %s", i+1, got.body)
	}
	for _, base := range []string{s.ReconURL, s.SandboxURL} {
		got := attacker(tokenRequest(t, base, httpBasic, clientID, secret))
		require.Equal(t, http.StatusTooManyRequests, got.StatusCode, "%s: the guessing address is refused, right secret or not: %s", base, got.body)
		require.Contains(t, string(got.body), "for this client from this address")
		got = owner(tokenRequest(t, base, httpBasic, clientID, secret))
		require.Equal(t, http.StatusOK, got.StatusCode, "%s: the owner elsewhere is not locked out: %s", base, got.body)
	}
}

// TestWebhookAllowListNamesPorts (S8): an allow-list entry opens the port it names, or 80 and
// 443, never the operator listener or another service of an allowed host, however its
// address is written.
func TestWebhookAllowListNamesPorts(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, http.StatusNoContent)
	u, err := url.Parse(rcv.URL)
	require.NoError(t, err)
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.1:"+u.Port())
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: s.newTenant(t, "Ports").APIKey}

	ok := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/hook"})
	require.Equal(t, http.StatusCreated, ok.StatusCode(), string(ok.Body))
	res := c.test(t, parseclient.TestWebhookJSONRequestBody{})
	require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
	require.True(t, res.JSON200.Data.Deliveries[0].Success, "the named port is reachable")

	ops, err := url.Parse(s.OpsURL)
	require.NoError(t, err)
	for _, target := range []string{
		"http://127.0.0.1:" + ops.Port() + "/debug/pprof/",
		"http://[::ffff:127.0.0.1]:" + ops.Port() + "/debug/pprof/",
		"http://127.0.0.1/",
		"http://127.0.0.2:" + u.Port() + "/",
	} {
		r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: target})
		require.Equal(t, http.StatusBadRequest, r.StatusCode(), "%s: %s", target, r.Body)
		require.Contains(t, string(r.Body), "is not allowed", target)
	}
}

// TestWebhookTestsTellLittleAndAreFew (S9): a test delivery's failure says only "Delivery
// failed (status N)." or "Could not connect.", so a closed port and a silent one look alike;
// an account may send 10 test requests a minute.
func TestWebhookTestsTellLittleAndAreFew(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	c := webhookCaller{pc: parseClient(t, s.ParseURL), key: s.newTenant(t, "Probe").APIKey}
	failing := newReceiver(t, http.StatusInternalServerError)
	closed := "http://" + freeAddr(t) + "/hook"     // nothing listens there
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, then closes without an answer
	require.NoError(t, err)
	t.Cleanup(func() { _ = silent.Close() })
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
	want := map[string]string{
		failing.URL + "/hook": "Delivery failed (status 500).",
		closed:                "Could not connect.",
		"http://" + silent.Addr().String() + "/hook": "Could not connect.",
	}
	for target := range want {
		r := c.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: target})
		require.Equal(t, http.StatusCreated, r.StatusCode(), string(r.Body))
	}
	awayFromMinuteEnd(15 * time.Second)
	res := c.test(t, parseclient.TestWebhookJSONRequestBody{})
	require.Equal(t, http.StatusOK, res.StatusCode(), string(res.Body))
	require.Len(t, res.JSON200.Data.Deliveries, len(want))
	for _, d := range res.JSON200.Data.Deliveries {
		require.False(t, d.Success)
		require.NotNil(t, d.Error)
		require.Equal(t, want[d.Url], *d.Error, d.Url)
	}
	for i := 2; i <= 10; i++ {
		r := c.test(t, parseclient.TestWebhookJSONRequestBody{})
		require.Equal(t, http.StatusOK, r.StatusCode(), "test request %d: %s", i, r.Body)
	}
	r := c.test(t, parseclient.TestWebhookJSONRequestBody{})
	require.Equal(t, http.StatusTooManyRequests, r.StatusCode(), string(r.Body))
	require.Contains(t, string(r.Body), "At most 10 test requests a minute")
	require.NotEmpty(t, r.HTTPResponse.Header.Get("Retry-After"))
}

// TestMessagesSayWhatIsWrong (S10): a credential of another scheme is not reported as a missing
// header, and a file name with an unescaped quote is not a part "without a name". (The
// validator's messages in words are checked by TestRequestsThatBreakTheSpec.)
func TestMessagesSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, path := range []string{s.ReconURL + "/api/v1/limits", s.ParseURL + "/api/v1/jobs"} {
		for header, want := range map[string]string{
			"":                   "Missing Authorization header",
			"Bearer\ttok":        "not a Bearer credential",
			"Basic dXNlcjpwdw==": "not a Bearer credential",
			"smk_live_abc":       "not a Bearer credential",
		} {
			req, err := http.NewRequest(http.MethodGet, path, nil)
			require.NoError(t, err)
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %q", path, header)
			require.Contains(t, string(body), want, "%s %q", path, header)
		}
	}

	ten := s.newTenant(t, "Quotes")
	body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"b.csv\"\r\nContent-Type: text/csv\r\n\r\nDate,Amount\r\n\r\n--b--\r\n"
	req, err := http.NewRequest(http.MethodPost, s.ParseURL+"/api/v1/jobs", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	req.Header.Set("Authorization", "Bearer "+ten.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(raw))
	require.Contains(t, string(raw), "Content-Disposition header is malformed")
}

// TestFileNamesShowAsTheyAre (S11): a file name's bidirectional controls are dropped, so
// "\u202egpj.csv" is listed as what it is, a .csv file, not as "csv.jpg".
func TestFileNamesShowAsTheyAre(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ten := s.newTenant(t, "Bidi")
	pc := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	require.Equal(t, "gpj.csv", pc.create(t, "\u202egpj.csv", simpleCSV(2)).FileName)
	rc := s.reconCaller(t, s.ReconURL, ten.ClientID, ten.ClientSecret)
	ct, body := jobUpload(t, "bank\u202e.csv", bankCSV(reconBankLines), "\u2066exp\u2069ected.csv", []byte(reconExpectedCSV))
	job := rc.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, job.StatusCode(), string(job.Body))
	got := rc.wait(t, job.JSON202.JobId)
	require.Equal(t, "bank.csv", got.BankFile)
	require.Equal(t, "expected.csv", got.ExpectedFile)
}
