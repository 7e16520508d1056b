package contracttests

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/httpkit/listen/listentest"
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
			require.Contains(t, csp, "script-src 'sha256-", tc.name, "the search script alone, by its hash")
			require.NotRegexp(t, `script-src[^;]*unsafe-inline`, csp, tc.name)
			require.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), tc.name)
		}
	}
}

// TestAClientCannotBeLockedOutByWhoeverKnowsItsID (S7): ten wrong secrets for a client_id
// from one address refuse that client there, even with the right secret, in both
// environments; its owner, from another address, still gets tokens. The refusals are counted in
// the operator listener's metrics.
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

	// Each refusal is counted, by the throttle that refused it, on the operator listener.
	resp, err := http.Get(s.OpsURL + "/metrics")
	require.NoError(t, err)
	metrics, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, want := range []string{
		`statementd_throttle_refusals_total{throttle="token_client_address"} 2`,
		`statementd_throttle_refusals_total{throttle="token_address"} 0`,
		`statementd_throttle_refusals_total{throttle="token_client"} 0`,
	} {
		require.Contains(t, string(metrics), want)
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
// "\u202egpj.csv" is listed as what it is, a .csv file, not as "csv.jpg"; so are a webhook
// description's, and a webhook URL holding them is refused.
func TestFileNamesShowAsTheyAre(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
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

	// A webhook's description is listed without them; a URL holding them is refused, since it
	// would be listed reading as another URL.
	rcv := newReceiver(t, http.StatusNoContent)
	desc := "\u202eERP\u202c import\n"
	hook, err := pc.pc.CreateWebhookWithResponse(t.Context(), nil, parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/hook", Description: &desc},
		bearer(ten.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	s.remember(hook.JSON201.Data.SigningSecret)
	require.Equal(t, "ERP import", *hook.JSON201.Data.Description)
	list, err := pc.pc.ListWebhooksWithResponse(t.Context(), bearer(ten.APIKey))
	require.NoError(t, err)
	require.Equal(t, "ERP import", *list.JSON200.Data.Webhooks[0].Description)
	bad, err := pc.pc.CreateWebhookWithResponse(t.Context(), nil, parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/\u202elmth.kooh"},
		bearer(ten.APIKey))
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, bad.StatusCode(), string(bad.Body))
	require.Contains(t, string(bad.Body), "bidirectional formatting characters")
}

// TestThrottlesCountTheClientBehindATrustedProxy (S12): behind a reverse proxy named in
// STATEMENTD_TRUSTED_PROXIES, the throttles and the access log see the client the proxy
// forwards for (the rightmost X-Forwarded-For address that is not a proxy's), so a client that
// spends its budget does not lock out the others behind the same proxy, and entries the client
// wrote itself are not believed. From any other peer the header is ignored.
func TestThrottlesCountTheClientBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	const proxyIP, directIP = "127.0.0.20", "127.0.0.21"
	s := startServer(t, "STATEMENTD_TRUSTED_PROXIES="+proxyIP+", 10.0.0.0/8")
	acct := s.newAccount(t, "Behind a proxy")
	clientID, secret := s.newClient(t, acct)
	ten := s.newTenant(t, "Parsing behind a proxy")
	proxy, direct := fromAddress(t, recon(t), proxyIP), fromAddress(t, recon(t), directIP)
	forwarded := func(req *http.Request, xff string) *http.Request {
		req.Header.Set("X-Forwarded-For", xff)
		return req
	}
	awayFromMinuteEnd(20 * time.Second)

	// One client behind the proxy guesses; each request names another forged origin to the left
	// of the address the proxy appended (10.1.1.1 stands for a second proxy hop).
	for i := range tokenAddressBudget {
		got := proxy(forwarded(tokenRequest(t, s.ReconURL, jsonBody, "cl_"+randomBase62(t, 20), "cs_"+randomBase62(t, 43)),
			fmt.Sprintf("198.51.100.%d, 203.0.113.66, 10.1.1.1", i)))
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, "guess %d: %s", i+1, got.body)
	}
	got := proxy(forwarded(tokenRequest(t, s.ReconURL, httpBasic, clientID, secret), "198.51.100.250, 203.0.113.66"))
	require.Equal(t, http.StatusTooManyRequests, got.StatusCode, "the guessing client is refused: %s", got.body)
	got = proxy(forwarded(tokenRequest(t, s.ReconURL, httpBasic, clientID, secret), "203.0.113.77"))
	require.Equal(t, http.StatusOK, got.StatusCode, "another client behind the same proxy is not: %s", got.body)

	// A peer that is not a trusted proxy counts as itself, whatever it forwards.
	for i := range tokenAddressBudget {
		got := direct(forwarded(tokenRequest(t, s.ReconURL, jsonBody, "cl_"+randomBase62(t, 20), "cs_"+randomBase62(t, 43)), "203.0.113.88"))
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, "direct guess %d: %s", i+1, got.body)
	}
	got = direct(forwarded(tokenRequest(t, s.ReconURL, httpBasic, clientID, secret), "203.0.113.99"))
	require.Equal(t, http.StatusTooManyRequests, got.StatusCode, "the direct peer's header is ignored: %s", got.body)
	got = proxy(forwarded(tokenRequest(t, s.ReconURL, httpBasic, clientID, secret), "203.0.113.88"))
	require.Equal(t, http.StatusOK, got.StatusCode, "the address the direct peer named was not charged: %s", got.body)

	// The Parsing API's budget for bad keys counts the forwarded client too.
	parseFrom := fromAddress(t, parse(t), proxyIP)
	status := func(key, xff string) answered {
		req, err := http.NewRequest(http.MethodGet, s.ParseURL+"/api/v1/status", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		return parseFrom(forwarded(req, xff))
	}
	for i := range anonymousBudget {
		got := status("smk_live_"+randomBase62(t, 43), "203.0.113.66")
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, "bad key %d: %s", i+1, got.body)
	}
	require.Equal(t, http.StatusTooManyRequests, status("smk_live_"+randomBase62(t, 43), "203.0.113.66").StatusCode)
	require.Equal(t, http.StatusOK, status(ten.APIKey, "203.0.113.77").StatusCode, "another client with a good key")
	require.Equal(t, http.StatusUnauthorized, status("smk_live_"+randomBase62(t, 43), "[2001:db8::7]:4711").StatusCode,
		"another client with a bad key still gets its own answer")

	for _, want := range []string{`"remote_ip":"203.0.113.66"`, `"remote_ip":"203.0.113.77"`, `"remote_ip":"` + directIP + `"`, `"remote_ip":"2001:db8::7"`} {
		s.waitLog(t, want, 1) // the access log names the client
	}
	logs := s.logs.String()
	for _, forged := range []string{`"remote_ip":"198.51.100.`, `"remote_ip":"203.0.113.99"`} {
		require.False(t, strings.Contains(logs, forged), "the access log never believes a forged entry: %s", forged)
	}
}

