package main

import (
	"bytes"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// envOf is a getenv over a map.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	cmd := command{name: "reconcile", args: "BANK EXPECTED", summary: "upload and wait"}
	tests := []struct {
		name     string
		args     []string
		want     []string
		wantJSON bool
		wantOut  string
		wantErr  string // the usage error's message; "" for success
		wantHelp bool
	}{
		{name: "flags may come first", args: []string{"--json", "a", "b"}, want: []string{"a", "b"}, wantJSON: true},
		{name: "flags may come last", args: []string{"a", "b", "--json"}, want: []string{"a", "b"}, wantJSON: true},
		{name: "flags may come between the arguments", args: []string{"a", "-json", "b"}, want: []string{"a", "b"}, wantJSON: true},
		{name: "a flag takes its value from the next argument", args: []string{"a", "-o", "out.csv", "b"}, want: []string{"a", "b"}, wantOut: "out.csv"},
		{name: "a lone dash is a value, not a flag", args: []string{"-o", "-", "a", "b"}, want: []string{"a", "b"}, wantOut: "-"},
		{name: "a double dash ends the flags", args: []string{"a", "--", "--json"}, want: []string{"a", "--json"}},
		{name: "too few arguments name what is needed", args: []string{"a"}, wantErr: "needs BANK EXPECTED"},
		{name: "too many arguments name the first extra one", args: []string{"a", "b", "c"}, wantErr: `unexpected argument "c"`},
		{name: "an unknown flag is a usage error", args: []string{"--nope", "a", "b"}, wantErr: "flag provided but not defined: -nope"},
		{name: "a flag without its value is a usage error", args: []string{"a", "b", "-o"}, wantErr: "flag needs an argument: -o"},
		{name: "-h shows the usage", args: []string{"a", "-h"}, wantHelp: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			a := &app{stdout: &stdout}
			fs := newFlags(cmd)
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write to `FILE`")
			got, err := a.parseArgs(fs, cmd, tt.args, 2, 2)
			switch {
			case tt.wantHelp:
				require.ErrorIs(t, err, errHelpShown)
				require.Contains(t, stdout.String(), "Usage: statementctl reconcile BANK EXPECTED [flags]\n\nUpload and wait.\n")
				require.Contains(t, stdout.String(), "  -o FILE  write to FILE\n")
				require.Contains(t, stdout.String(), "  --json   print JSON\n")
			case tt.wantErr != "":
				u, ok := errors.AsType[*usageError](err)
				require.True(t, ok, "a usage error: %v", err)
				require.Equal(t, tt.wantErr, u.msg)
				require.Equal(t, "reconcile", u.cmd, "points at the command's -h")
			default:
				require.NoError(t, err)
				require.Equal(t, tt.want, got)
				require.Equal(t, tt.wantJSON, *asJSON)
				require.Equal(t, tt.wantOut, *out)
			}
		})
	}
}

func TestSettingPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		want       string
		wantSource string
	}{
		{"the flag wins over the variable", []string{"--api-key", "from-flag"}, map[string]string{envAPIKey: "from-env"}, "from-flag", "--api-key"},
		{"an empty flag wins too", []string{"--api-key="}, map[string]string{envAPIKey: "from-env"}, "", "--api-key"},
		{"the variable is used without the flag", nil, map[string]string{envAPIKey: "from-env"}, "from-env", envAPIKey},
		{"the default is used without either", nil, nil, "the-default", "the default"},
		{"an empty variable counts as unset", nil, map[string]string{envAPIKey: ""}, "the-default", "the default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.String("api-key", "", "")
			require.NoError(t, fs.Parse(tt.args))
			got, source := setting(fs, "api-key", envOf(tt.env), envAPIKey, "the-default")
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.wantSource, source)
		})
	}
}

