package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// usageError is a command line that cannot run: bad flags or arguments, missing credentials,
// an unreadable input file. Exit code 2.
type usageError struct {
	msg string
	// cmd is the command whose -h helps; empty when the message says enough.
	cmd string
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// outcomeError is work the service finished unsuccessfully: a failed job, a test delivery that
// did not succeed. Exit code 4.
type outcomeError struct{ msg string }

func (e *outcomeError) Error() string { return e.msg }

// signatureError is a webhook delivery whose signature does not verify. Exit code 5.
type signatureError struct{ err error }

func (e *signatureError) Error() string { return "invalid webhook: " + e.err.Error() }
func (e *signatureError) Unwrap() error { return e.err }

// interruptedError is a run stopped by a signal, with what the user should know about the work
// left behind. Exit code 130.
type interruptedError struct{ note string }

func (e *interruptedError) Error() string { return "interrupted; " + e.note }
func (e *interruptedError) Unwrap() error { return context.Canceled }

// errHelpShown ends a run whose -h printed the usage: exit code 0, nothing more to say.
var errHelpShown = errors.New("help shown")

// apiFailure is an error answer of either API, in one shape.
type apiFailure struct {
	status     int
	code       string
	retryAfter time.Duration
}

// apiFailureOf finds the SDK's *APIError of either API in err's chain.
func apiFailureOf(err error) (apiFailure, bool) {
	if e, ok := errors.AsType[*reconclient.APIError](err); ok {
		return apiFailure{status: e.StatusCode, code: string(e.Code), retryAfter: e.RetryAfter}, true
	}
	if e, ok := errors.AsType[*parseclient.APIError](err); ok {
		return apiFailure{status: e.StatusCode, code: string(e.Code), retryAfter: e.RetryAfter}, true
	}
	return apiFailure{}, false
}

// exitCode maps the outcome of a command to the documented exit codes.
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	if _, ok := errors.AsType[*usageError](err); ok {
		return exitUsage
	}
	if _, ok := errors.AsType[*outcomeError](err); ok {
		return exitOutcome
	}
	if _, ok := errors.AsType[*signatureError](err); ok {
		return exitInvalidSignature
	}
	if f, ok := apiFailureOf(err); ok && f.status >= 400 && f.status < 500 {
		return exitRefused
	}
	return exitFailure
}

// target is the API a command talks to, for hints that name the right flags and variables.
type target struct {
	api     string // "reconciliation", "parsing"
	baseURL string
	baseEnv string // the variable that sets baseURL
	// creds names the credentials and where they come from.
	creds string
	// holder and grant are what the credentials are and what they carry: "API client" and
	// "permission", or "API key" and "scope".
	holder, grant string
}

var (
	reconTarget = target{api: "reconciliation", baseEnv: envBaseURL,
		creds:  "the client credentials (--client-id and --client-secret, or " + envClientID + " and " + envClientSecret + ")",
		holder: "API client", grant: "permission"}
	parseTarget = target{api: "parsing", baseEnv: envParseBaseURL,
		creds:  "the API key (--api-key or " + envAPIKey + ")",
		holder: "API key", grant: "scope"}
)

// report writes err to stderr: one line with the error (an API error's status, code, detail and
// request id) and, where one helps, a line that says what to do.
func (a *app) report(err error) {
	if errors.Is(err, context.Canceled) {
		if e, ok := errors.AsType[*interruptedError](err); ok {
			fmt.Fprintf(a.stderr, "statementctl: %s\n", e.Error())
		} else {
			fmt.Fprintln(a.stderr, "statementctl: interrupted")
		}
		return
	}
	if u, ok := errors.AsType[*usageError](err); ok && u.cmd != "" {
		fmt.Fprintf(a.stderr, "statementctl %s: %s\nRun 'statementctl %s -h' for its usage.\n", u.cmd, u.msg, u.cmd)
		return
	}
	fmt.Fprintf(a.stderr, "statementctl: %s\n", err)
	if h := hint(err, a.target, a.now()); h != "" {
		fmt.Fprintf(a.stderr, "statementctl: %s\n", h)
	}
}

// hint says what to do about err, or nothing when the message says enough.
func hint(err error, t target, now time.Time) string {
	f, ok := apiFailureOf(err)
	if !ok {
		if _, isURL := errors.AsType[*url.Error](err); isURL && t.api != "" {
			return fmt.Sprintf("is the %s API running at %s? Set --base-url or %s", t.api, t.baseURL, t.baseEnv)
		}
		return ""
	}
	switch {
	case f.status == 401:
		return fmt.Sprintf("check %s: the service at %s does not accept them", t.creds, t.baseURL)
	case f.status == 403:
		return fmt.Sprintf("the %s lacks the %s this command needs (the detail names it); ask the operator for one that has it", t.holder, t.grant)
	case f.status == 429:
		return retryHint(f.retryAfter, now)
	case f.status == 413:
		return "the file is over the service's size or row limit"
	case f.code == "IDEMPOTENCY_CONFLICT":
		return "a request with this idempotency key is still in progress; retry in a moment"
	case f.code == "IDEMPOTENCY_KEY_REUSED":
		return "this --idempotency-key was used for a different request; choose a new one"
	case f.code == "JOB_NOT_READY" && t.api == "parsing":
		return "the job has not finished or has failed: see 'statementctl jobs get ID'"
	case f.status >= 500:
		return "the service failed, also on retries; try again later, and quote the request id if it persists"
	}
	return ""
}

// retryHint says when a rate or quota limit lets the next request through.
func retryHint(after time.Duration, now time.Time) string {
	if after <= 0 {
		return "too many requests: wait a minute and retry"
	}
	at := now.Add(after).UTC()
	if after < time.Hour {
		return fmt.Sprintf("retry in %s (after %s)", after.Round(time.Second), at.Format("15:04:05 UTC"))
	}
	return fmt.Sprintf("the limit resets at %s; retry then", at.Format(time.RFC3339))
}

// reconOK is nil for a Reconciliation API success whose body the SDK read (decoded); otherwise
// the API's refusal (*reconclient.APIError) or an unexpected-body error.
func reconOK(resp *http.Response, body []byte, decoded bool) error {
	return answerOK("reconciliation", reconclient.Check(resp, body), resp, decoded)
}

// parseOK is reconOK for the Parsing API.
func parseOK(resp *http.Response, body []byte, decoded bool) error {
	return answerOK("parsing", parseclient.Check(resp, body), resp, decoded)
}

// answerOK is the API's refusal, or, for a success status whose body the SDK could not read as
// the spec says, an error that says so.
func answerOK(api string, refused error, resp *http.Response, decoded bool) error {
	if refused != nil || decoded {
		return refused
	}
	return fmt.Errorf("the %s API answered %d with an unexpected body (Content-Type %q)", api, resp.StatusCode, resp.Header.Get("Content-Type"))
}
