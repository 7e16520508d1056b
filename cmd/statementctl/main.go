// Command statementctl is a command line client of the Statement Matching Service, built on the
// Go SDK (gen/sdk/reconclient, gen/sdk/parseclient) only: it reconciles and parses bank statements,
// lists and exports parsing jobs, shows usage and quotas, manages webhook endpoints, and
// verifies webhook signatures. `statementctl help` lists the commands, the environment
// variables and the exit codes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/term"
)

// Exit codes, the contract with scripts; `statementctl help` and the README list them.
const (
	exitOK = 0
	// exitFailure: the service could not be reached or failed (5xx after the retries), a wait
	// timed out, or a local file could not be written.
	exitFailure = 1
	// exitUsage: bad flags or arguments, missing credentials, an input file that cannot be read.
	exitUsage = 2
	// exitRefused: the API refused the request (a 4xx answer); the message says what to do.
	exitRefused = 3
	// exitOutcome: the work finished unsuccessfully: a job ended failed (reconcile, parse), or
	// a test delivery did not succeed (webhooks test).
	exitOutcome = 4
	// exitInvalidSignature: verify-webhook found the delivery's signature invalid.
	exitInvalidSignature = 5
	// exitInterrupted: interrupted by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
	exitInterrupted = 130
)

func init() {
	// Amounts are exact decimals: print them as JSON numbers with the decimals the service
	// sent (1250.50), never as strings or trimmed.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, the next one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	a := &app{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv:          os.Getenv,
		now:             time.Now,
		stderrTerminal:  term.IsTerminal(int(os.Stderr.Fd())),
		stdinTerminal:   term.IsTerminal(int(os.Stdin.Fd())),
		readPassword:    func() ([]byte, error) { return term.ReadPassword(int(os.Stdin.Fd())) },
		pollInterval:    time.Second,
		plainProgressAt: 5 * time.Second,
	}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// app is one run of statementctl: its streams, environment and clock, so tests can run
// commands in process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// stderrTerminal: progress is drawn as one line rewritten in place; otherwise it is
	// written as plain lines, a few seconds apart, that read well in logs.
	stderrTerminal bool
	// stdinTerminal: nobody is piping a body, so verify-webhook needs --body-file, and a
	// password is typed at the terminal.
	stdinTerminal bool
	// readPassword reads a line typed at the terminal without echoing it.
	readPassword func() ([]byte, error)
	// pollInterval is how often a waiting command asks for the job's state.
	pollInterval time.Duration
	// plainProgressAt is the least time between two plain progress lines of one state.
	plainProgressAt time.Duration
	// target is the API the running command talks to, for the hints of its errors.
	target target
	// inspectFlags, when set, receives the command's flag set instead of the command running
	// (completion's flagsOf).
	inspectFlags func(*flag.FlagSet)
}

// command is one statementctl command.
type command struct {
	name    string // "reconcile", "webhooks add"
	args    string // positional arguments for the usage line, "BANK EXPECTED"
	summary string
	run     func(a *app, ctx context.Context, cmd command, args []string) error
}

// commands is every command, in the order `statementctl help` lists them; group starts a
// heading before the command.
var commands = []struct {
	group string
	command
}{
	{"Reconciliation API (--client-id, --client-secret)", command{"reconcile", "BANK EXPECTED", "upload a bank statement and the expected references, wait, print matched / partial / unmatched", (*app).cmdReconcile}},
	{"", command{"limits", "", "the monthly job quota of the environment", (*app).cmdLimits}},
	{"Parsing API (--api-key)", command{"parse", "FILE", "upload a bank statement, wait, print the job (and its transactions)", (*app).cmdParse}},
	{"", command{"jobs list", "", "parsing jobs, newest first", (*app).cmdJobsList}},
	{"", command{"jobs get", "ID", "one parsing job", (*app).cmdJobsGet}},
	{"", command{"results", "ID", "every transaction of a parsing job", (*app).cmdResults}},
	{"", command{"export", "ID", "download a parsing job's transactions as CSV or JSON, streamed to a file", (*app).cmdExport}},
	{"", command{"usage", "", "this month's parsing usage", (*app).cmdUsage}},
	{"", command{"status", "", "service status, plan and rate limit", (*app).cmdStatus}},
	{"", command{"webhooks add", "URL", "register a webhook endpoint; prints the signing secret", (*app).cmdWebhooksAdd}},
	{"", command{"webhooks list", "", "the webhook endpoints", (*app).cmdWebhooksList}},
	{"", command{"webhooks rm", "ID", "delete a webhook endpoint", (*app).cmdWebhooksRm}},
	{"", command{"webhooks test", "[ID]", "send a signed sample event now (to ID, or every enabled endpoint)", (*app).cmdWebhooksTest}},
	{"", command{"webhooks deliveries", "ID", "the deliveries to an endpoint, newest first, with their attempts", (*app).cmdWebhooksDeliveries}},
	{"Webhook receivers (no credentials)", command{"verify-webhook", "", "check a delivery's signature: body on stdin, headers as --header", (*app).cmdVerifyWebhook}},
	{"This program", command{"version", "", "statementctl's version, the commit it was built from and the Go release", (*app).cmdVersion}},
	{"", command{"login", "", "save base URLs and credentials as a profile (mode 0600), checked first; flags and environment still win", (*app).cmdLogin}},
	{"", command{"completion", "bash|zsh|fish", "print the shell completion script (e.g. source <(statementctl completion bash))", (*app).cmdCompletion}},
}

