package contracttests

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
	"github.com/statementmatch/service/internal/account"
)

// admin runs `statementd admin ARGS --json` against the server's database and data dir and
// returns the one JSON object it prints. Every credential it prints (signing secrets included) is
// remembered, so requireNoSecretsInLogs can look for it.
func (s *server) admin(t testing.TB, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(statementdBin, append([]string{"admin"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + s.DatabaseURL, "STATEMENTD_DATA_DIR=" + s.DataDir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "statementd admin %s\nstderr: %s", strings.Join(args, " "), stderr.String())
	var out map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), "admin --json prints one JSON object: %s", stdout.String())
	for _, field := range []string{"client_secret", "api_key", "signing_secret"} {
		if v, ok := out[field].(string); ok {
			s.remember(v)
		}
	}
	return out
}

// remember records a credential that must never appear in the server's log.
func (s *server) remember(secret string) {
	s.secretsMu.Lock()
	defer s.secretsMu.Unlock()
	s.secrets = append(s.secrets, secret)
}

// requireNoSecretsInLogs checks (A5) that no credential issued during the test, client secret,
// API key, access token or webhook signing secret, appears in the server's log.
func (s *server) requireNoSecretsInLogs(t *testing.T) {
	t.Helper()
	logs := s.logs.String()
	require.Contains(t, logs, `"msg":"request"`, "the server logged its requests")
	s.secretsMu.Lock()
	defer s.secretsMu.Unlock()
	require.NotEmpty(t, s.secrets)
	for _, secret := range s.secrets {
		require.NotEmpty(t, secret)
		require.NotContains(t, logs, secret, "a credential appears in the server log")
	}
}

func str(t testing.TB, m map[string]any, key string) string {
	t.Helper()
	v, ok := m[key].(string)
	require.True(t, ok, "%q in %v", key, m)
	require.NotEmpty(t, v)
	return v
}

// newAccount creates an account on the top plans (1,000 requests a minute on each API, so tests
// that send many requests are not rate limited) and returns its id. extra adds or overrides
// flags, e.g. "--recon-plan", "standard".
func (s *server) newAccount(t testing.TB, name string, extra ...string) string {
	t.Helper()
	args := append([]string{"account", "create", "--json", "--name", name, "--recon-plan", "pro", "--parse-plan", "business"}, extra...)
	return str(t, s.admin(t, args...), "account_id")
}

// newClient creates a Reconciliation API client with the permissions given (all when none).
func (s *server) newClient(t testing.TB, accountID string, permissions ...string) (id, secret string) {
	t.Helper()
	args := []string{"client", "create", "--json", "--account", accountID}
	if len(permissions) > 0 {
		args = append(args, "--permissions", strings.Join(permissions, ","))
	}
	out := s.admin(t, args...)
	return str(t, out, "client_id"), str(t, out, "client_secret")
}

// newKey creates a Parsing API key with the scopes given (all when none).
func (s *server) newKey(t testing.TB, accountID string, scopes ...string) (id, key string) {
	t.Helper()
	args := []string{"key", "create", "--json", "--account", accountID}
	if len(scopes) > 0 {
		args = append(args, "--scopes", strings.Join(scopes, ","))
	}
	out := s.admin(t, args...)
	return str(t, out, "key_id"), str(t, out, "api_key")
}

// token gets an access token from base with the JSON token request.
func (s *server) token(t testing.TB, base, clientID, secret string) string {
	t.Helper()
	r, err := reconClient(t, base).CreateTokenWithResponse(context.Background(),
		reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	s.remember(r.JSON200.AccessToken)
	return r.JSON200.AccessToken
}

// bearer is a request editor of both SDK clients that sends credential as a Bearer token.
func bearer(credential string) func(context.Context, *http.Request) error {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+credential)
		return nil
	}
}

// basic is a request editor that sends client credentials with HTTP Basic, each form-encoded
// first as RFC 6749 section 2.3.1 says (what stock OAuth 2.0 libraries do).
func basic(clientID, secret string) func(context.Context, *http.Request) error {
	return func(_ context.Context, req *http.Request) error {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
		return nil
	}
}

