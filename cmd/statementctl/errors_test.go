package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	refused := &parseclient.APIError{StatusCode: 404, Code: "NOT_FOUND"}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success is 0", nil, exitOK},
		{"a shown -h is 0", errHelpShown, exitOK},
		{"a usage error is 2", usagef("no API key"), exitUsage},
		{"a parsing API 4xx is 3", refused, exitRefused},
		{"a wrapped reconciliation API 4xx is 3", fmt.Errorf("get an access token: %w", &reconclient.APIError{StatusCode: 401}), exitRefused},
		{"a 429 after the retries is 3", &reconclient.APIError{StatusCode: 429, Code: "LIMIT_EXCEEDED"}, exitRefused},
		{"a 5xx after the retries is 1", &parseclient.APIError{StatusCode: 503}, exitFailure},
		{"a failed connection is 1", &url.Error{Op: "Get", URL: "http://localhost:8082", Err: errors.New("connection refused")}, exitFailure},
		{"a local write failure is 1", errors.New("export to out.csv: no space left on device"), exitFailure},
		{"a failed job is 4", &outcomeError{msg: "job x failed"}, exitOutcome},
		{"an invalid signature is 5", &signatureError{err: parseclient.ErrWebhookSignature}, exitInvalidSignature},
		{"an interrupt is 130", context.Canceled, exitInterrupted},
		{"an interrupted request is 130", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, exitInterrupted},
		{"an interrupted wait is 130", &interruptedError{note: "job x keeps running"}, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, exitCode(tt.err))
		})
	}
}

func TestHint(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 0, 0, 0, time.UTC)
	parsing := parseTarget
	parsing.baseURL = "http://localhost:8082"
	recon := reconTarget
	recon.baseURL = "http://localhost:8080"
	tests := []struct {
		name   string
		err    error
		target target
		want   string
	}{
		{"a 401 of the Parsing API points at the API key", &parseclient.APIError{StatusCode: 401, Code: "AUTH_INVALID"}, parsing,
			"check the API key (--api-key or STATEMENT_API_KEY): the service at http://localhost:8082 does not accept them"},
		{"a 401 of the token request points at the client credentials", fmt.Errorf("get an access token: %w", &reconclient.APIError{StatusCode: 401}), recon,
			"check the client credentials (--client-id and --client-secret, or STATEMENT_CLIENT_ID and STATEMENT_CLIENT_SECRET): the service at http://localhost:8080 does not accept them"},
		{"a 403 names what is missing", &reconclient.APIError{StatusCode: 403, Code: "FORBIDDEN"}, recon,
			"the API client lacks the permission this command needs (the detail names it); ask the operator for one that has it"},
		{"a rate limit says when to retry", &parseclient.APIError{StatusCode: 429, Code: "RATE_LIMITED", RetryAfter: 42 * time.Second}, parsing,
			"retry in 42s (after 14:00:42 UTC)"},
		{"a monthly quota says when it resets", &reconclient.APIError{StatusCode: 429, Code: "LIMIT_EXCEEDED", RetryAfter: 26 * 24 * time.Hour}, recon,
			"the limit resets at 2026-03-31T14:00:00Z; retry then"},
		{"a 429 without Retry-After still says to wait", &parseclient.APIError{StatusCode: 429}, parsing,
			"too many requests: wait a minute and retry"},
		{"results of an unfinished job point at jobs get", &parseclient.APIError{StatusCode: 409, Code: "JOB_NOT_READY"}, parsing,
			"the job has not finished or has failed: see 'statementctl jobs get ID'"},
		{"a reused idempotency key asks for a new one", &parseclient.APIError{StatusCode: 422, Code: "IDEMPOTENCY_KEY_REUSED"}, parsing,
			"this --idempotency-key was used for a different request; choose a new one"},
		{"a 5xx asks to try later with the request id", &parseclient.APIError{StatusCode: 503}, parsing,
			"the service failed, also on retries; try again later, and quote the request id if it persists"},
		{"a failed connection asks whether the service runs there", &url.Error{Op: "Get", URL: "http://localhost:8082/x", Err: errors.New("connection refused")}, parsing,
			"is the parsing API running at http://localhost:8082? Set --base-url or STATEMENT_PARSE_BASE_URL"},
		{"a 404 says enough on its own", &parseclient.APIError{StatusCode: 404, Code: "NOT_FOUND"}, parsing, ""},
		{"a local error has no hint", errors.New("export to out.csv: permission denied"), parsing, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, hint(tt.err, tt.target, now))
		})
	}
}