// version is statementctl's release, set at build time (-ldflags "-X main.version=v1.2.3");
// "dev" for a build from a work tree.
var version = "dev"

// cmdVersion prints the version, the commit and the Go release the binary was built with.
func (a *app) cmdVersion(_ context.Context, cmd command, args []string) error {
	fs := newFlags(cmd)
	if _, err := a.parseArgs(fs, cmd, args, 0, 0); err != nil {
		return err
	}
	commit, modified := "unknown", false
	goVersion := runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += " (modified)"
	}
	fmt.Fprintf(a.stdout, "statementctl %s\ncommit %s\n%s %s/%s\n", version, commit, goVersion, runtime.GOOS, runtime.GOARCH)
	return nil
}

// find returns the command that args start with and the arguments after its name; a
// two-word name ("jobs list") is tried before a one-word one.
func find(args []string) (command, []string, bool) {
	for _, n := range []int{2, 1} {
		if len(args) < n {
			continue
		}
		name := strings.Join(args[:n], " ")
		for _, c := range commands {
			if c.name == name {
				return c.command, args[n:], true
			}
		}
	}
	return command{}, nil, false
}

// run runs the command line args (without the program name) and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		a.printHelp(a.stderr)
		return exitUsage
	}
	switch args[0] {
	case completeCommand:
		a.complete(args[1:])
		return exitOK
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			// `help CMD` is `CMD -h`.
			return a.run(ctx, append(slices.Clone(args[1:]), "-h"))
		}
		a.printHelp(a.stdout)
		return exitOK
	}
	cmd, rest, ok := find(args)
	if !ok {
		err := unknownCommand(args)
		a.report(err)
		return exitCode(err)
	}
	err := cmd.run(a, ctx, cmd, rest)
	if err != nil && !errors.Is(err, errHelpShown) {
		a.report(err)
	}
	return exitCode(err)
}

// unknownCommand says which commands exist, for the group the user named if any.
func unknownCommand(args []string) error {
	var subs []string
	for _, c := range commands {
		if group, sub, ok := strings.Cut(c.name, " "); ok && group == args[0] {
			subs = append(subs, sub)
		}
	}
	if len(subs) > 0 {
		if len(args) == 1 {
			return usagef("%s needs a subcommand: %s", args[0], strings.Join(subs, ", "))
		}
		return usagef("unknown command %q: %s takes %s", args[0]+" "+args[1], args[0], strings.Join(subs, ", "))
	}
	return usagef("unknown command %q; run 'statementctl help' for the list", args[0])
}

// helpText follows the command list in `statementctl help`.
const helpText = `
Environment (a flag wins over its variable):
  STATEMENT_BASE_URL         Reconciliation API base URL (default http://localhost:8080,
                             with --sandbox http://localhost:8081)
  STATEMENT_PARSE_BASE_URL   Parsing API base URL (default http://localhost:8082); separate
                             because the two APIs serve the same paths on different addresses
  STATEMENT_CLIENT_ID        Reconciliation API client id (--client-id)
  STATEMENT_CLIENT_SECRET    Reconciliation API client secret (--client-secret)
  STATEMENT_API_KEY          Parsing API key (--api-key)
  STATEMENT_WEBHOOK_SECRET   signing secret for verify-webhook (--secret)
  STATEMENT_PDF_PASSWORD     password of a protected PDF statement (parse, reconcile; or
                             --password, which asks for it)
  STATEMENT_PROFILE          the saved profile to use (--profile; default "default")
  STATEMENT_CONFIG           the profile file (default ~/.config/statementctl/config.json)
A setting no flag or variable gives comes from the profile (statementctl login), else the
default. Prefer the variables or a profile for secrets: flags are visible to other users in
the process list.

Exit codes:
  0    success
  1    the service could not be reached or failed (5xx after retries), a wait timed out,
       or a local file could not be written
  2    usage error: bad flags or arguments, missing credentials, an unreadable input file
  3    the API refused the request (4xx); the message gives the code, the detail, the
       request id, and what to do
  4    the work finished unsuccessfully: the job failed (reconcile, parse), or a test
       delivery did not succeed (webhooks test)
  5    the webhook signature is invalid (verify-webhook)
  130  interrupted

Run 'statementctl COMMAND -h' (or 'statementctl help COMMAND') for a command's flags.
`

// printHelp writes the overview: commands by API, environment, exit codes.
func (a *app) printHelp(w io.Writer) {
	fmt.Fprintln(w, "statementctl: a command line client of the Statement Matching Service.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: statementctl COMMAND [flags] [arguments]")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name)+1+len(c.args))
	}
	for _, c := range commands {
		if c.group != "" {
			fmt.Fprintf(w, "\n%s:\n", c.group)
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprintf(w, "\n  %-*s  %s\n", width, "help [COMMAND]", "this text, or a command's flags")
	fmt.Fprint(w, helpText)
}
