package contracttests

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/postgres/pgtest"
)

// adminCLI runs `statementd admin` against one test database and data dir, and remembers every
// secret it printed.
type adminCLI struct {
	databaseURL string
	dataDir     string
	db          *sqlx.DB // nil for the embedded cluster
	secrets     []string
	stderrs     []string
}

func newAdminCLI(t *testing.T) *adminCLI {
	t.Helper()
	db, url := pgtest.NewURL(t)
	return &adminCLI{databaseURL: url, dataDir: t.TempDir(), db: db}
}

// run runs `statementd admin ARGS` and returns its output and exit code.
func (c *adminCLI) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(statementdBin, append([]string{"admin"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + c.databaseURL, "STATEMENTD_DATA_DIR=" + c.dataDir}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	c.stderrs = append(c.stderrs, errOut.String())
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

// json runs a command with --json, requires success and exactly one JSON object on stdout, and
// returns it.
func (c *adminCLI) json(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := c.run(t, append(args, "--json")...)
	require.Zero(t, code, "statementd admin %s\nstderr: %s", strings.Join(args, " "), stderr)
	dec := json.NewDecoder(strings.NewReader(stdout))
	var out map[string]any
	require.NoError(t, dec.Decode(&out), "stdout is a JSON object: %s", stdout)
	var extra any
	require.ErrorIs(t, dec.Decode(&extra), io.EOF, "stdout holds exactly one JSON object: %s", stdout)
	for _, field := range []string{"client_secret", "api_key", "signing_secret"} {
		if v, ok := out[field].(string); ok {
			c.secrets = append(c.secrets, v)
		}
	}
	return out
}

// fails runs a command that must fail and returns the last line of its stderr, the error (a
// usage text may come before it), and whether that line was all it wrote.
func (c *adminCLI) fails(t *testing.T, args ...string) (last string, oneLine bool) {
	t.Helper()
	stdout, stderr, code := c.run(t, args...)
	require.Equal(t, 1, code, "statementd admin %s must fail\nstdout: %s\nstderr: %s", strings.Join(args, " "), stdout, stderr)
	require.Empty(t, stdout, "nothing on stdout when a command fails")
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	return lines[len(lines)-1], len(lines) == 1
}

// failsWith runs a command that must fail with one line on stderr containing want.
func (c *adminCLI) failsWith(t *testing.T, want string, args ...string) {
	t.Helper()
	last, oneLine := c.fails(t, args...)
	require.Contains(t, last, want, args)
	require.True(t, oneLine, "%v: the error is one line", args)
}

func field(t *testing.T, m map[string]any, key string) string {
	t.Helper()
	v, ok := m[key].(string)
	require.True(t, ok, "%q is a string in %v", key, m)
	require.NotEmpty(t, v, key)
	return v
}

func stringList(t *testing.T, m map[string]any, key string) []string {
	t.Helper()
	raw, ok := m[key].([]any)
	require.True(t, ok, "%q is a list in %v", key, m)
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i], ok = v.(string)
		require.True(t, ok, "%q holds strings: %v", key, raw)
	}
	return out
}

var (
	clientIDForm = regexp.MustCompile(`^cli_[0-9A-Za-z]+$`)
	apiKeyForm   = regexp.MustCompile(`^smk_live_[0-9A-Za-z]{32,}$`)
	whsecForm    = regexp.MustCompile(`^whsec_[0-9A-Za-z+/=]{40,}$`)
)