func TestReconSettings(t *testing.T) {
	t.Parallel()
	creds := map[string]string{envClientID: "cli_env", envClientSecret: "cs_env"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range creds {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	saved := profile{name: "prod", BaseURL: "https://recon.example.com", SandboxBaseURL: "https://sandbox.example.com",
		ClientID: "cli_saved", ClientSecret: "cs_saved"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		profile profile
		want    reconSettings
		wantErr string
	}{
		{name: "a profile alone is enough",
			profile: saved, want: reconSettings{BaseURL: "https://recon.example.com", ClientID: "cli_saved", ClientSecret: "cs_saved"}},
		{name: "a profile's sandbox base URL with --sandbox",
			args: []string{"--sandbox"}, profile: saved,
			want: reconSettings{BaseURL: "https://sandbox.example.com", ClientID: "cli_saved", ClientSecret: "cs_saved", Sandbox: true}},
		{name: "the environment and flags win over the profile, setting by setting",
			args: []string{"--client-secret", "cs_flag"}, env: map[string]string{envBaseURL: "https://env.example.com"}, profile: saved,
			want: reconSettings{BaseURL: "https://env.example.com", ClientID: "cli_saved", ClientSecret: "cs_flag"}},
		{name: "a bad saved base URL names its profile",
			profile: profile{name: "broken", BaseURL: "recon.example.com", ClientID: "c", ClientSecret: "s"},
			wantErr: `the base URL "recon.example.com" from profile broken is not an http or https URL (like http://localhost:8082)`},
		{name: "the environment alone is enough, with the local production default",
			env:  creds,
			want: reconSettings{BaseURL: defaultReconURL, ClientID: "cli_env", ClientSecret: "cs_env"}},
		{name: "--sandbox picks the local sandbox by default",
			args: []string{"--sandbox"}, env: creds,
			want: reconSettings{BaseURL: defaultSandboxURL, ClientID: "cli_env", ClientSecret: "cs_env", Sandbox: true}},
		{name: "STATEMENT_BASE_URL is the base with --sandbox too",
			args: []string{"--sandbox"}, env: with(map[string]string{envBaseURL: "https://sandbox.example.com"}),
			want: reconSettings{BaseURL: "https://sandbox.example.com", ClientID: "cli_env", ClientSecret: "cs_env", Sandbox: true}},
		{name: "flags win over the environment",
			args: []string{"--base-url", "https://flag.example.com/", "--client-id", "cli_flag", "--client-secret", "cs_flag"},
			env:  with(map[string]string{envBaseURL: "https://env.example.com"}),
			want: reconSettings{BaseURL: "https://flag.example.com", ClientID: "cli_flag", ClientSecret: "cs_flag"}},
		{name: "one credential may come from a flag and the other from the environment",
			args: []string{"--client-secret", "cs_flag"}, env: map[string]string{envClientID: "cli_env"},
			want: reconSettings{BaseURL: defaultReconURL, ClientID: "cli_env", ClientSecret: "cs_flag"}},
		{name: "no credentials say both ways to give them",
			wantErr: "no client credentials: pass --client-id and --client-secret, or set STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET (or save them: statementctl login)"},
		{name: "a missing secret is named",
			env: map[string]string{envClientID: "cli_env"}, wantErr: "no client secret: pass --client-secret or set STATEMENT_CLIENT_SECRET"},
		{name: "a missing id is named",
			env: map[string]string{envClientSecret: "cs_env"}, wantErr: "no client id: pass --client-id or set STATEMENT_CLIENT_ID"},
		{name: "a bad base URL names where it came from",
			env: with(map[string]string{envBaseURL: "localhost:8080"}), wantErr: `the base URL "localhost:8080" from STATEMENT_BASE_URL is not an http or https URL (like http://localhost:8082)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			addReconFlags(fs)
			require.NoError(t, fs.Parse(tt.args))
			got, err := reconSettingsOf(fs, envOf(tt.env), tt.profile)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.Equal(t, exitUsage, exitCode(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		profile profile
		want    parseSettings
		wantErr string
	}{
		{name: "a profile alone is enough",
			profile: profile{name: "p", ParseBaseURL: "https://parse.example.com", APIKey: "smk_saved"},
			want:    parseSettings{BaseURL: "https://parse.example.com", APIKey: "smk_saved"}},
		{name: "the environment wins over the profile",
			env: map[string]string{envAPIKey: "smk_env"}, profile: profile{name: "p", ParseBaseURL: "https://parse.example.com", APIKey: "smk_saved"},
			want: parseSettings{BaseURL: "https://parse.example.com", APIKey: "smk_env"}},
		{name: "the key from the environment, with the local default base",
			env: map[string]string{envAPIKey: "smk_env"}, want: parseSettings{BaseURL: defaultParseURL, APIKey: "smk_env"}},
		{name: "STATEMENT_PARSE_BASE_URL sets the base",
			env:  map[string]string{envAPIKey: "smk_env", envParseBaseURL: "https://parse.example.com/api/v1"},
			want: parseSettings{BaseURL: "https://parse.example.com", APIKey: "smk_env"}},
		{name: "STATEMENT_BASE_URL belongs to the Reconciliation API and is not used",
			env:  map[string]string{envAPIKey: "smk_env", envBaseURL: "http://localhost:8080"},
			want: parseSettings{BaseURL: defaultParseURL, APIKey: "smk_env"}},
		{name: "flags win over the environment",
			args: []string{"--api-key", "smk_flag", "--base-url", "http://127.0.0.1:9"},
			env:  map[string]string{envAPIKey: "smk_env", envParseBaseURL: "https://parse.example.com"},
			want: parseSettings{BaseURL: "http://127.0.0.1:9", APIKey: "smk_flag"}},
		{name: "no key says how to give one", wantErr: "no API key: pass --api-key or set STATEMENT_API_KEY (or save one: statementctl login)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			addParseFlags(fs)
			require.NoError(t, fs.Parse(tt.args))
			got, err := parseSettingsOf(fs, envOf(tt.env), tt.profile)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
		wantErr         bool
	}{
		{name: "an origin stays as it is", raw: "http://localhost:8082", want: "http://localhost:8082"},
		{name: "a trailing slash goes", raw: "https://api.example.com/", want: "https://api.example.com"},
		{name: "the API prefix goes, since the SDK adds it", raw: "https://api.example.com/api/v1/", want: "https://api.example.com"},
		{name: "a gateway prefix stays", raw: "https://gw.example.com/statements", want: "https://gw.example.com/statements"},
		{name: "surrounding spaces go", raw: " http://localhost:8080 ", want: "http://localhost:8080"},
		{name: "a host without a scheme is refused", raw: "localhost:8080", wantErr: true},
		{name: "another scheme is refused", raw: "ftp://example.com", wantErr: true},
		{name: "an empty URL is refused", raw: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := normalizeBaseURL(tt.raw, "--base-url")
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestTracerMasksCredentials: --verbose writes each request and answer with the headers a
// support question needs, never a credential or a body.
func TestTracerMasksCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-42")
		w.Header().Set("X-RateLimit-Remaining", "59")
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	var trace bytes.Buffer
	c := httpClient(&trace)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/token", strings.NewReader("client_secret=cs_topsecret"))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Basic Y2xpOmNzX3RvcHNlY3JldA==")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	out := trace.String()
	for _, want := range []string{"> POST " + srv.URL + "/api/v1/token\n", "> Authorization: Basic ****\n",
		"> Content-Type: application/x-www-form-urlencoded\n", "> Content-Length: 26\n", "< HTTP/1.1 418 I'm a teapot (",
		"< X-Request-Id: req-42\n", "< X-RateLimit-Remaining: 59\n"} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "Y2xp")
	require.NotContains(t, out, "topsecret")

	quiet := httpClient(nil)
	resp, err = quiet.Get(srv.URL)
	require.NoError(t, err)
	_ = resp.Body.Close()
}
