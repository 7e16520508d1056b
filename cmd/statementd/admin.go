package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
	"github.com/statementmatch/service/internal/platform/config"
	"github.com/statementmatch/service/internal/platform/secretbox"
	"github.com/statementmatch/service/internal/postgres"
)

const adminUsage = `Usage: statementd admin COMMAND [flags]

Commands:
  account create --name N [--recon-plan standard|pro] [--parse-plan free|starter|pro|business]
  account list
  account delete ACCOUNT_ID --yes
                        removes the account and everything it owns (jobs, files, results,
                        credentials, webhooks, people, audit log), for good
  client create --account ID [--permissions jobs:read,jobs:write,limits:read]
  client list --account ID
                        the account's Reconciliation API clients, revoked ones included
  client revoke CLIENT_ID
  client rotate CLIENT_ID [--overlap 24h]
                        a new secret; the current one keeps working for the overlap (0s: stops now)
  key create --account ID [--scopes jobs:read,jobs:write,webhooks:manage,export:read,usage:read]
  key revoke KEY_ID
  key list --account ID
                        the account's Parsing API keys (their prefixes), revoked ones included
  signing-secret show --account ID
  signing-secret rotate --account ID
  user invite --account ID --email E --role owner|developer|viewer [--dashboard-url URL]
                        prints a one-time link (72 h) with which the user sets a password;
                        URL is the dashboard's (env STATEMENTD_DASHBOARD_URL, default
                        http://localhost:8083)
  user reset-second-factor --account ID --email E
                        removes the user's authenticator, lost with no other owner to remove it

Every command also takes:
  --json                print one JSON object instead of text
  --database-url URL    PostgreSQL URL (env DATABASE_URL); empty uses the embedded cluster of the data dir
  --data-dir DIR        data dir (env STATEMENTD_DATA_DIR, default ./.statementd)
  --secret-key KEY      base64 of 32 bytes sealing webhook signing secrets (env STATEMENTD_SECRET_KEY);
                        default: the data dir's secret.key
  --database-url-file F, --secret-key-file F
                        read the URL or the key from a file (env DATABASE_URL_FILE,
                        STATEMENTD_SECRET_KEY_FILE): preferred, a flag shows in the process list

Secrets are printed to stdout only, once; they are never logged. Migrations are applied first.
`

// defaultDataDir is config's default for --data-dir: admin must reach the same embedded cluster
// and secret.key as serve does without flags.
const defaultDataDir = "./.statementd"

// adminEnv holds the settings every admin command shares.
type adminEnv struct {
	db        config.Database
	secretKey string
	json      bool

	stdout io.Writer
	stderr io.Writer
}

// adminCommand is one `admin NOUN VERB`: its own flags, positional argument names, whether it
// needs the secret key, and what it does with a ready Service.
type adminCommand struct {
	flags      func(fs *flag.FlagSet) func() error // registers flags; the returned func validates them
	positional []string
	needsKey   bool
	run        func(ctx context.Context, a *adminRun) error
}

// adminRun is what a command runs with.
type adminRun struct {
	*adminEnv
	svc    *account.Service
	store  *postgres.AccountStore
	people *people.Service
	args   []string
}

