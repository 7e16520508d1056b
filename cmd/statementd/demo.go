package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
	"github.com/statementmatch/service/internal/platform/config"
)

// createDemo makes the account a fresh embedded database starts with, so that the README's
// walk-throughs work right after `make run`: "Demo" on the pro reconciliation plan and the
// starter parsing plan, with an API client of every permission, an API key of every scope and,
// when the dashboard listens, an owner (demo@example.com) with a link to set their password.
// The secrets are shown once, on stdout, as the environment statementctl and the examples read;
// like every secret they are stored only hashed (or sealed), so they cannot be shown again
// (`statementd admin` makes new ones).
func createDemo(ctx context.Context, accounts *account.Service, team *people.Service, cfg config.Serve, out io.Writer) error {
	a, err := accounts.CreateAccount(ctx, "Demo", account.ReconPro, account.ParseStarter)
	if err != nil {
		return err
	}
	client, secret, err := accounts.CreateClient(ctx, audit.Operator, a.ID, nil)
	if err != nil {
		return err
	}
	_, key, err := accounts.CreateAPIKey(ctx, audit.Operator, a.ID, nil)
	if err != nil {
		return err
	}
	dashboard := ""
	if cfg.DashboardAddr != "" && cfg.Role != config.RoleWorker {
		_, token, err := team.Invite(ctx, audit.Operator, a.ID, "demo@example.com", people.Owner)
		if err != nil {
			return err
		}
		dashboard = fmt.Sprintf(`The account dashboard's owner is demo@example.com; set a password (this link works once, for
72 hours): %s/set-password/%s

`, baseURL(cfg.DashboardAddr), token)
	}
	_, err = fmt.Fprintf(out, `
This embedded database was just created, with a demo account. Its credentials are shown this
once (they are stored hashed); paste them into a shell to follow the README:

  export STATEMENT_BASE_URL=%s
  export STATEMENT_PARSE_BASE_URL=%s
  export STATEMENT_CLIENT_ID=%s
  export STATEMENT_CLIENT_SECRET=%s
  export STATEMENT_API_KEY=%s

%s`, baseURL(cfg.ReconAddr), baseURL(cfg.ParseAddr), client.ID, secret, key, dashboard)
	return err
}

// baseURL is the local URL of a listener address such as ":8080"; "" when it is disabled.
func baseURL(addr string) string {
	if addr == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