// uploadBody is a multipart body with a small CSV file per field.
func uploadBody(t *testing.T, fields ...string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		part, err := w.CreateFormFile(f, f+".csv")
		require.NoError(t, err)
		_, _ = part.Write([]byte("date,amount,description\n2026-01-02,10.00,INV-1\n"))
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), &buf
}

// fullTenant is an account with a client of every permission and a key of every scope.
type fullTenant struct {
	AccountID              string
	ClientID, ClientSecret string
	KeyID, APIKey          string
}

func (s *server) newTenant(t testing.TB, name string) fullTenant {
	t.Helper()
	ten := fullTenant{AccountID: s.newAccount(t, name)}
	ten.ClientID, ten.ClientSecret = s.newClient(t, ten.AccountID)
	ten.KeyID, ten.APIKey = s.newKey(t, ten.AccountID)
	return ten
}

// TestTokenEndpoint covers A1 (the three ways to ask for a token), A2 (bad client credentials
// answer alike) and the token request's own rules.
func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()
	acct := s.newAccount(t, "A")
	clientID, secret := s.newClient(t, acct)
	readerID, readerSecret := s.newClient(t, acct, "jobs:read")
	rc := reconClient(t, s.ReconURL)

	requireToken := func(t *testing.T, r *reconclient.CreateTokenResponse, wantScope string) {
		t.Helper()
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		s.remember(r.JSON200.AccessToken)
		require.Equal(t, reconclient.TokenTypeBearer, r.JSON200.TokenType)
		require.Equal(t, 3600, r.JSON200.ExpiresIn, "the default lifetime is one hour")
		require.ElementsMatch(t, strings.Fields(wantScope), strings.Fields(r.JSON200.Scope))
		require.NotEmpty(t, r.JSON200.AccessToken)
		require.Equal(t, "no-store", r.HTTPResponse.Header.Get("Cache-Control"))
		require.Equal(t, "no-cache", r.HTTPResponse.Header.Get("Pragma"))
		var raw map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &raw))
		require.NotContains(t, raw, "refresh_token", "the client credentials grant has no refresh token")
	}
	all := "jobs:read jobs:write limits:read"
	grant := reconclient.GrantTypeClientCredentials
	ptr := func(s string) *string { return &s }

	t.Run("a JSON token request gets a Bearer token for an hour", func(t *testing.T) {
		r, err := rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret})
		require.NoError(t, err)
		requireToken(t, r, all)
	})
	t.Run("a form token request with the credentials in the body gets a token", func(t *testing.T) {
		r, err := rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
			GrantType: grant, ClientId: &clientID, ClientSecret: &secret})
		require.NoError(t, err)
		requireToken(t, r, all)
	})
	t.Run("a form token request with HTTP Basic gets a token", func(t *testing.T) {
		r, err := rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{GrantType: grant},
			basic(clientID, secret))
		require.NoError(t, err)
		requireToken(t, r, all)
	})
	t.Run("scope narrows the token's permissions", func(t *testing.T) {
		r, err := rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
			GrantType: grant, Scope: ptr("jobs:read  limits:read")}, basic(clientID, secret))
		require.NoError(t, err)
		requireToken(t, r, "jobs:read limits:read")
	})
	t.Run("env naming this environment is accepted, on the sandbox too", func(t *testing.T) {
		env := reconclient.EnvironmentSandbox
		r, err := reconClient(t, s.SandboxURL).CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{
			ClientId: clientID, ClientSecret: secret, Env: &env})
		require.NoError(t, err)
		requireToken(t, r, all)
	})

	badRequests := []struct {
		name    string
		call    func() (*reconclient.CreateTokenResponse, error)
		message string
	}{
		{name: "env naming the other environment is 400", message: "env", call: func() (*reconclient.CreateTokenResponse, error) {
			env := reconclient.EnvironmentSandbox
			return rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret, Env: &env})
		}},
		{name: "credentials in the body and with HTTP Basic are 400", message: "both", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
				GrantType: grant, ClientId: &clientID, ClientSecret: &secret}, basic(clientID, secret))
		}},
		{name: "JSON credentials with HTTP Basic are 400", message: "both", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret},
				basic(clientID, secret))
		}},
		{name: "a form without credentials is 400", message: "client_id", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{GrantType: grant})
		}},
		{name: "an unknown scope is 400", message: "scope", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
				GrantType: grant, Scope: ptr("jobs:read admin")}, basic(clientID, secret))
		}},
		{name: "a scope the client does not hold is 400", message: "scope", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
				GrantType: grant, Scope: ptr("jobs:write")}, basic(readerID, readerSecret))
		}},
		{name: "a malformed Basic header is 400", message: "Authorization", call: func() (*reconclient.CreateTokenResponse, error) {
			return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{GrantType: grant},
				func(_ context.Context, req *http.Request) error {
					req.Header.Set("Authorization", "Basic !!!")
					return nil
				})
		}},
	}
	for _, tt := range badRequests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.call()
			require.NoError(t, err)
			require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
			require.Equal(t, reconclient.ErrorCodeInvalidRequest, r.JSON400.Error)
			require.Contains(t, r.JSON400.Detail.Message, tt.message)
		})
	}

	t.Run("a wrong secret, an unknown client and a revoked client get the same 401", func(t *testing.T) {
		revokedID, revokedSecret := s.newClient(t, acct)
		s.admin(t, "client", "revoke", "--json", revokedID)
		attempts := map[string]func() (*reconclient.CreateTokenResponse, error){
			"wrong secret": func() (*reconclient.CreateTokenResponse, error) {
				return rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret + "x"})
			},
			"unknown client": func() (*reconclient.CreateTokenResponse, error) {
				return rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: "cli_unknownunknownunknown1", ClientSecret: secret})
			},
			"revoked client": func() (*reconclient.CreateTokenResponse, error) {
				return rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: revokedID, ClientSecret: revokedSecret})
			},
			"wrong secret with HTTP Basic": func() (*reconclient.CreateTokenResponse, error) {
				return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{GrantType: grant},
					basic(clientID, "cs_wrong"))
			},
			"unknown client with HTTP Basic": func() (*reconclient.CreateTokenResponse, error) {
				return rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{GrantType: grant},
					basic("cli_nobody", "cs_wrong"))
			},
		}
		var first *reconclient.Error
		for name, call := range attempts {
			r, err := call()
			require.NoError(t, err, name)
			require.Equal(t, http.StatusUnauthorized, r.StatusCode(), name)
			require.Equal(t, `Basic realm="statementd"`, r.HTTPResponse.Header.Get("WWW-Authenticate"), name)
			require.Equal(t, reconclient.ErrorCodeAuthInvalid, r.JSON401.Error, name)
			if first == nil {
				first = r.JSON401
			}
			require.Equal(t, *first, *r.JSON401, "%s: every bad credential gets the same body", name)
		}
	})
	s.requireNoSecretsInLogs(t)
}

