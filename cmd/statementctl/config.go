package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The environment variables statementctl reads; a flag wins over its variable.
const (
	envBaseURL       = "STATEMENT_BASE_URL"
	envParseBaseURL  = "STATEMENT_PARSE_BASE_URL"
	envClientID      = "STATEMENT_CLIENT_ID"
	envClientSecret  = "STATEMENT_CLIENT_SECRET"
	envAPIKey        = "STATEMENT_API_KEY"
	envWebhookSecret = "STATEMENT_WEBHOOK_SECRET"
)

// The base URLs of a local `statementd serve` with its default listeners. The two APIs serve
// the same paths (/api/v1/jobs), so they cannot share a base URL.
const (
	defaultReconURL   = "http://localhost:8080"
	defaultSandboxURL = "http://localhost:8081"
	defaultParseURL   = "http://localhost:8082"
)

// newFlags returns a command's flag set; parseArgs reports its errors and its -h.
func newFlags(cmd command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses a command's arguments into fs and returns the positional ones, of which
// there must be between min and max. Flags may come before, between or after the positional
// arguments; "--" ends the flags. -h prints the command's usage and returns errHelpShown.
func (a *app) parseArgs(fs *flag.FlagSet, cmd command, args []string, min, max int) ([]string, error) {
	if a.inspectFlags != nil {
		// Completion asks for the command's flags only: nothing is parsed or run.
		a.inspectFlags(fs)
		return nil, errHelpShown
	}
	var positional []string
	for {
		err := fs.Parse(args)
		if err == flag.ErrHelp {
			printUsage(a.stdout, fs, cmd)
			return nil, errHelpShown
		}
		if err != nil {
			return nil, &usageError{msg: err.Error(), cmd: cmd.name}
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	switch {
	case len(positional) < min:
		return nil, &usageError{msg: "needs " + cmd.args, cmd: cmd.name}
	case len(positional) > max:
		return nil, &usageError{msg: fmt.Sprintf("unexpected argument %q", positional[max]), cmd: cmd.name}
	}
	return positional, nil
}

// printUsage writes a command's usage line, summary and flags.
func printUsage(w io.Writer, fs *flag.FlagSet, cmd command) {
	summary := cmd.summary
	if summary != "" {
		summary = strings.ToUpper(summary[:1]) + summary[1:]
	}
	fmt.Fprintf(w, "Usage: statementctl %s [flags]\n\n%s.\n", strings.TrimSpace(cmd.name+" "+cmd.args), summary)
	fmt.Fprintln(w, "\nFlags:")
	tw := newTable(w)
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if len(f.Name) == 1 {
			left = "-" + f.Name
		}
		if value != "" {
			left += " " + value
		}
		switch f.DefValue {
		case "", "false", "0", "0s":
		default:
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", left, usage)
	})
	_ = tw.Flush()
}

// given reports whether flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// setting returns the value of flag name when it was given, else the environment variable env
// when it is set, else def; source names where the value came from, for error messages.
func setting(fs *flag.FlagSet, name string, getenv func(string) string, env, def string) (value, source string) {
	if given(fs, name) {
		return fs.Lookup(name).Value.String(), "--" + name
	}
	if v := getenv(env); v != "" {
		return v, env
	}
	return def, "the default"
}

// normalizeBaseURL checks that raw is an http or https URL and returns it without a trailing
// slash or /api/v1 (the SDK adds the paths).
func normalizeBaseURL(raw, source string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usagef("the base URL %q from %s is not an http or https URL (like http://localhost:8082)", raw, source)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String(), nil
}

// addReconFlags registers the connection flags of the Reconciliation API.
func addReconFlags(fs *flag.FlagSet) {
	fs.String("base-url", "", "Reconciliation API base `URL`; default $"+envBaseURL+", else "+defaultReconURL+" ("+defaultSandboxURL+" with --sandbox)")
	fs.String("client-id", "", "API client `id`; default $"+envClientID)
	fs.String("client-secret", "", "API client `secret`; default $"+envClientSecret)
	fs.Bool("sandbox", false, "the sandbox environment: "+defaultSandboxURL+" unless a base URL is set; reconcile marks its job env=sandbox, which a production base URL refuses")
	fs.Bool("verbose", false, "trace each HTTP request and response on stderr (credentials masked)")
	addProfileFlag(fs)
}

// reconSettings is how to reach the Reconciliation API.
type reconSettings struct {
	BaseURL, ClientID, ClientSecret string
	Sandbox                         bool
	// Verbose traces the HTTP exchanges on stderr (--verbose).
	Verbose bool
}

// reconSettingsOf resolves the Reconciliation API settings from fs (after parsing), the
// environment and the profile p, in that order.
func reconSettingsOf(fs *flag.FlagSet, getenv func(string) string, p profile) (reconSettings, error) {
	s := reconSettings{Sandbox: fs.Lookup("sandbox").Value.String() == "true", Verbose: fs.Lookup("verbose").Value.String() == "true"}
	def, saved := defaultReconURL, p.BaseURL
	if s.Sandbox {
		def, saved = defaultSandboxURL, p.SandboxBaseURL
	}
	v, source := setting(fs, "base-url", getenv, envBaseURL, "")
	base, source := fromProfile(v, source, p, saved, def)
	var err error
	if s.BaseURL, err = normalizeBaseURL(base, source); err != nil {
		return reconSettings{}, err
	}
	v, source = setting(fs, "client-id", getenv, envClientID, "")
	s.ClientID, _ = fromProfile(v, source, p, p.ClientID, "")
	v, source = setting(fs, "client-secret", getenv, envClientSecret, "")
	s.ClientSecret, _ = fromProfile(v, source, p, p.ClientSecret, "")
	switch {
	case s.ClientID == "" && s.ClientSecret == "":
		return reconSettings{}, usagef("no client credentials: pass --client-id and --client-secret, or set %s and %s (or save them: statementctl login)", envClientID, envClientSecret)
	case s.ClientID == "":
		return reconSettings{}, usagef("no client id: pass --client-id or set %s", envClientID)
	case s.ClientSecret == "":
		return reconSettings{}, usagef("no client secret: pass --client-secret or set %s", envClientSecret)
	}
	return s, nil
}

// addParseFlags registers the connection flags of the Parsing API.
func addParseFlags(fs *flag.FlagSet) {
	fs.String("base-url", "", "Parsing API base `URL`; default $"+envParseBaseURL+", else "+defaultParseURL)
	fs.String("api-key", "", "Parsing API `key` (smk_live_...); default $"+envAPIKey)
	fs.Bool("verbose", false, "trace each HTTP request and response on stderr (credentials masked)")
	addProfileFlag(fs)
}

// parseSettings is how to reach the Parsing API.
type parseSettings struct {
	BaseURL, APIKey string
	// Verbose traces the HTTP exchanges on stderr (--verbose).
	Verbose bool
}

// parseSettingsOf resolves the Parsing API settings from fs (after parsing), the environment
// and the profile p, in that order.
func parseSettingsOf(fs *flag.FlagSet, getenv func(string) string, p profile) (parseSettings, error) {
	v, source := setting(fs, "base-url", getenv, envParseBaseURL, "")
	base, source := fromProfile(v, source, p, p.ParseBaseURL, defaultParseURL)
	s := parseSettings{Verbose: fs.Lookup("verbose").Value.String() == "true"}
	var err error
	if s.BaseURL, err = normalizeBaseURL(base, source); err != nil {
		return parseSettings{}, err
	}
	v, source = setting(fs, "api-key", getenv, envAPIKey, "")
	if s.APIKey, _ = fromProfile(v, source, p, p.APIKey, ""); s.APIKey == "" {
		return parseSettings{}, usagef("no API key: pass --api-key or set %s (or save one: statementctl login)", envAPIKey)
	}
	return s, nil
}

// httpClient sends the SDK's requests. Unlike the SDK's default client it has no limit on a
// whole exchange (5 minutes there), so an export streams for as long as data keeps coming;
// an answer's headers must still arrive within 2 minutes, and Ctrl-C ends any wait.
// With trace set, each exchange is written to it (tracer).
func httpClient(trace io.Writer) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 2 * time.Minute
	if trace == nil {
		return &http.Client{Transport: metering{next: t}}
	}
	return &http.Client{Transport: tracer{next: metering{next: t}, w: trace}}
}

// tracer writes each request's line and the headers that matter, and each answer's status,
// time and the headers a support question needs (--verbose). Credentials are masked: the
// Authorization header shows its scheme only, and bodies (which carry a token request's
// secret) are never written.
type tracer struct {
	next http.RoundTripper
	w    io.Writer
}

func (t tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	fmt.Fprintf(t.w, "> %s %s\n", req.Method, req.URL.Redacted())
	if auth := req.Header.Get("Authorization"); auth != "" {
		scheme, _, _ := strings.Cut(auth, " ")
		fmt.Fprintf(t.w, "> Authorization: %s ****\n", scheme)
	}
	for _, h := range []string{"Content-Type", "Idempotency-Key", "X-Request-Id"} {
		if v := req.Header.Get(h); v != "" {
			fmt.Fprintf(t.w, "> %s: %s\n", h, v)
		}
	}
	if req.ContentLength > 0 {
		fmt.Fprintf(t.w, "> Content-Length: %d\n", req.ContentLength)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(t.w, "< no answer after %s: %v\n", took, err)
		return resp, err
	}
	fmt.Fprintf(t.w, "< %s %s (%s)\n", resp.Proto, resp.Status, took)
	for _, h := range []string{"X-Request-Id", "Content-Type", "Content-Length", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(t.w, "< %s: %s\n", h, v)
		}
	}
	return resp, nil
}