// TestEveryListenerServesHTTPSAndReloadsOnHangup (S13): with STATEMENTD_TLS_CERT and
// STATEMENTD_TLS_KEY every listener serves HTTPS, TLS 1.2 or later only; SIGHUP reads the pair
// again, so a renewed certificate is served without a restart, and a broken pair is logged while
// the previous one stays in service.
func TestEveryListenerServesHTTPSAndReloadsOnHangup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := listentest.Write(t, dir, "statementd")
	s := startServer(t, "STATEMENTD_TLS_CERT="+first.CertFile, "STATEMENTD_TLS_KEY="+first.KeyFile)
	require.Contains(t, s.logs.String(), "every listener serves HTTPS")

	// serial connects anew to base with roots and returns the serial of the certificate shown.
	serial := func(t *testing.T, base string, cfg *tls.Config) (string, error) {
		t.Helper()
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
		resp, err := client.Get(base + "/healthz")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return resp.TLS.PeerCertificates[0].SerialNumber.String(), nil
	}
	for _, base := range []string{s.ReconURL, s.SandboxURL, s.ParseURL, s.OpsURL} {
		require.True(t, strings.HasPrefix(base, "https://"))
		got, err := serial(t, base, &tls.Config{RootCAs: first.Pool})
		require.NoError(t, err, base)
		require.Equal(t, first.Serial.String(), got, base)
		_, err = serial(t, base, &tls.Config{RootCAs: first.Pool, MaxVersion: tls.VersionTLS11})
		require.Error(t, err, "%s: TLS 1.1 is refused", base)
		resp, err := http.Get("http://" + strings.TrimPrefix(base, "https://") + "/healthz")
		if err == nil {
			resp.Body.Close()
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: plain HTTP is not served", base)
		}
	}
	// The APIs work over it: a token, then an authenticated call.
	acct := s.newAccount(t, "Over TLS")
	clientID, secret := s.newClient(t, acct)
	got := send(t, s.HTTP, tokenRequest(t, s.ReconURL, httpBasic, clientID, secret))
	require.Equal(t, http.StatusOK, got.StatusCode, "%s", got.body)
	require.NoError(t, recon(t).validate(got.Request, got.Response, got.body))

	hangup := func(t *testing.T, logLine string) {
		t.Helper()
		require.NoError(t, s.cmd.Process.Signal(syscall.SIGHUP))
		s.waitLog(t, logLine, 1)
	}
	second := listentest.Write(t, dir, "statementd")
	hangup(t, "SIGHUP: TLS certificate reloaded")
	for _, base := range []string{s.ReconURL, s.ParseURL, s.OpsURL} {
		got, err := serial(t, base, &tls.Config{RootCAs: second.Pool})
		require.NoError(t, err, base)
		require.Equal(t, second.Serial.String(), got, "%s: the renewed certificate is served", base)
	}

	require.NoError(t, os.WriteFile(second.CertFile, []byte("-----BEGIN CERTIFICATE-----\nbroken\n"), 0o600))
	hangup(t, "SIGHUP: the TLS certificate was not reloaded")
	got2, err := serial(t, s.ParseURL, &tls.Config{RootCAs: second.Pool})
	require.NoError(t, err)
	require.Equal(t, second.Serial.String(), got2, "a broken pair leaves the served one in place")
}