// TestAdminCommands runs every `statementd admin` command of PRODUCT.md with --json against a
// fresh database and checks what it prints, then that the database holds none of the secrets.
func TestAdminCommands(t *testing.T) {
	t.Parallel()
	c := newAdminCLI(t)

	acme := field(t, c.json(t, "account", "create", "--name", "Acme SRL"), "account_id")
	_, err := uuid.Parse(acme)
	require.NoError(t, err, "account_id is a UUID")
	beta := field(t, c.json(t, "account", "create", "--name", "Beta", "--recon-plan", "pro", "--parse-plan", "business"), "account_id")

	t.Run("account list shows every account with its plans", func(t *testing.T) {
		list := c.json(t, "account", "list")
		require.Len(t, list, 1, "one key: accounts")
		accounts, ok := list["accounts"].([]any)
		require.True(t, ok, "accounts is a list: %v", list)
		require.Len(t, accounts, 2)
		byID := map[string]map[string]any{}
		for _, a := range accounts {
			m := a.(map[string]any)
			byID[field(t, m, "account_id")] = m
			_, err := time.Parse(time.RFC3339, field(t, m, "created_at"))
			require.NoError(t, err, "created_at is RFC 3339")
		}
		require.Equal(t, "Acme SRL", byID[acme]["name"])
		require.Equal(t, "standard", byID[acme]["recon_plan"], "default reconciliation plan")
		require.Equal(t, "free", byID[acme]["parse_plan"], "default parsing plan")
		require.Equal(t, "Beta", byID[beta]["name"])
		require.Equal(t, "pro", byID[beta]["recon_plan"])
		require.Equal(t, "business", byID[beta]["parse_plan"])
	})

	t.Run("client create gives all permissions by default, or those asked for", func(t *testing.T) {
		out := c.json(t, "client", "create", "--account", acme)
		require.Regexp(t, clientIDForm, field(t, out, "client_id"))
		require.GreaterOrEqual(t, len(field(t, out, "client_secret")), 43, "at least 256 bits")
		require.ElementsMatch(t, []string{"jobs:read", "jobs:write", "limits:read"}, stringList(t, out, "permissions"))

		out = c.json(t, "client", "create", "--account", acme, "--permissions", "jobs:read,limits:read")
		require.ElementsMatch(t, []string{"jobs:read", "limits:read"}, stringList(t, out, "permissions"))
	})

	t.Run("client revoke is idempotent", func(t *testing.T) {
		id := field(t, c.json(t, "client", "create", "--account", beta), "client_id")
		require.Equal(t, map[string]any{"client_id": id, "revoked": true}, c.json(t, "client", "revoke", id))
		require.Equal(t, map[string]any{"client_id": id, "revoked": true}, c.json(t, "client", "revoke", id),
			"revoking again succeeds: the client is revoked, as asked")
		stdout, _, code := c.run(t, "client", "revoke", id)
		require.Zero(t, code)
		require.Contains(t, stdout, "already revoked", "the text says so")
	})

	t.Run("client rotate gives a new secret and an overlap", func(t *testing.T) {
		id := field(t, c.json(t, "client", "create", "--account", beta), "client_id")
		out := c.json(t, "client", "rotate", id, "--overlap", "2h")
		require.Equal(t, id, field(t, out, "client_id"))
		require.GreaterOrEqual(t, len(field(t, out, "client_secret")), 43)
		until, err := time.Parse(time.RFC3339, field(t, out, "previous_secret_until"))
		require.NoError(t, err)
		require.WithinDuration(t, time.Now().Add(2*time.Hour), until, time.Minute)
		c.failsWith(t, "--overlap must be from 0s to 720h", "client", "rotate", id, "--overlap", "800h")
		c.json(t, "client", "revoke", id)
		c.failsWith(t, "client "+id+" is revoked", "client", "rotate", id)
		c.failsWith(t, "client cli_unknown000000000000000 does not exist", "client", "rotate", "cli_unknown000000000000000")
	})

	t.Run("key create gives all scopes by default, or those asked for", func(t *testing.T) {
		out := c.json(t, "key", "create", "--account", acme)
		_, err := uuid.Parse(field(t, out, "key_id"))
		require.NoError(t, err, "key_id is a UUID")
		require.Regexp(t, apiKeyForm, field(t, out, "api_key"))
		require.ElementsMatch(t, []string{"jobs:read", "jobs:write", "webhooks:manage", "export:read", "usage:read"}, stringList(t, out, "scopes"))

		out = c.json(t, "key", "create", "--account", beta, "--scopes", "jobs:read,usage:read")
		require.ElementsMatch(t, []string{"jobs:read", "usage:read"}, stringList(t, out, "scopes"))
	})

	t.Run("key revoke is idempotent", func(t *testing.T) {
		id := field(t, c.json(t, "key", "create", "--account", acme), "key_id")
		require.Equal(t, map[string]any{"key_id": id, "revoked": true}, c.json(t, "key", "revoke", id))
		require.Equal(t, map[string]any{"key_id": id, "revoked": true}, c.json(t, "key", "revoke", id))
	})

	t.Run("client list and key list show an account's credentials, never a secret", func(t *testing.T) {
		gamma := field(t, c.json(t, "account", "create", "--name", "Gamma"), "account_id")
		first := c.json(t, "client", "create", "--account", gamma, "--permissions", "jobs:read")
		second := field(t, c.json(t, "client", "create", "--account", gamma), "client_id")
		c.json(t, "client", "revoke", second)
		key := c.json(t, "key", "create", "--account", gamma, "--scopes", "jobs:read,usage:read")

		out := c.json(t, "client", "list", "--account", gamma)
		require.Equal(t, gamma, field(t, out, "account_id"))
		clients, ok := out["clients"].([]any)
		require.True(t, ok, "%v", out)
		require.Len(t, clients, 2)
		byID := map[string]map[string]any{}
		for _, raw := range clients {
			cl := raw.(map[string]any)
			byID[field(t, cl, "id")] = cl
		}
		require.Equal(t, []string{"jobs:read"}, stringList(t, byID[field(t, first, "client_id")], "grants"))
		require.NotContains(t, byID[field(t, first, "client_id")], "revoked_at")
		require.NotEmpty(t, field(t, byID[second], "revoked_at"))
		require.Equal(t, "statementd admin", field(t, byID[second], "created_by"))

		out = c.json(t, "key", "list", "--account", gamma)
		keys, ok := out["keys"].([]any)
		require.True(t, ok, "%v", out)
		require.Len(t, keys, 1)
		k := keys[0].(map[string]any)
		require.Equal(t, field(t, key, "key_id"), field(t, k, "id"))
		require.True(t, strings.HasPrefix(field(t, key, "api_key"), field(t, k, "prefix")), "the prefix starts the key")
		require.Less(t, len(field(t, k, "prefix")), len(field(t, key, "api_key")))
		require.ElementsMatch(t, []string{"jobs:read", "usage:read"}, stringList(t, k, "grants"))

		text, _, code := c.run(t, "client", "list", "--account", gamma)
		require.Zero(t, code)
		require.Contains(t, text, "CLIENT ID")
		require.Contains(t, text, second)
		for _, secret := range []string{field(t, first, "client_secret"), field(t, key, "api_key")} {
			require.NotContains(t, text, secret)
			listed, _, _ := c.run(t, "key", "list", "--account", gamma, "--json")
			require.NotContains(t, listed, secret)
		}
		empty, _, code := c.run(t, "key", "list", "--account", beta)
		require.Zero(t, code)
		require.Contains(t, empty, "KEY ID", "beta has a key")
		c.failsWith(t, "account 00000000-0000-0000-0000-000000000001 does not exist", "client", "list", "--account", "00000000-0000-0000-0000-000000000001")
	})

	t.Run("signing-secret show and rotate", func(t *testing.T) {
		shown := c.json(t, "signing-secret", "show", "--account", acme)
		require.Equal(t, acme, shown["account_id"])
		first := field(t, shown, "signing_secret")
		require.Regexp(t, whsecForm, first)
		require.Equal(t, first, field(t, c.json(t, "signing-secret", "show", "--account", acme), "signing_secret"), "showing twice shows the same")

		rotated := c.json(t, "signing-secret", "rotate", "--account", acme)
		require.Equal(t, acme, rotated["account_id"])
		second := field(t, rotated, "signing_secret")
		require.Regexp(t, whsecForm, second)
		require.NotEqual(t, first, second)
		require.Equal(t, second, field(t, c.json(t, "signing-secret", "show", "--account", acme), "signing_secret"), "the rotated secret is kept")

		other := field(t, c.json(t, "signing-secret", "show", "--account", beta), "signing_secret")
		require.NotEqual(t, second, other, "every account has its own")
	})

	t.Run("text output marks secrets as shown once", func(t *testing.T) {
		stdout, stderr, code := c.run(t, "client", "create", "--account", acme)
		require.Zero(t, code, stderr)
		require.Contains(t, stdout, "shown once")
		require.Contains(t, stdout, "cli_")
		stdout, stderr, code = c.run(t, "key", "create", "--account", acme)
		require.Zero(t, code, stderr)
		require.Contains(t, stdout, "shown once")
		var key string
		for _, f := range strings.Fields(stdout) {
			if apiKeyForm.MatchString(f) {
				key = f
			}
		}
		require.NotEmpty(t, key, "the key is printed: %s", stdout)
		c.secrets = append(c.secrets, key)
	})

	t.Run("errors are one line and exit 1", func(t *testing.T) {
		unknown := uuid.NewString()
		for _, args := range [][]string{
			{"client", "create", "--account", unknown},
			{"key", "create", "--account", unknown},
			{"signing-secret", "show", "--account", unknown},
			{"signing-secret", "rotate", "--account", unknown},
		} {
			last, oneLine := c.fails(t, args...)
			require.Equal(t, "statementd: account "+unknown+" does not exist", last, args)
			require.True(t, oneLine, args)
		}
		c.failsWith(t, "client cli_unknown000000000000000 does not exist", "client", "revoke", "cli_unknown000000000000000")
		c.failsWith(t, "key "+unknown+" does not exist", "key", "revoke", unknown)
		c.failsWith(t, `"jobs:delete"`, "client", "create", "--account", acme, "--permissions", "jobs:read,jobs:delete")
		c.failsWith(t, `"limits:read"`, "key", "create", "--account", acme, "--scopes", "limits:read")
		c.failsWith(t, `"gold"`, "account", "create", "--name", "X", "--recon-plan", "gold")
		c.failsWith(t, "--name", "account", "create")
		c.failsWith(t, "not-a-uuid", "client", "create", "--account", "not-a-uuid")
		last, _ := c.fails(t, "account", "delete", "--yes")
		require.Contains(t, last, "missing ACCOUNT_ID", "after the usage")
		c.failsWith(t, "add --yes to confirm", "account", "delete", acme)
		c.failsWith(t, `"not-a-uuid" is not an account ID`, "account", "delete", "not-a-uuid", "--yes")
		c.failsWith(t, "account "+unknown+" does not exist", "account", "delete", unknown, "--yes")
		last, _ = c.fails(t, "account", "rename")
		require.Contains(t, last, "unknown admin command")
	})

	t.Run("a different secret key is refused before it seals anything", func(t *testing.T) {
		wrong := &adminCLI{databaseURL: c.databaseURL, dataDir: t.TempDir()}
		wrong.failsWith(t, "secret key", "signing-secret", "rotate", "--account", acme)
		wrong.failsWith(t, "secret key", "signing-secret", "show", "--account", acme)
		wrong.failsWith(t, "secret key", "account", "create", "--name", "Sealed elsewhere")
	})

	require.NotEmpty(t, c.secrets)
	for _, stderr := range c.stderrs {
		for _, secret := range c.secrets {
			require.NotContains(t, stderr, secret, "no secret on stderr")
		}
	}
	requireNoPlaintextSecrets(t, c.db, c.secrets, c.dataDir)
}