// admin runs `statementd admin ...`: operator commands on the database directly.
func admin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, adminUsage)
		if len(args) == 0 {
			return errors.New("admin: no command given")
		}
		return flag.ErrHelp
	}
	if len(args) < 2 {
		fmt.Fprint(stderr, adminUsage)
		return fmt.Errorf("admin %s: no subcommand given", args[0])
	}
	name := args[0] + " " + args[1]
	cmd, ok := adminCommands(getenv)[name]
	if !ok {
		fmt.Fprint(stderr, adminUsage)
		return fmt.Errorf("unknown admin command %q", name)
	}

	env := &adminEnv{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("admin "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// Defaults come from the environment after parsing rather than as flag defaults, so that -h
	// never prints a database password or the secret key.
	fs.StringVar(&env.db.URL, "database-url", "", "PostgreSQL URL; empty starts the embedded cluster in the data dir (env DATABASE_URL)")
	fs.StringVar(&env.db.DataDir, "data-dir", "", "folder of the embedded cluster and secret.key (env STATEMENTD_DATA_DIR, default "+defaultDataDir+")")
	fs.StringVar(&env.secretKey, "secret-key", "", "base64 of the 32-byte key sealing signing secrets (env STATEMENTD_SECRET_KEY); default: the data dir's secret.key")
	var urlFile, keyFile string
	fs.StringVar(&urlFile, "database-url-file", "", "file holding the PostgreSQL URL (env DATABASE_URL_FILE)")
	fs.StringVar(&keyFile, "secret-key-file", "", "file holding the secret key (env STATEMENTD_SECRET_KEY_FILE)")
	fs.BoolVar(&env.json, "json", false, "print one JSON object")
	validate := func() error { return nil }
	if cmd.flags != nil {
		validate = cmd.flags(fs)
	}
	positional, err := parseInterspersed(fs, args[2:])
	if err != nil {
		return err
	}
	if len(positional) != len(cmd.positional) {
		fs.Usage()
		if len(positional) < len(cmd.positional) {
			return fmt.Errorf("admin %s: missing %s", name, cmd.positional[len(positional)])
		}
		return fmt.Errorf("admin %s: unexpected argument %q", name, elide(positional[len(cmd.positional)]))
	}
	if err := validate(); err != nil {
		return fmt.Errorf("admin %s: %w", name, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	fromEnv := func(flagName, envName, def string, p *string) {
		if !set[flagName] {
			*p = getenv(envName)
		}
		if *p == "" {
			*p = def
		}
	}
	fromEnv("database-url", "DATABASE_URL", "", &env.db.URL)
	fromEnv("data-dir", "STATEMENTD_DATA_DIR", defaultDataDir, &env.db.DataDir)
	fromEnv("secret-key", "STATEMENTD_SECRET_KEY", "", &env.secretKey)
	fromEnv("database-url-file", "DATABASE_URL_FILE", "", &urlFile)
	fromEnv("secret-key-file", "STATEMENTD_SECRET_KEY_FILE", "", &keyFile)
	for _, f := range []struct {
		name, path string
		p          *string
	}{{"database-url", urlFile, &env.db.URL}, {"secret-key", keyFile, &env.secretKey}} {
		if f.path == "" {
			continue
		}
		if *f.p != "" {
			return fmt.Errorf("admin %s: --%s and --%s-file are both set: give one", name, f.name, f.name)
		}
		v, err := config.ReadSecretFile(f.path)
		if err != nil {
			return fmt.Errorf("admin %s: --%s-file: %w", name, f.name, err)
		}
		*f.p = v
	}

	// Only warnings and errors, on stderr: stdout carries the command's result alone.
	logger, flushLog := newLogger(stderr, slog.LevelWarn)
	defer flushLog()
	slog.SetDefault(logger)

	var sealer account.Sealer
	if cmd.needsKey {
		// Before the database, so that a bad key fails without starting a cluster.
		key, err := secretbox.LoadKey(env.db.DataDir, env.secretKey)
		if err != nil {
			return err
		}
		box, err := secretbox.New(key)
		if err != nil {
			return err
		}
		sealer = box
	}
	db, closeDB, _, err := openDatabase(ctx, env.db, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := postgres.Migrate(ctx, db.DB); err != nil {
		return err
	}
	store := postgres.NewAccountStore(db)
	return cmd.run(ctx, &adminRun{
		adminEnv: env,
		svc:      &account.Service{Store: store, Sealer: sealer, Now: time.Now},
		store:    store,
		people:   &people.Service{Store: postgres.NewPeopleStore(db), Sealer: sealer, Now: time.Now},
		args:     positional,
	})
}

// parseInterspersed parses flags that may come before and after positional arguments
// (`client revoke ID --json`), which flag.Parse alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func adminCommands(getenv func(string) string) map[string]adminCommand {
	return map[string]adminCommand{
		"account create":           accountCreate(),
		"account list":             {run: accountList},
		"account delete":           accountDelete(),
		"client create":            clientCreate(),
		"client list":              clientList(),
		"client revoke":            {positional: []string{"CLIENT_ID"}, run: clientRevoke},
		"client rotate":            clientRotate(),
		"key create":               keyCreate(),
		"key revoke":               {positional: []string{"KEY_ID"}, run: keyRevoke},
		"key list":                 keyList(),
		"signing-secret show":      signingSecret(false),
		"signing-secret rotate":    signingSecret(true),
		"user invite":              userInvite(getenv),
		"user reset-second-factor": userResetSecondFactor(),
	}
}

// accountFlag registers --account and returns where its parsed value lands.
func accountFlag(fs *flag.FlagSet) (*uuid.UUID, func() error) {
	var raw string
	var id uuid.UUID
	fs.StringVar(&raw, "account", "", "account ID (required)")
	return &id, func() error {
		if raw == "" {
			return errors.New("--account is required")
		}
		parsed, err := uuid.Parse(raw)
		if err != nil {
			return fmt.Errorf("--account %q is not an account ID (a UUID)", raw)
		}
		id = parsed
		return nil
	}
}

// listFlag registers a comma-separated list flag; it reports whether it was given, so that an
// absent flag (defaults) and an empty one (a mistake) differ.
func listFlag(fs *flag.FlagSet, name, usage string) (*[]string, *bool) {
	var list []string
	var given bool
	fs.Func(name, usage, func(v string) error {
		given = true
		list = append(list, strings.Split(v, ",")...)
		return nil
	})
	return &list, &given
}

func accountCreate() adminCommand {
	var name, reconRaw, parseRaw string
	var recon account.ReconPlan
	var parse account.ParsePlan
	return adminCommand{
		needsKey: true,
		flags: func(fs *flag.FlagSet) func() error {
			fs.StringVar(&name, "name", "", "account name (required)")
			fs.StringVar(&reconRaw, "recon-plan", string(account.ReconStandard), "Reconciliation API plan: standard or pro")
			fs.StringVar(&parseRaw, "parse-plan", string(account.ParseFree), "Parsing API plan: free, starter, pro or business")
			return func() (err error) {
				if strings.TrimSpace(name) == "" {
					return errors.New("--name is required")
				}
				if recon, err = account.ParseReconPlan(reconRaw); err != nil {
					return fmt.Errorf("--recon-plan: %w", err)
				}
				if parse, err = account.ParseParsePlan(parseRaw); err != nil {
					return fmt.Errorf("--parse-plan: %w", err)
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			if err := r.checkKey(ctx); err != nil {
				return err
			}
			a, err := r.svc.CreateAccount(ctx, name, recon, parse)
			if err != nil {
				return err
			}
			return r.print(map[string]any{"account_id": a.ID}, func(w io.Writer) {
				fmt.Fprintf(w, "Created account %s (%s): reconciliation plan %s, parsing plan %s.\n", a.ID, a.Name, a.ReconPlan, a.ParsePlan)
				fmt.Fprintf(w, "Its webhook signing secret: statementd admin signing-secret show --account %s\n", a.ID)
			})
		},
	}
}

// accountJSON is one account of `account list --json`.
type accountJSON struct {
	AccountID string `json:"account_id"`
	Name      string `json:"name"`
	ReconPlan string `json:"recon_plan"`
	ParsePlan string `json:"parse_plan"`
	CreatedAt string `json:"created_at"`
}

func accountList(ctx context.Context, r *adminRun) error {
	list, err := r.svc.ListAccounts(ctx)
	if err != nil {
		return err
	}
	out := make([]accountJSON, len(list))
	for i, a := range list {
		out[i] = accountJSON{
			AccountID: a.ID.String(),
			Name:      a.Name,
			ReconPlan: string(a.ReconPlan),
			ParsePlan: string(a.ParsePlan),
			CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339),
		}
	}
	return r.print(map[string]any{"accounts": out}, func(w io.Writer) {
		if len(out) == 0 {
			fmt.Fprintln(w, "No accounts yet: statementd admin account create --name NAME")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ACCOUNT ID\tNAME\tRECON PLAN\tPARSE PLAN\tCREATED")
		for _, a := range out {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.AccountID, a.Name, a.ReconPlan, a.ParsePlan, a.CreatedAt)
		}
		_ = tw.Flush()
	})
}

func clientCreate() adminCommand {
	var id *uuid.UUID
	var raw *[]string
	var given *bool
	var perms []account.Permission
	return adminCommand{
		flags: func(fs *flag.FlagSet) func() error {
			var checkAccount func() error
			id, checkAccount = accountFlag(fs)
			raw, given = listFlag(fs, "permissions", "comma-separated permissions (default: jobs:read,jobs:write,limits:read)")
			return func() (err error) {
				if err := checkAccount(); err != nil {
					return err
				}
				if perms, err = account.ParsePermissions(*raw); err != nil {
					return fmt.Errorf("--permissions: %w", err)
				}
				if *given && len(perms) == 0 {
					return errors.New("--permissions is empty; leave it out for all permissions")
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			c, secret, err := r.svc.CreateClient(ctx, audit.Operator, *id, perms)
			if errors.Is(err, account.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", *id)
			}
			if err != nil {
				return err
			}
			return r.print(map[string]any{"client_id": c.ID, "client_secret": secret, "permissions": c.Permissions}, func(w io.Writer) {
				fmt.Fprintf(w, "Created Reconciliation API client for account %s with permissions %s.\n", *id, joinNames(c.Permissions))
				fmt.Fprintf(w, "client_id:     %s\n", c.ID)
				fmt.Fprintf(w, "client_secret: %s\n", secret)
				fmt.Fprintln(w, "The client secret is shown once: it is stored only as a hash and cannot be shown again.")
			})
		},
	}
}

// accountDelete removes an account and all it owns; --yes confirms, so that a command line
// recalled from the shell's history does not delete by surprise.
func accountDelete() adminCommand {
	var yes bool
	return adminCommand{
		positional: []string{"ACCOUNT_ID"},
		flags: func(fs *flag.FlagSet) func() error {
			fs.BoolVar(&yes, "yes", false, "confirm: the account and everything it owns are deleted for good")
			return func() error {
				if !yes {
					return errors.New("account delete deletes the account and everything it owns for good: add --yes to confirm")
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			id, err := uuid.Parse(r.args[0])
			if err != nil {
				return fmt.Errorf("%q is not an account ID (a UUID)", r.args[0])
			}
			name, err := r.store.DeleteAccount(ctx, id)
			if errors.Is(err, account.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", id)
			}
			if err != nil {
				return err
			}
			return r.print(map[string]any{"account_id": id, "name": name, "deleted": true}, func(w io.Writer) {
				fmt.Fprintf(w, "Deleted account %s (%s) and everything it owned.\n", id, name)
			})
		},
	}
}

// credentialJSON is one client or key of `client list --json` and `key list --json`.
type credentialJSON struct {
	ID string `json:"id"`
	// Prefix is a key's recognisable start ("smk_live_4eC3"); clients have none.
	Prefix      string   `json:"prefix,omitempty"`
	Grants      []string `json:"grants"`
	CreatedAt   string   `json:"created_at"`
	CreatedBy   string   `json:"created_by"`
	LastUsedAt  string   `json:"last_used_at,omitempty"`
	RevokedAt   string   `json:"revoked_at,omitempty"`
	SecretSince string   `json:"secret_since,omitempty"`
}

// clientList lists an account's Reconciliation API clients; secrets are never shown, they are
// not kept.
func clientList() adminCommand {
	return ofAccount(func(ctx context.Context, r *adminRun, id uuid.UUID) error {
		clients, err := r.svc.Clients(ctx, id)
		if err != nil {
			return err
		}
		out := make([]credentialJSON, len(clients))
		for i, c := range clients {
			out[i] = credentialJSON{ID: c.ID, Grants: names(c.Permissions), CreatedAt: stamp(&c.CreatedAt), CreatedBy: c.CreatedBy,
				LastUsedAt: stamp(c.LastUsedAt), RevokedAt: stamp(c.RevokedAt), SecretSince: stamp(&c.SecretSince)}
		}
		return r.print(map[string]any{"account_id": id, "clients": out}, func(w io.Writer) {
			printCredentials(w, out, "CLIENT ID", "PERMISSIONS", "No Reconciliation API clients: statementd admin client create --account "+id.String())
		})
	})
}

// keyList lists an account's Parsing API keys by their prefixes; the keys themselves are not
// kept.
func keyList() adminCommand {
	return ofAccount(func(ctx context.Context, r *adminRun, id uuid.UUID) error {
		keys, err := r.svc.APIKeys(ctx, id)
		if err != nil {
			return err
		}
		out := make([]credentialJSON, len(keys))
		for i, k := range keys {
			out[i] = credentialJSON{ID: k.ID.String(), Prefix: k.Prefix, Grants: names(k.Scopes), CreatedAt: stamp(&k.CreatedAt), CreatedBy: k.CreatedBy,
				LastUsedAt: stamp(k.LastUsedAt), RevokedAt: stamp(k.RevokedAt)}
		}
		return r.print(map[string]any{"account_id": id, "keys": out}, func(w io.Writer) {
			printCredentials(w, out, "KEY ID", "SCOPES", "No Parsing API keys: statementd admin key create --account "+id.String())
		})
	})
}

// ofAccount is a command of one existing account, named by --account.
func ofAccount(run func(ctx context.Context, r *adminRun, id uuid.UUID) error) adminCommand {
	var id *uuid.UUID
	return adminCommand{
		flags: func(fs *flag.FlagSet) func() error {
			var validate func() error
			id, validate = accountFlag(fs)
			return validate
		},
		run: func(ctx context.Context, r *adminRun) error {
			if _, err := r.svc.Store.Account(ctx, *id); errors.Is(err, account.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", *id)
			}
			return run(ctx, r, *id)
		},
	}
}

// printCredentials writes a list of clients or keys as a table, newest first.
func printCredentials(w io.Writer, list []credentialJSON, idTitle, grantsTitle, none string) {
	if len(list) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\tCREATED\tLAST USED\tREVOKED\n", idTitle, grantsTitle)
	dash := func(s string) string { return cmp.Or(s, "-") }
	for _, c := range list {
		id := c.ID
		if c.Prefix != "" {
			id += " (" + c.Prefix + "...)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, strings.Join(c.Grants, ","), c.CreatedAt, dash(c.LastUsedAt), dash(c.RevokedAt))
	}
	_ = tw.Flush()
}

// names are permissions or scopes as strings.
func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// stamp is a time in RFC 3339 UTC, "" for none.
func stamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func clientRevoke(ctx context.Context, r *adminRun) error {
	id := r.args[0]
	err := r.svc.RevokeClient(ctx, audit.Operator, uuid.Nil, id)
	already := errors.Is(err, account.ErrRevoked)
	switch {
	case errors.Is(err, account.ErrNotFound):
		return fmt.Errorf("client %s does not exist", id)
	case err != nil && !already:
		return err
	}
	// Revoking is idempotent: a second revoke leaves the client revoked, which is what was
	// asked for, so a retried script does not fail.
	return r.print(map[string]any{"client_id": id, "revoked": true}, func(w io.Writer) {
		if already {
			fmt.Fprintf(w, "Client %s was already revoked.\n", id)
			return
		}
		fmt.Fprintf(w, "Revoked client %s: its secret and tokens no longer work.\n", id)
	})
}

func clientRotate() adminCommand {
	var overlap time.Duration
	return adminCommand{
		positional: []string{"CLIENT_ID"},
		flags: func(fs *flag.FlagSet) func() error {
			fs.DurationVar(&overlap, "overlap", 24*time.Hour, "how long the current secret keeps working (0s: it stops now; at most 720h)")
			return func() error {
				if overlap < 0 || overlap > account.MaxRotationOverlap {
					return errors.New("--overlap must be from 0s to 720h")
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			id := r.args[0]
			secret, err := r.svc.RotateClientSecret(ctx, audit.Operator, uuid.Nil, id, overlap)
			switch {
			case errors.Is(err, account.ErrNotFound):
				return fmt.Errorf("client %s does not exist", id)
			case errors.Is(err, account.ErrRevoked):
				return fmt.Errorf("client %s is revoked", id)
			case err != nil:
				return err
			}
			until := time.Now().Add(overlap).UTC()
			return r.print(map[string]any{"client_id": id, "client_secret": secret, "previous_secret_until": until}, func(w io.Writer) {
				fmt.Fprintf(w, "New secret for client %s.\n", id)
				fmt.Fprintf(w, "client_secret: %s\n", secret)
				fmt.Fprintf(w, "The previous secret keeps working until %s. The new one is shown once.\n", until.Format(time.RFC3339))
			})
		},
	}
}

func keyCreate() adminCommand {
	var id *uuid.UUID
	var raw *[]string
	var given *bool
	var scopes []account.Scope
	return adminCommand{
		flags: func(fs *flag.FlagSet) func() error {
			var checkAccount func() error
			id, checkAccount = accountFlag(fs)
			raw, given = listFlag(fs, "scopes", "comma-separated scopes (default: jobs:read,jobs:write,webhooks:manage,export:read,usage:read)")
			return func() (err error) {
				if err := checkAccount(); err != nil {
					return err
				}
				if scopes, err = account.ParseScopes(*raw); err != nil {
					return fmt.Errorf("--scopes: %w", err)
				}
				if *given && len(scopes) == 0 {
					return errors.New("--scopes is empty; leave it out for all scopes")
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			k, key, err := r.svc.CreateAPIKey(ctx, audit.Operator, *id, scopes)
			if errors.Is(err, account.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", *id)
			}
			if err != nil {
				return err
			}
			return r.print(map[string]any{"key_id": k.ID, "api_key": key, "scopes": k.Scopes}, func(w io.Writer) {
				fmt.Fprintf(w, "Created Parsing API key %s for account %s with scopes %s.\n", k.ID, *id, joinNames(k.Scopes))
				fmt.Fprintf(w, "api_key: %s\n", key)
				fmt.Fprintln(w, "The API key is shown once: it is stored only as a hash and cannot be shown again.")
			})
		},
	}
}

func keyRevoke(ctx context.Context, r *adminRun) error {
	raw := r.args[0]
	id, err := uuid.Parse(raw)
	if err != nil {
		return fmt.Errorf("key %s does not exist (a key ID is a UUID)", raw)
	}
	err = r.svc.RevokeAPIKey(ctx, audit.Operator, uuid.Nil, id)
	already := errors.Is(err, account.ErrRevoked)
	switch {
	case errors.Is(err, account.ErrNotFound):
		return fmt.Errorf("key %s does not exist", id)
	case err != nil && !already:
		return err
	}
	return r.print(map[string]any{"key_id": id, "revoked": true}, func(w io.Writer) {
		if already {
			fmt.Fprintf(w, "Key %s was already revoked.\n", id)
			return
		}
		fmt.Fprintf(w, "Revoked key %s: it no longer works.\n", id)
	})
}

func signingSecret(rotate bool) adminCommand {
	var id *uuid.UUID
	return adminCommand{
		needsKey: true,
		flags: func(fs *flag.FlagSet) func() error {
			var check func() error
			id, check = accountFlag(fs)
			return check
		},
		run: func(ctx context.Context, r *adminRun) error {
			var secret string
			var err error
			if rotate {
				if err := r.checkKey(ctx); err != nil {
					return err
				}
				secret, err = r.svc.RotateSigningSecret(ctx, &audit.Operator, *id)
			} else {
				secret, err = r.svc.SigningSecret(ctx, *id)
			}
			if errors.Is(err, account.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", *id)
			}
			if err != nil {
				return err
			}
			return r.print(map[string]any{"account_id": *id, "signing_secret": secret}, func(w io.Writer) {
				if rotate {
					fmt.Fprintf(w, "Rotated the webhook signing secret of account %s; the old one no longer verifies.\n", *id)
				} else {
					fmt.Fprintf(w, "Webhook signing secret of account %s.\n", *id)
				}
				fmt.Fprintf(w, "signing_secret: %s\n", secret)
				fmt.Fprintln(w, "Keep it secret: anyone who has it can forge webhooks to this account.")
			})
		},
	}
}

// checkKey refuses to seal anything new with a secret key that cannot open the signing secrets
// already in the database: that happens when admin runs with another data dir (and so another
// secret.key) than serve, and would leave secrets that serve cannot decrypt.
func (r *adminRun) checkKey(ctx context.Context) error {
	sealed, err := r.store.AnySigningSecret(ctx)
	if errors.Is(err, account.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := r.svc.Sealer.Open(sealed); err != nil {
		return errors.New("this secret key cannot decrypt the signing secrets already in the database: " +
			"give the key the other statementd processes use (STATEMENTD_SECRET_KEY, or their data dir's secret.key)")
	}
	return nil
}

// print writes the result: one JSON object with --json, else text.
func (r *adminRun) print(v map[string]any, text func(io.Writer)) error {
	if !r.json {
		text(r.stdout)
		return nil
	}
	enc := json.NewEncoder(r.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func joinNames[T ~string](list []T) string {
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// elide shortens an argument echoed in an error: a misplaced one may be a secret (a key given
// after a flag that lacked its value), and errors can end up in logs.
func elide(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:8] + "..."
}

// userInvite creates a dashboard user and prints their one-time set-password link.
func userInvite(getenv func(string) string) adminCommand {
	var id *uuid.UUID
	var email, rawRole, base string
	var role people.Role
	return adminCommand{
		flags: func(fs *flag.FlagSet) func() error {
			var checkAccount func() error
			id, checkAccount = accountFlag(fs)
			fs.StringVar(&email, "email", "", "the user's email address (required)")
			fs.StringVar(&rawRole, "role", "", "owner, developer or viewer (required)")
			fs.StringVar(&base, "dashboard-url", "", "the dashboard's base URL, for the link (env STATEMENTD_DASHBOARD_URL, default http://localhost:8083)")
			return func() (err error) {
				if err := checkAccount(); err != nil {
					return err
				}
				if email == "" {
					return errors.New("--email is required")
				}
				if role, err = people.ParseRole(rawRole); err != nil {
					return errors.New("--role must be owner, developer or viewer")
				}
				if base == "" {
					base = getenv("STATEMENTD_DASHBOARD_URL")
				}
				if base == "" {
					base = "http://localhost:8083"
				}
				u, err := url.Parse(base)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("--dashboard-url %q is not an http(s) URL", base)
				}
				base = strings.TrimRight(base, "/")
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			u, token, err := r.people.Invite(ctx, audit.Operator, *id, email, role)
			switch {
			case errors.Is(err, people.ErrNotFound):
				return fmt.Errorf("account %s does not exist", *id)
			case errors.Is(err, people.ErrConflict):
				return fmt.Errorf("a user with the email %s exists already", email)
			case errors.Is(err, people.ErrInvalid):
				return fmt.Errorf("--email: %q is not an email address", email)
			case err != nil:
				return err
			}
			link := base + "/set-password/" + token
			expires := u.CreatedAt.Add(people.InvitationTTL)
			return r.print(map[string]any{"user_id": u.ID, "email": u.Email, "role": u.Role, "link": link, "expires_at": expires},
				func(w io.Writer) {
					fmt.Fprintf(w, "Invited %s (%s) to account %s.\n", u.Email, u.Role, *id)
					fmt.Fprintf(w, "link: %s\n", link)
					fmt.Fprintf(w, "Give them the link: it sets their password once, until %s.\n", expires.UTC().Format(time.RFC3339))
				})
		},
	}
}

// userResetSecondFactor removes a dashboard user's authenticator: the operator's way back in for
// an account whose only owner lost theirs.
func userResetSecondFactor() adminCommand {
	var id *uuid.UUID
	var email string
	return adminCommand{
		flags: func(fs *flag.FlagSet) func() error {
			var checkAccount func() error
			id, checkAccount = accountFlag(fs)
			fs.StringVar(&email, "email", "", "the user's email address (required)")
			return func() error {
				if err := checkAccount(); err != nil {
					return err
				}
				if email == "" {
					return errors.New("--email is required")
				}
				return nil
			}
		},
		run: func(ctx context.Context, r *adminRun) error {
			u, err := r.people.ResetSecondFactor(ctx, *id, email)
			switch {
			case errors.Is(err, people.ErrNotFound):
				return fmt.Errorf("account %s has no user %s with an authenticator", *id, email)
			case err != nil:
				return err
			}
			return r.print(map[string]any{"user_id": u.ID, "email": u.Email, "second_factor": false},
				func(w io.Writer) {
					fmt.Fprintf(w, "Removed the authenticator of %s: they sign in with their password alone until they set one up again.\n", u.Email)
				})
		},
	}
}