// requireChallenge checks a 401 or 403 answer's code and WWW-Authenticate header.
func requireChallenge(t *testing.T, resp *http.Response, status int, wantChallenge string) {
	t.Helper()
	require.Equal(t, status, resp.StatusCode)
	got := resp.Header.Get("WWW-Authenticate")
	if strings.HasSuffix(wantChallenge, "*") {
		require.True(t, strings.HasPrefix(got, strings.TrimSuffix(wantChallenge, "*")), "WWW-Authenticate: %s", got)
		return
	}
	require.Equal(t, wantChallenge, got)
}

// TestBearerTokens covers A3 and A4 on the Reconciliation API: every kind of bad token, a token
// of the other environment, a missing permission and revocation.
func TestBearerTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()
	acct := s.newAccount(t, "A")
	clientID, secret := s.newClient(t, acct)
	readerID, readerSecret := s.newClient(t, acct, "jobs:read", "limits:read")
	rc := reconClient(t, s.ReconURL)
	prodToken := s.token(t, s.ReconURL, clientID, secret)
	sandboxToken := s.token(t, s.SandboxURL, clientID, secret)
	readerToken := s.token(t, s.ReconURL, readerID, readerSecret)

	const invalid = `Bearer realm="statementd", error="invalid_token"*`
	limits := func(editors ...reconclient.RequestEditorFn) *reconclient.GetLimitsResponse {
		t.Helper()
		r, err := rc.GetLimitsWithResponse(ctx, editors...)
		require.NoError(t, err)
		return r
	}

	t.Run("a valid token passes authentication", func(t *testing.T) {
		r := limits(bearer(prodToken))
		require.Equal(t, http.StatusOK, r.StatusCode(), "%s", r.Body)
	})
	t.Run("no Authorization header is 401 UNAUTHORIZED with a challenge without error", func(t *testing.T) {
		r := limits()
		requireChallenge(t, r.HTTPResponse, 401, `Bearer realm="statementd"`)
		require.Equal(t, reconclient.ErrorCodeUnauthorized, r.JSON401.Error)
	})
	t.Run("a garbage token is 401 AUTH_INVALID with invalid_token", func(t *testing.T) {
		for _, garbage := range []string{"garbage", "sat_" + strings.Repeat("A", 43), prodToken + "x", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."} {
			r := limits(bearer(garbage))
			requireChallenge(t, r.HTTPResponse, 401, invalid)
			require.Equal(t, reconclient.ErrorCodeAuthInvalid, r.JSON401.Error, garbage)
		}
	})
	t.Run("a token of the sandbox is AUTH_INVALID in production, and the other way round", func(t *testing.T) {
		r := limits(bearer(sandboxToken))
		requireChallenge(t, r.HTTPResponse, 401, invalid)
		require.Equal(t, reconclient.ErrorCodeAuthInvalid, r.JSON401.Error)

		sr, err := reconClient(t, s.SandboxURL).GetLimitsWithResponse(ctx, bearer(prodToken))
		require.NoError(t, err)
		requireChallenge(t, sr.HTTPResponse, 401, invalid)
		require.Equal(t, reconclient.ErrorCodeAuthInvalid, sr.JSON401.Error)

		sr, err = reconClient(t, s.SandboxURL).GetLimitsWithResponse(ctx, bearer(sandboxToken))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, sr.StatusCode())
	})
	t.Run("a token without jobs:write is 403 FORBIDDEN with insufficient_scope on POST /jobs", func(t *testing.T) {
		ct, body := uploadBody(t, "bank", "expected")
		r, err := rc.CreateJobWithBodyWithResponse(ctx, nil, ct, body, bearer(readerToken))
		require.NoError(t, err)
		requireChallenge(t, r.HTTPResponse, 403, `Bearer realm="statementd", error="insufficient_scope", error_description="This access token lacks the jobs:write permission.", scope="jobs:write"`)
		require.Equal(t, reconclient.ErrorCodeForbidden, r.JSON403.Error)
		require.Equal(t, r.JSON403.Error, r.JSON403.Detail.Code)

		ok := limits(bearer(readerToken))
		require.Equal(t, http.StatusOK, ok.StatusCode(), "the same token may read the limits")
	})
	t.Run("a token narrowed by scope loses the other permissions", func(t *testing.T) {
		scope := "limits:read"
		r, err := rc.CreateTokenWithFormdataBodyWithResponse(ctx, reconclient.CreateTokenFormdataRequestBody{
			GrantType: reconclient.GrantTypeClientCredentials, Scope: &scope}, basic(clientID, secret))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode())
		s.remember(r.JSON200.AccessToken)
		job, err := rc.GetJobWithResponse(ctx, uuid.New(), bearer(r.JSON200.AccessToken))
		require.NoError(t, err)
		requireChallenge(t, job.HTTPResponse, 403, `Bearer realm="statementd", error="insufficient_scope"*`)
	})
	t.Run("without credentials a request that also breaks the spec is 401, not 400", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, s.ReconURL+"/api/v1/jobs/not-a-uuid", nil)
		require.NoError(t, err)
		resp, err := recon(t).client(t).Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		requireChallenge(t, resp, 401, `Bearer realm="statementd"`)

		req.Header.Set("Authorization", "Bearer "+prodToken)
		resp, err = recon(t).client(t).Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "authenticated, the same request is 400")
	})
	t.Run("revoking a client refuses its tokens and its new token requests", func(t *testing.T) {
		doomedID, doomedSecret := s.newClient(t, acct)
		doomedToken := s.token(t, s.ReconURL, doomedID, doomedSecret)
		require.Equal(t, http.StatusOK, limits(bearer(doomedToken)).StatusCode())

		s.admin(t, "client", "revoke", "--json", doomedID)
		tr, err := rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: doomedID, ClientSecret: doomedSecret})
		require.NoError(t, err)
		require.Equal(t, http.StatusUnauthorized, tr.StatusCode(), "a revoked client gets no new token, at once")
		require.Equal(t, reconclient.ErrorCodeAuthInvalid, tr.JSON401.Error)

		// The server trusted the token it had just seen for the auth cache's TTL.
		r := awaitRefusal(t, func() *reconclient.GetLimitsResponse { return limits(bearer(doomedToken)) },
			func(r *reconclient.GetLimitsResponse) int { return r.StatusCode() })
		requireChallenge(t, r.HTTPResponse, 401, invalid)
		require.Equal(t, reconclient.ErrorCodeAuthInvalid, r.JSON401.Error)
	})
	s.requireNoSecretsInLogs(t)
}

