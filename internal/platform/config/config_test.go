package config

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
					ReconAddr: ":8080", ReconSandboxAddr: ":8081", ParseAddr: ":8082", OpsAddr: ":9090",
					Role: RoleAll, MaxUploadBytes: 26214400, Migrate: true,
					ShutdownTimeout: 30 * time.Second, LogLevel: slog.LevelInfo,
				}, c)
			},
		},
		{
			name: "environment variables replace defaults",
			env: map[string]string{"DATABASE_URL": "postgres://db/x", "STATEMENTD_PARSE_ADDR": "127.0.0.1:9999",
				"STATEMENTD_ROLE": "worker", "STATEMENTD_MAX_UPLOAD_BYTES": "1024", "STATEMENTD_MIGRATE": "false",
				"STATEMENTD_LOG_LEVEL": "debug"},
			check: func(t *testing.T, c Serve) {
				require.Equal(t, "postgres://db/x", c.URL)
				require.Equal(t, "127.0.0.1:9999", c.ParseAddr)
				require.Equal(t, RoleWorker, c.Role)
				require.EqualValues(t, 1024, c.MaxUploadBytes)
				require.False(t, c.Migrate)
				require.Equal(t, slog.LevelDebug, c.LogLevel)
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
		{name: "a negative shutdown timeout is refused", args: []string{"--shutdown-timeout=-1s"}, wantErr: "positive duration"},
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
