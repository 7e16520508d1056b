package config

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/webhook"
)

func TestParseServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c Serve)
		wantErr string
	}{
		{
			name: "nothing set gives the documented defaults",
			check: func(t *testing.T, c Serve) {
				require.Equal(t, Serve{
					Database:  Database{URL: "", DataDir: "./.statementd"},
					ReconAddr: ":8080", ReconSandboxAddr: ":8081", ParseAddr: ":8082", DashboardAddr: ":8083", OpsAddr: "127.0.0.1:9090",
					Role: RoleAll, MaxUploadBytes: 26214400, MaxRows: 1_000_000, Migrate: true,
					ShutdownTimeout: 30 * time.Second, LogLevel: slog.LevelInfo, TokenTTL: time.Hour,
					AuthCacheTTL: 5 * time.Second, Workers: runtime.NumCPU(), JobPollInterval: 50 * time.Millisecond,
					JobTimeout: 10 * time.Minute, JobRescueAfter: 12 * time.Minute, FileRetention: 30 * 24 * time.Hour, ResultRetention: 365 * 24 * time.Hour,
					OCR:               statement.OCR{MaxPages: 50, PageTimeout: time.Minute, MaxPixels: 60_000_000},
					ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute,
					WebhookRetrySchedule: webhook.DefaultSchedule, WebhookTestsPerMinute: 10,
				}, c)
			},
		},
		{
			name: "environment variables replace defaults",
			env: map[string]string{"DATABASE_URL": "postgres://db/x", "STATEMENTD_PARSE_ADDR": "127.0.0.1:9999",
				"STATEMENTD_ROLE": "worker", "STATEMENTD_MAX_UPLOAD_BYTES": "1024", "STATEMENTD_MIGRATE": "false",
				"STATEMENTD_LOG_LEVEL": "debug", "STATEMENTD_TOKEN_TTL": "2s", "STATEMENTD_SECRET_KEY": "a2V5"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, "postgres://db/x", c.URL)
				require.Equal(t, "127.0.0.1:9999", c.ParseAddr)
				require.Equal(t, RoleWorker, c.Role)
				require.EqualValues(t, 1024, c.MaxUploadBytes)
				require.False(t, c.Migrate)
				require.Equal(t, slog.LevelDebug, c.LogLevel)
				require.Equal(t, 2*time.Second, c.TokenTTL)
				require.Equal(t, "a2V5", c.SecretKey)
			},
		},
		{
			name: "a flag wins over its environment variable",
			args: []string{"--role=api", "--recon-addr=", "--max-upload-bytes=2048"},
			env:  map[string]string{"STATEMENTD_ROLE": "worker", "STATEMENTD_RECON_ADDR": ":1", "STATEMENTD_MAX_UPLOAD_BYTES": "1024"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, RoleAPI, c.Role)
				require.Equal(t, "", c.ReconAddr, "an empty address disables the listener")
				require.EqualValues(t, 2048, c.MaxUploadBytes)
			},
		},
		{name: "an unknown role is refused", args: []string{"--role=boss"}, wantErr: "must be all, api or worker"},
		{name: "a bad environment value names its variable", env: map[string]string{"STATEMENTD_MAX_UPLOAD_BYTES": "lots"}, wantErr: `STATEMENTD_MAX_UPLOAD_BYTES="lots"`},
		{name: "a zero upload limit is refused", args: []string{"--max-upload-bytes=0"}, wantErr: "positive number of bytes"},
		{name: "a retry schedule is read", args: []string{"--webhook-retry-schedule=1s, 2s,1m"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, webhook.Schedule{time.Second, 2 * time.Second, time.Minute}, c.WebhookRetrySchedule)
			}},
		{name: "a retry schedule out of order is refused", env: map[string]string{"STATEMENTD_WEBHOOK_RETRY_SCHEDULE": "5m,1m"},
			wantErr: "STATEMENTD_WEBHOOK_RETRY_SCHEDULE"},
		{name: "a zero row limit is refused", env: map[string]string{"STATEMENTD_MAX_ROWS": "0"}, wantErr: "STATEMENTD_MAX_ROWS"},
		{name: "a row limit is read", args: []string{"--max-rows=20"},
			check: func(t *testing.T, c Serve) { require.Equal(t, 20, c.MaxRows) }},
		{name: "a negative shutdown timeout is refused", args: []string{"--shutdown-timeout=-1s"}, wantErr: "positive duration"},
		{name: "a token lifetime under a second is refused", args: []string{"--token-ttl=500ms"}, wantErr: "at least 1s"},
		{name: "a token lifetime with a fraction of a second is refused", env: map[string]string{"STATEMENTD_TOKEN_TTL": "1.5s"}, wantErr: "STATEMENTD_TOKEN_TTL"},
		{name: "a flag token lifetime wins", args: []string{"--token-ttl=90s"}, env: map[string]string{"STATEMENTD_TOKEN_TTL": "2s"},
			check: func(t *testing.T, c Serve) { require.Equal(t, 90*time.Second, c.TokenTTL) }},
		{name: "an auth cache of 0s looks every request up", env: map[string]string{"STATEMENTD_AUTH_CACHE_TTL": "0s"},
			check: func(t *testing.T, c Serve) { require.Zero(t, c.AuthCacheTTL) }},
		{name: "an auth cache over a minute is refused", args: []string{"--auth-cache-ttl=2m"}, wantErr: "from 0s to 1m"},
		{name: "a negative auth cache is refused", args: []string{"--auth-cache-ttl=-1s"}, wantErr: "from 0s to 1m"},
		{name: "a worker count sets the job concurrency", env: map[string]string{"STATEMENTD_WORKERS": "7", "STATEMENTD_JOB_POLL_INTERVAL": "10ms"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, 7, c.Workers)
				require.Equal(t, 10*time.Millisecond, c.JobPollInterval)
			}},
		{name: "a negative worker count is refused", args: []string{"--workers=-1"}, wantErr: "from 0 to 1000"},
		{name: "a rescue delay not longer than the job timeout is refused", args: []string{"--job-timeout=5m", "--job-rescue-after=5m"},
			wantErr: "must be longer than --job-timeout"},
		{name: "retention periods are read in days or as durations",
			env: map[string]string{"STATEMENTD_FILE_RETENTION": "7d", "STATEMENTD_RESULT_RETENTION": "2160h"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, 7*24*time.Hour, c.FileRetention)
				require.Equal(t, 90*24*time.Hour, c.ResultRetention)
			}},
		{name: "a retention of no days is refused", args: []string{"--file-retention=0d"}, wantErr: "positive number of days"},
		{name: "results kept shorter than files are refused", args: []string{"--file-retention=30d", "--result-retention=7d"},
			wantErr: "must not be shorter than --file-retention"},
		{name: "the HTTP timeouts are read from the environment",
			env: map[string]string{"STATEMENTD_READ_HEADER_TIMEOUT": "1s", "STATEMENTD_READ_TIMEOUT": "2s", "STATEMENTD_IDLE_TIMEOUT": "30s"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, time.Second, c.ReadHeaderTimeout)
				require.Equal(t, 2*time.Second, c.ReadTimeout)
				require.Equal(t, 30*time.Second, c.IdleTimeout)
			}},
		{name: "a flag read timeout wins", args: []string{"--read-timeout=90s", "--read-header-timeout=500ms"},
			env: map[string]string{"STATEMENTD_READ_TIMEOUT": "2s"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, 90*time.Second, c.ReadTimeout)
				require.Equal(t, 500*time.Millisecond, c.ReadHeaderTimeout)
			}},
		{name: "a zero read header timeout is refused", env: map[string]string{"STATEMENTD_READ_HEADER_TIMEOUT": "0s"},
			wantErr: `STATEMENTD_READ_HEADER_TIMEOUT="0s": must be a positive duration`},
		{name: "a read timeout that is not a duration is refused", args: []string{"--read-timeout=5"}, wantErr: "positive duration"},
		{name: "a negative idle timeout is refused", env: map[string]string{"STATEMENTD_IDLE_TIMEOUT": "-1m"}, wantErr: "STATEMENTD_IDLE_TIMEOUT"},
		{name: "a header timeout longer than the read timeout is refused", args: []string{"--read-header-timeout=30s", "--read-timeout=10s"},
			wantErr: "must not be longer than --read-timeout"},
		{name: "profiles are off unless asked for", env: map[string]string{"STATEMENTD_PPROF": "true"},
			check: func(t *testing.T, c Serve) { require.True(t, c.Pprof) }},
		{name: "a pprof switch that is not a boolean is refused", args: []string{"--pprof=maybe"}, wantErr: "must be true or false"},
		{name: "trusted proxies are CIDRs and addresses", env: map[string]string{"STATEMENTD_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, "[10.0.0.0/8 192.0.2.7/32]", fmt.Sprint(c.TrustedProxies))
			}},
		{name: "a trusted proxy by name is refused", args: []string{"--trusted-proxies=proxy.internal"},
			wantErr: `"proxy.internal" is neither an IP address nor a CIDR`},
		{name: "TLS takes a certificate and a key", env: map[string]string{"STATEMENTD_TLS_CERT": "c.pem", "STATEMENTD_TLS_KEY": "k.pem"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, []string{"c.pem", "k.pem"}, []string{c.TLSCert, c.TLSKey})
			}},
		{name: "a TLS certificate without its key is refused", args: []string{"--tls-cert=c.pem"}, wantErr: "set both or neither"},
		{name: "a TLS key without its certificate is refused", env: map[string]string{"STATEMENTD_TLS_KEY": "k.pem"}, wantErr: "set both or neither"},
		{name: "an unknown flag is refused", args: []string{"--colour=blue"}, wantErr: "flag provided but not defined"},
		{name: "a stray argument is refused", args: []string{"now"}, wantErr: `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tt.env[k] }
			c, err := ParseServe(tt.args, getenv, io.Discard)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
		})
	}
}

func TestParseDatabase(t *testing.T) {
	t.Parallel()
	d, err := ParseDatabase("migrate", []string{"--data-dir=/tmp/x"}, func(k string) string {
		return map[string]string{"DATABASE_URL": "postgres://h/db"}[k]
	}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, Database{URL: "postgres://h/db", DataDir: "/tmp/x"}, d)
}

// TestSecretsFromFiles: the database URL and the secret key can be read from files, so that
// they need be neither on a command line (which the process list shows) nor in the environment.
func TestSecretsFromFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		return path
	}
	url := write("url", "postgres://u:hunter2@db/x\n")
	key := write("key", "c2VjcmV0LWtleS1tYXRlcmlhbA==\r\n")
	empty := write("empty", "\n")
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		wantURL   string
		wantKey   string
		wantError string
	}{
		{name: "flags name the files; a final line break is not part of the value",
			args:    []string{"--database-url-file=" + url, "--secret-key-file=" + key},
			wantURL: "postgres://u:hunter2@db/x", wantKey: "c2VjcmV0LWtleS1tYXRlcmlhbA=="},
		{name: "so do the _FILE variables", env: map[string]string{"DATABASE_URL_FILE": url, "STATEMENTD_SECRET_KEY_FILE": key},
			wantURL: "postgres://u:hunter2@db/x", wantKey: "c2VjcmV0LWtleS1tYXRlcmlhbA=="},
		{name: "a value and a file for one setting are refused", args: []string{"--database-url=postgres://a/b"},
			env: map[string]string{"DATABASE_URL_FILE": url}, wantError: "--database-url (or DATABASE_URL) and --database-url-file (or DATABASE_URL_FILE) are both set"},
		{name: "a missing file is refused", args: []string{"--secret-key-file=" + filepath.Join(dir, "none")}, wantError: "--secret-key-file: open"},
		{name: "an empty file is refused", env: map[string]string{"STATEMENTD_SECRET_KEY_FILE": empty}, wantError: "is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseServe(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantError != "" {
				require.ErrorContains(t, err, tt.wantError)
				require.NotContains(t, err.Error(), "hunter2", "an error never shows the secret")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantURL, c.URL)
			require.Equal(t, tt.wantKey, c.SecretKey)
		})
	}
	d, err := ParseDatabase("migrate", []string{"--database-url-file=" + url}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "postgres://u:hunter2@db/x", d.URL, "every command that reaches the database reads the file")
}

// TestHelpHidesSecrets: -h lists every setting, but never a password or key from the environment.
func TestHelpHidesSecrets(t *testing.T) {
	t.Parallel()
	var help strings.Builder
	env := map[string]string{"DATABASE_URL": "postgres://u:hunter2@db/x", "STATEMENTD_SECRET_KEY": "c2VjcmV0LWtleS1tYXRlcmlhbA=="}
	_, err := ParseServe([]string{"-h"}, func(k string) string { return env[k] }, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, help.String(), "database-url")
	require.NotContains(t, help.String(), "hunter2")
	require.NotContains(t, help.String(), "c2VjcmV0")
}