// requireNoPlaintextSecrets dumps every row of the account and credential tables as JSON (bytea
// columns as hex) and requires that none holds a secret, in text or as hex, nor the secret key
// of the data dir.
func requireNoPlaintextSecrets(t *testing.T, db *sqlx.DB, secrets []string, dataDir string) {
	t.Helper()
	var dump strings.Builder
	for _, table := range []string{"accounts", "api_clients", "access_tokens", "api_keys", "signing_secrets"} {
		var rows []string
		require.NoError(t, db.SelectContext(t.Context(), &rows, `SELECT row_to_json(t)::text FROM `+table+` t`))
		if table != "access_tokens" { // admin issues no tokens
			require.NotEmpty(t, rows, "%s has rows, so the check is not vacuous", table)
		}
		for _, r := range rows {
			dump.WriteString(r)
			dump.WriteByte('\n')
		}
	}
	all := strings.ToLower(dump.String())
	for _, needle := range secretNeedles(t, secrets, dataDir) {
		require.NotContains(t, all, strings.ToLower(needle), "the database holds a secret in plain text")
	}
}

// secretNeedles returns what must not be found where secrets must not be kept: each secret as it
// was shown and as hex, its random part alone (in text, as hex, and as hex of the bytes it
// encodes), and the data dir's secret key, as written and as hex.
func secretNeedles(t *testing.T, secrets []string, dataDir string) []string {
	t.Helper()
	var needles []string
	for _, secret := range secrets {
		needles = append(needles, secret, hex.EncodeToString([]byte(secret)))
		// The random part alone, without its prefix ("cs_", "smk_live_", "whsec_").
		if i := strings.LastIndexByte(secret, '_'); i >= 0 && len(secret)-i > 16 {
			random := secret[i+1:]
			needles = append(needles, random, hex.EncodeToString([]byte(random)))
			if raw, err := base64.StdEncoding.DecodeString(random); err == nil {
				needles = append(needles, hex.EncodeToString(raw))
			}
		}
	}
	keyFile, err := os.ReadFile(filepath.Join(dataDir, "secret.key"))
	require.NoError(t, err, "the data dir holds the generated secret key")
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(keyFile)))
	require.NoError(t, err)
	return append(needles, strings.TrimSpace(string(keyFile)), hex.EncodeToString(key))
}

// TestAdminUsesTheEmbeddedCluster: with no DATABASE_URL, admin reaches the embedded cluster of the
// data dir, as serve does.
func TestAdminUsesTheEmbeddedCluster(t *testing.T) {
	t.Parallel()
	// The postgres user must be able to reach the data dir, so it is not under t.TempDir (0700).
	dataDir, err := os.MkdirTemp("", "statementd-admin-embedded-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dataDir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dataDir) })
	c := &adminCLI{databaseURL: "", dataDir: dataDir}

	id := field(t, c.json(t, "account", "create", "--name", "Embedded"), "account_id")
	list := c.json(t, "account", "list")
	accounts := list["accounts"].([]any)
	require.Len(t, accounts, 1)
	require.Equal(t, id, accounts[0].(map[string]any)["account_id"])
	require.Regexp(t, whsecForm, field(t, c.json(t, "signing-secret", "show", "--account", id), "signing_secret"))
}
