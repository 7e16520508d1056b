// Command statementd is the Statement Matching Service: `serve` runs the API listeners and
// workers, `migrate` applies the database migrations, `admin` manages accounts and their
// credentials. This package only wires the parts in internal/ together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/platform/logdedup"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `statementd: the Statement Matching Service

Usage:
  statementd serve [flags]     run the API listeners and the workers (--role=all|api|worker)
  statementd migrate [flags]   apply pending database migrations and exit
  statementd admin ...         manage accounts, API clients, API keys and signing secrets
                               ("statementd admin help" lists the commands)
  statementd version           print the version

Run "statementd COMMAND -h" for a command's flags. Every flag is also an environment
variable (shown in the flag's help); a flag wins over its variable.
`

func main() {
	// Amounts are JSON numbers with the currency's decimals (1250.50), never strings or
	// shortened: set once, before anything marshals a decimal.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "statementd:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stderr)
	case "admin":
		return admin(ctx, args[1:], getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// newLogger returns the process's structured JSON logger, which writes a warning or error that
// keeps repeating (a dependency down) once a minute with its count (logdedup).
// The returned flush writes the counts still pending: call it as the command ends.
func newLogger(w io.Writer, level slog.Level) (logger *slog.Logger, flush func()) {
	h := logdedup.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}), logdedup.DefaultInterval)
	return slog.New(h).With(slog.String("service", "statementd")), h.Flush
}