// TestOversizedRequestsAreAnsweredInTheAPIsShape (S14): headers over 64 KiB get 431 and a body
// that is not an upload over 1 MiB gets 413, both REQUEST_TOO_LARGE in the API's error body
// (before: Go's plain-text 431, and FILE_TOO_LARGE though no file was sent). What Go's server
// still answers itself, in plain text, is headers past its own 1 MiB limit and a request it
// cannot parse (a control character in a header): no handler sees those.
func TestOversizedRequestsAreAnsweredInTheAPIsShape(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, tc := range []struct {
		a    *api
		base string
	}{{recon(t), s.ReconURL}, {recon(t), s.SandboxURL}, {parse(t), s.ParseURL}} {
		for _, path := range []string{"/api/v1/jobs", "/healthz"} {
			req, err := http.NewRequest(http.MethodGet, tc.base+path, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+strings.Repeat("a", 40<<10))
			req.Header.Set("X-Trace", strings.Repeat("b", 30<<10))
			got := send(t, tc.a.client(t), req) // checked against the spec, 431 included
			require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, got.StatusCode, "%s%s", tc.base, path)
			require.Contains(t, string(got.body), `"REQUEST_TOO_LARGE"`)
			require.Contains(t, string(got.body), "headers are larger than this server accepts")
		}
		req, err := http.NewRequest(http.MethodGet, tc.base+"/healthz", nil)
		require.NoError(t, err)
		req.Header.Set("X-Trace", strings.Repeat("b", 60<<10))
		got := send(t, tc.a.client(t), req)
		require.Equal(t, http.StatusOK, got.StatusCode, "%s: headers under the limit are served", tc.base)
	}

	big := `{"client_id":"` + strings.Repeat("x", 1<<20) + `","client_secret":"y"}`
	for _, chunked := range []bool{false, true} {
		req, err := http.NewRequest(http.MethodPost, s.ReconURL+"/api/v1/token", strings.NewReader(big))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if chunked {
			req.ContentLength = -1
			req.Body = io.NopCloser(strings.NewReader(big))
		}
		got := send(t, recon(t).client(t), req)
		require.Equal(t, http.StatusRequestEntityTooLarge, got.StatusCode, "chunked %v: %s", chunked, truncate(got.body))
		require.Contains(t, string(got.body), `"REQUEST_TOO_LARGE"`, "chunked %v", chunked)
		require.NotContains(t, string(got.body), "FILE_TOO_LARGE")
	}
}

// TestEmbeddedPostgreSQLIsRestartedWhenItDies (S15): when the embedded cluster dies under a
// running statementd (its process group killed), statementd says so and starts it again, with
// backoff, on the same port: readiness and the APIs come back with the data intact, without a
// restart by hand (before: 503 until someone restarted statementd).
func TestEmbeddedPostgreSQLIsRestartedWhenItDies(t *testing.T) {
	t.Parallel()
	dataDir := embeddedDataDir(t)
	s := startServer(t, "DATABASE_URL=", "STATEMENTD_DATA_DIR="+dataDir)
	apiKey := regexp.MustCompile(`export STATEMENT_API_KEY=(\S+)`).FindStringSubmatch(s.logs.String())
	require.NotNil(t, apiKey, "the demo account's key is printed")
	usage := func() int {
		req, err := http.NewRequest(http.MethodGet, s.ParseURL+"/api/v1/usage", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+apiKey[1])
		return send(t, parse(t).client(t), req).StatusCode
	}
	require.Equal(t, http.StatusOK, usage())

	for kill := 1; kill <= 2; kill++ {
		pidFile, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(-pid, syscall.SIGKILL), "kill the postmaster's process group")
		// The second exit within a minute is counted, not written again (logdedup); each
		// restart is written.
		s.waitLog(t, "embedded PostgreSQL exited unexpectedly; restarting it", 1)
		// Under load the old server's processes take seconds to go, and each attempt waits
		// longer (1 s, 2 s, 4 s ...): allow a minute and a half.
		s.waitLogWithin(t, "embedded PostgreSQL restarted", kill, 90*time.Second)
		require.Eventually(t, func() bool {
			resp, err := http.Get(s.ParseURL + "/readyz")
			if err != nil {
				return false
			}
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}, 30*time.Second, 50*time.Millisecond, "readiness comes back")
		require.Eventually(t, func() bool { return usage() == http.StatusOK }, 10*time.Second, 50*time.Millisecond,
			"the demo key still works: the data survived")
	}

	require.NoError(t, s.stop(t), "statementd exits 0 on SIGTERM")
	require.NoFileExists(t, filepath.Join(dataDir, "pgdata", "postmaster.pid"), "the restarted cluster stops with statementd")
}
