package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	tokenBody  = `{"access_token":"sat_1","token_type":"Bearer","expires_in":3600,"scope":"jobs:read jobs:write"}`
	limitsBody = `{"plan":"pro","env":"production","jobs_limit":20000,"jobs_used":3,"jobs_remaining":19997,"reset_date":"2026-04-01T00:00:00Z"}`
)

// TestLoginSavesAProfileThatCommandsUse: login checks the credentials, saves them 0600, and a
// command with no flags or variables then reaches the API with them; the environment still
// wins over the profile.
func TestLoginSavesAProfileThatCommandsUse(t *testing.T) {
	t.Parallel()
	var seenAuth []string
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"POST /api/v1/token": answer(200, tokenBody),
		"GET /api/v1/limits": func(w http.ResponseWriter, r *http.Request) {
			seenAuth = append(seenAuth, r.Header.Get("Authorization"))
			answer(200, limitsBody)(w, r)
		},
	})
	config := filepath.Join(t.TempDir(), "statementctl", "config.json")
	a, stdout, stderr := testApp(map[string]string{envConfig: config})
	code := a.run(context.Background(), []string{"login", "--profile", "prod", "--base-url", srv.URL + "/api/v1/",
		"--client-id", "cli_1", "--client-secret", "cs_1"})
	require.Equal(t, exitOK, code, stderr.String())
	require.Equal(t, "saved profile prod (API client cli_1) in "+config+"\n", stdout.String())
	info, err := os.Stat(config)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the profile file holds secrets")
	dir, err := os.Stat(filepath.Dir(config))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
	var saved configFile
	data, err := os.ReadFile(config)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &saved))
	require.Equal(t, profile{BaseURL: srv.URL, ClientID: "cli_1", ClientSecret: "cs_1"}, saved.Profiles["prod"], "the base URL is saved normalized")
	require.Len(t, seenAuth, 1, "login checked the credentials")

	a, stdout, stderr = testApp(map[string]string{envConfig: config, envProfile: "prod"})
	require.Equal(t, exitOK, a.run(context.Background(), []string{"limits"}), stderr.String())
	require.Contains(t, stdout.String(), "19997")

	a, _, stderr = testApp(map[string]string{envConfig: config})
	require.Equal(t, exitUsage, a.run(context.Background(), []string{"limits", "--profile", "staging"}))
	require.Contains(t, stderr.String(), `no profile "staging" in `+config+": save it with statementctl login --profile staging")

	other := fakeAPI(t, map[string]http.HandlerFunc{
		"POST /api/v1/token": answer(200, tokenBody),
		"GET /api/v1/limits": answer(200, strings.Replace(limitsBody, "19997", "42", 1)),
	})
	a, stdout, stderr = testApp(map[string]string{envConfig: config, envProfile: "prod", envBaseURL: other.URL})
	require.Equal(t, exitOK, a.run(context.Background(), []string{"limits"}), stderr.String())
	require.Contains(t, stdout.String(), "42", "the environment wins over the profile")
}

func TestLoginRefusesWhatDoesNotWork(t *testing.T) {
	t.Parallel()
	srv := fakeAPI(t, map[string]http.HandlerFunc{
		"GET /api/v1/status": answer(401, parseError("AUTH_INVALID", "Invalid API key.")),
	})
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStderr string
	}{
		{"a key the API refuses is not saved", []string{"login", "--parse-base-url", srv.URL, "--api-key", "smk_live_wrong"}, nil,
			exitRefused, "the API key does not work at " + srv.URL + " (nothing saved; --no-verify saves anyway)"},
		{"nothing to save", []string{"login"}, nil, exitUsage, "nothing to save: give --client-id and --client-secret, --api-key"},
		{"an id without its secret", []string{"login", "--client-id", "cli_1"}, nil, exitUsage, "a client id needs its secret"},
		{"a bad base URL", []string{"login", "--api-key", "smk_live_x", "--parse-base-url", "parse.example.com", "--no-verify"}, nil,
			exitUsage, `the base URL "parse.example.com"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{envConfig: config}
			a, _, stderr := testApp(env)
			require.Equal(t, tt.wantCode, a.run(context.Background(), tt.args), stderr.String())
			require.Contains(t, stderr.String(), tt.wantStderr)
			require.NoFileExists(t, config)
		})
	}

	t.Run("a profile file others may read is refused", func(t *testing.T) {
		loose := filepath.Join(dir, "loose.json")
		require.NoError(t, os.WriteFile(loose, []byte(`{"profiles":{"default":{"api_key":"smk_live_x"}}}`), 0o644))
		require.NoError(t, os.Chmod(loose, 0o644))
		a, _, stderr := testApp(map[string]string{envConfig: loose})
		require.Equal(t, exitUsage, a.run(context.Background(), []string{"usage"}))
		require.Contains(t, stderr.String(), "holds secrets but others may read it (mode 0644): run chmod 600 "+loose)
	})

	t.Run("--no-verify saves without asking the API", func(t *testing.T) {
		path := filepath.Join(dir, "unverified.json")
		a, stdout, stderr := testApp(map[string]string{envConfig: path})
		require.Equal(t, exitOK, a.run(context.Background(), []string{"login", "--api-key", "smk_live_0123456789abcdef", "--no-verify"}), stderr.String())
		require.True(t, strings.HasPrefix(stdout.String(), "saved profile default (API key smk_****cdef) in "), stdout.String())
	})
}
