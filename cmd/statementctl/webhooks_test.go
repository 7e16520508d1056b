package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testSecret is a Standard Webhooks secret: "whsec_" and base64.
const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// signedHeaders returns --header flags that sign body at ts both ways the service does.
func signedHeaders(body string, ts time.Time) []string {
	t := strconv.FormatInt(ts.Unix(), 10)
	m := hmac.New(sha256.New, []byte(testSecret))
	m.Write([]byte(t + "." + body))
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(testSecret, "whsec_"))
	sw := hmac.New(sha256.New, key)
	sw.Write([]byte("d-1." + t + "." + body))
	return []string{
		"--header", "X-Service-Signature: " + hex.EncodeToString(m.Sum(nil)),
		"--header", "X-Service-Timestamp: " + t,
		"--header", "X-Service-Delivery-Id: d-1",
		"--header", "webhook-id: d-1",
		"--header", "webhook-timestamp:" + t, // no space after the colon is fine too
		"--header", "webhook-signature: v1," + base64.StdEncoding.EncodeToString(sw.Sum(nil)),
	}
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	const body = `{"data":{"job_id":"3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f","status":"completed"},"event":"job.completed"}`
	now := time.Now()
	bodyFile := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(bodyFile, []byte(body), 0o600))
	secretEnv := map[string]string{envWebhookSecret: testSecret}
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		stdin      string
		terminal   bool
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "a signed body is valid", args: signedHeaders(body, now), env: secretEnv, stdin: body,
			wantCode: exitOK, wantStdout: "valid: delivery d-1\n"},
		{name: "the Standard Webhooks headers alone are enough", args: signedHeaders(body, now)[6:], env: secretEnv, stdin: body,
			wantCode: exitOK, wantStdout: "valid: delivery d-1\n"},
		{name: "--secret wins over the variable", args: append([]string{"--secret", testSecret}, signedHeaders(body, now)...),
			env: map[string]string{envWebhookSecret: "whsec_b3RoZXI="}, stdin: body, wantCode: exitOK, wantStdout: "valid: delivery d-1\n"},
		{name: "the body may come from a file", args: append([]string{"--body-file", bodyFile}, signedHeaders(body, now)...), env: secretEnv,
			terminal: true, wantCode: exitOK, wantStdout: "valid: delivery d-1\n"},
		{name: "a changed body is invalid", args: signedHeaders(body, now), env: secretEnv, stdin: body + "\n",
			wantCode: exitInvalidSignature, wantStderr: "statementctl: invalid webhook: no webhook signature matches\n"},
		{name: "another secret is invalid", args: signedHeaders(body, now), env: map[string]string{envWebhookSecret: "whsec_b3RoZXI="}, stdin: body,
			wantCode: exitInvalidSignature, wantStderr: "statementctl: invalid webhook: no webhook signature matches\n"},
		{name: "an old delivery is invalid", args: signedHeaders(body, now.Add(-10*time.Minute)), env: secretEnv, stdin: body,
			wantCode: exitInvalidSignature, wantStderr: "is outside the tolerance"},
		{name: "--tolerance accepts an older one", args: append([]string{"--tolerance", "15m"}, signedHeaders(body, now.Add(-10*time.Minute))...), env: secretEnv, stdin: body,
			wantCode: exitOK, wantStdout: "valid: delivery d-1\n"},
		{name: "headers without a signature are invalid", args: []string{"--header", "Content-Type: application/json"}, env: secretEnv, stdin: body,
			wantCode: exitInvalidSignature, wantStderr: "webhook signature headers are missing or malformed"},
		{name: "no secret is a usage error", args: signedHeaders(body, now), stdin: body,
			wantCode: exitUsage, wantStderr: "statementctl: no signing secret: pass --secret or set STATEMENT_WEBHOOK_SECRET\n"},
		{name: "no headers is a usage error", env: secretEnv, stdin: body,
			wantCode: exitUsage, wantStderr: "no headers: pass the delivery's signature headers with --header 'Name: value'"},
		{name: "a header without a colon is a usage error", args: []string{"--header", "X-Service-Signature abc"}, env: secretEnv, stdin: body,
			wantCode: exitUsage, wantStderr: `"X-Service-Signature abc" is not 'Name: value'`},
		{name: "a terminal on stdin asks for the body instead of waiting", args: signedHeaders(body, now), env: secretEnv, terminal: true,
			wantCode: exitUsage, wantStderr: "no body: pipe the delivery's raw body on stdin or pass --body-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, stdout, stderr := testApp(tt.env)
			a.stdin, a.stdinTerminal = strings.NewReader(tt.stdin), tt.terminal
			code := a.run(context.Background(), append([]string{"verify-webhook"}, tt.args...))
			require.Equal(t, tt.wantCode, code, "stderr: %s", stderr)
			require.Equal(t, tt.wantStdout, stdout.String())
			require.Contains(t, stderr.String(), tt.wantStderr)
		})
	}
}

// testApp returns an app with the environment env, buffers for its output, no terminal, a
// fixed clock and fast polling.
func testApp(env map[string]string) (*app, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	now := time.Date(2026, 3, 5, 14, 0, 0, 0, time.UTC)
	if _, ok := env[envConfig]; !ok {
		// Never the profiles of whoever runs the tests.
		env = maps.Clone(env)
		if env == nil {
			env = map[string]string{}
		}
		env[envConfig] = filepath.Join(os.TempDir(), "statementctl-tests-have-no-profiles", "config.json")
	}
	return &app{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: envOf(env), now: func() time.Time { return now },
		pollInterval: 5 * time.Millisecond, plainProgressAt: 5 * time.Second,
	}, &stdout, &stderr
}