// TestExpiredToken runs a server whose tokens live two seconds and waits one out.
func TestExpiredToken(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_TOKEN_TTL=2s")
	ctx := context.Background()
	acct := s.newAccount(t, "A")
	clientID, secret := s.newClient(t, acct)
	rc := reconClient(t, s.ReconURL)

	tr, err := rc.CreateTokenWithResponse(ctx, reconclient.CreateTokenJSONRequestBody{ClientId: clientID, ClientSecret: secret})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, tr.StatusCode())
	require.Equal(t, 2, tr.JSON200.ExpiresIn, "expires_in is the configured lifetime")
	token := tr.JSON200.AccessToken
	s.remember(token)
	issued := time.Now()

	r, err := rc.GetLimitsWithResponse(ctx, bearer(token))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), "fresh, the token passes")

	time.Sleep(time.Until(issued.Add(2*time.Second + 300*time.Millisecond)))
	r, err = rc.GetLimitsWithResponse(ctx, bearer(token))
	require.NoError(t, err)
	requireChallenge(t, r.HTTPResponse, 401, `Bearer realm="statementd", error="invalid_token"*`)
	require.Equal(t, reconclient.ErrorCodeTokenExpired, r.JSON401.Error)
	s.requireNoSecretsInLogs(t)
}

// TestAPIKeys covers the Parsing API's keys: A3 and A4 for keys and A7 (scopes), every answer in
// the envelope.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()
	acct := s.newAccount(t, "A")
	_, key := s.newKey(t, acct)
	_, readKey := s.newKey(t, acct, "jobs:read")
	revokedID, revokedKey := s.newKey(t, acct)
	s.admin(t, "key", "revoke", "--json", revokedID)
	pc := parseClient(t, s.ParseURL)

	createJob := func(editors ...parseclient.RequestEditorFn) *parseclient.CreateJobResponse {
		t.Helper()
		ct, body := uploadBody(t, "file")
		r, err := pc.CreateJobWithBodyWithResponse(ctx, nil, ct, body, editors...)
		require.NoError(t, err)
		return r
	}
	requireEnvelope := func(t *testing.T, e *parseclient.ErrorEnvelope, code parseclient.ErrorCode) {
		t.Helper()
		require.NotNil(t, e)
		require.False(t, bool(e.Ok))
		require.Equal(t, code, e.Error)
		require.NotEmpty(t, e.Detail)
		require.NotEmpty(t, e.Meta.RequestId)
	}
	const invalid = `Bearer realm="statementd", error="invalid_token"*`

	t.Run("a valid key with jobs:write passes authentication", func(t *testing.T) {
		r := createJob(bearer(key))
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		require.Equal(t, parseclient.JobStatusQueued, r.JSON202.Data.Status)
	})
	t.Run("no key is 401 UNAUTHORIZED", func(t *testing.T) {
		r := createJob()
		requireChallenge(t, r.HTTPResponse, 401, `Bearer realm="statementd"`)
		requireEnvelope(t, r.JSON401, parseclient.ErrorCodeUnauthorized)
	})
	t.Run("a malformed or unknown key is 401 AUTH_INVALID", func(t *testing.T) {
		for _, bad := range []string{"nope", "smk_live_" + strings.Repeat("Z", 40), key + "0", "smk_test_" + strings.Repeat("a", 40)} {
			r := createJob(bearer(bad))
			requireChallenge(t, r.HTTPResponse, 401, invalid)
			requireEnvelope(t, r.JSON401, parseclient.ErrorCodeAuthInvalid)
		}
	})
	t.Run("a revoked key is 401 AUTH_INVALID", func(t *testing.T) {
		r := createJob(bearer(revokedKey))
		requireChallenge(t, r.HTTPResponse, 401, invalid)
		requireEnvelope(t, r.JSON401, parseclient.ErrorCodeAuthInvalid)
	})
	t.Run("a key revoked after use is refused within the auth cache's TTL", func(t *testing.T) {
		id, doomed := s.newKey(t, acct)
		first, err := pc.ListJobsWithResponse(ctx, nil, bearer(doomed))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, first.StatusCode(), "%s", first.Body)
		s.admin(t, "key", "revoke", "--json", id)
		r := awaitRefusal(t, func() *parseclient.ListJobsResponse {
			r, err := pc.ListJobsWithResponse(ctx, nil, bearer(doomed))
			require.NoError(t, err)
			return r
		}, func(r *parseclient.ListJobsResponse) int { return r.StatusCode() })
		requireChallenge(t, r.HTTPResponse, 401, invalid)
		requireEnvelope(t, r.JSON401, parseclient.ErrorCodeAuthInvalid)
	})
	t.Run("a key with only jobs:read lists jobs, and is 403 FORBIDDEN on POST /jobs, webhooks and usage", func(t *testing.T) {
		r := createJob(bearer(readKey))
		requireChallenge(t, r.HTTPResponse, 403, `Bearer realm="statementd", error="insufficient_scope", error_description="This API key lacks the scope \"jobs:write\".", scope="jobs:write"`)
		requireEnvelope(t, r.JSON403, parseclient.ErrorCodeForbidden)

		w, err := pc.ListWebhooksWithResponse(ctx, bearer(readKey))
		require.NoError(t, err)
		requireChallenge(t, w.HTTPResponse, 403, `Bearer realm="statementd", error="insufficient_scope"*`)
		requireEnvelope(t, w.JSON403, parseclient.ErrorCodeForbidden)

		l, err := pc.ListJobsWithResponse(ctx, nil, bearer(readKey))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, l.StatusCode(), "the key may read jobs: %s", l.Body)
		require.NotEmpty(t, l.JSON200.Data.Jobs, "and sees the job the other key created")

		u, err := pc.GetUsageWithResponse(ctx, bearer(readKey))
		require.NoError(t, err)
		requireChallenge(t, u.HTTPResponse, 403, `Bearer realm="statementd", error="insufficient_scope"*`)
		requireEnvelope(t, u.JSON403, parseclient.ErrorCodeForbidden)
	})
	t.Run("GET /status needs any valid key", func(t *testing.T) {
		r, err := pc.GetStatusWithResponse(ctx, bearer(readKey))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		require.Equal(t, parseclient.ParsePlanBusiness, r.JSON200.Data.Plan)
		r, err = pc.GetStatusWithResponse(ctx)
		require.NoError(t, err)
		requireChallenge(t, r.HTTPResponse, 401, `Bearer realm="statementd"`)
	})
	t.Run("the published spec needs no key", func(t *testing.T) {
		r, err := pc.GetOpenAPISpecWithResponse(ctx)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode())
	})
	s.requireNoSecretsInLogs(t)
}

// authCacheTTL is statementd's default STATEMENTD_AUTH_CACHE_TTL: how long a process may still
// accept a credential revoked by another one (here, by statementd admin).
const authCacheTTL = account.DefaultCredentialCacheTTL

// awaitRefusal calls do until its answer is 401 and returns that answer. The first 401 must come
// within authCacheTTL (and a second of slack) of the call, and every answer before it must be
// 200: a revoked credential goes on working until the server's cache forgets it, then stops.
func awaitRefusal[R any](t *testing.T, do func() R, status func(R) int) R {
	t.Helper()
	start := time.Now()
	for {
		r := do()
		switch code := status(r); code {
		case http.StatusUnauthorized:
			t.Logf("refused %s after the revocation", time.Since(start).Round(10*time.Millisecond))
			return r
		case http.StatusOK:
		default:
			t.Fatalf("while waiting for the revocation to reach the server: %d", code)
		}
		require.Less(t, time.Since(start), authCacheTTL+time.Second, "the revoked credential still works after the auth cache's TTL")
		time.Sleep(100 * time.Millisecond)
	}
}
