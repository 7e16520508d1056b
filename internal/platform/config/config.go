// Package config reads statementd's settings. Every setting is a flag and an environment
// variable; a flag given on the command line wins over the variable, and the variable over the
// default. Invalid values are errors that name the setting, never silently replaced by defaults.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/webhook"
)

// Role says which parts of the service a process runs.
type Role string

// The roles of `statementd serve --role`.
const (
	RoleAll    Role = "all"
	RoleAPI    Role = "api"
	RoleWorker Role = "worker"
)

// Database holds the settings of every command that reaches the database.
type Database struct {
	// URL is a PostgreSQL connection URL. Empty means the embedded cluster in DataDir.
	URL string
	// DataDir holds the embedded cluster and other generated state.
	DataDir string
}

// Serve holds the settings of `statementd serve`.
type Serve struct {
	Database
	ReconAddr        string
	ReconSandboxAddr string
	ParseAddr        string
	// DashboardAddr is the account dashboard's listener.
	DashboardAddr string
	// OpsAddr is the operator listener's: loopback by default, since it needs no credentials.
	OpsAddr string
	// Pprof serves Go's profiles on the operator listener.
	Pprof          bool
	Role           Role
	MaxUploadBytes int64
	// MaxRows is the most transactions (or table rows) a statement file may hold.
	MaxRows int
	// OCR bounds the reading of scanned statements by the workers.
	OCR statement.OCR
	// Migrate applies pending migrations at start.
	Migrate         bool
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout reading a whole request
	// (headers and body, so a whole upload), and IdleTimeout how long a keep-alive connection
	// waits for its next request: slow clients cannot hold connections longer.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	LogLevel          slog.Level
	// TokenTTL is the lifetime of Reconciliation API access tokens.
	TokenTTL time.Duration
	// AuthCacheTTL is how long a process reuses what the database said of an access token or
	// API key; a revocation takes up to this long to reach it. Zero looks every request up.
	AuthCacheTTL time.Duration
	// Workers is how many jobs of each API (reconciliation, parsing) the process works at once
	// (roles all and worker).
	Workers int
	// JobPollInterval is how often an idle worker looks for jobs.
	JobPollInterval time.Duration
	// JobTimeout bounds one attempt at a job; JobRescueAfter is when the job of a vanished
	// worker is run again, longer than JobTimeout.
	JobTimeout     time.Duration
	JobRescueAfter time.Duration
	// FileRetention is how long uploaded files are kept after their job was created;
	// ResultRetention how long results and transactions are (retention.go of internal/postgres
	// deletes them, on the worker roles).
	FileRetention   time.Duration
	ResultRetention time.Duration
	// WebhookAllow lists the hosts and CIDRs webhook deliveries may reach although they are not
	// public (and then over plain http): "127.0.0.0/8,hooks.internal".
	WebhookAllow string
	// WebhookRetrySchedule is when failed webhook deliveries are retried, as offsets from the
	// first attempt.
	WebhookRetrySchedule webhook.Schedule
	// WebhookTestsPerMinute is how many webhook test requests an account may send a minute.
	WebhookTestsPerMinute int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client, for
	// throttles and logs.
	TrustedProxies httpkit.TrustedProxies
	// TLSCert and TLSKey are the files of the certificate chain and key every listener serves
	// HTTPS with; both empty: plain HTTP.
	TLSCert, TLSKey string
	// SecretKey is the base64 of the 32-byte key that encrypts webhook signing secrets. Empty
	// means the key generated once into the data dir. It is a secret: never log it.
	SecretKey string
}

// Getenv looks up an environment variable; os.Getenv in production, a map in tests.
type Getenv func(string) string

// setting registers one flag whose default comes from an environment variable.
type setting struct {
	fs     *flag.FlagSet
	getenv Getenv
	errs   []error
	// secrets are filled from their environment variables after parsing, when their flag was not
	// given, so that -h never prints a password or key as a flag's default.
	secrets []secretSetting
}

func (s *setting) str(p *string, name, env, def, usage string) {
	if v := s.getenv(env); v != "" {
		def = v
	}
	s.fs.StringVar(p, name, def, fmt.Sprintf("%s (env %s)", usage, env))
}

// value registers a flag of any type through its parser, so the environment variable goes
// through exactly the same parsing and checks as the flag.
func (s *setting) value(parse func(string) error, name, env, def, usage string) {
	raw := def
	if v := s.getenv(env); v != "" {
		raw = v
	}
	if err := parse(raw); err != nil {
		s.errs = append(s.errs, fmt.Errorf("%s=%q: %w", env, raw, err))
	}
	s.fs.Func(name, fmt.Sprintf("%s (env %s, default %q)", usage, env, def), parse)
}

func newSetting(name string, getenv Getenv, output io.Writer) *setting {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	return &setting{fs: fs, getenv: getenv}
}

func (s *setting) database(d *Database) {
	s.secret(&d.URL, "database-url", "DATABASE_URL", "PostgreSQL URL; empty starts the embedded cluster in the data dir")
	s.str(&d.DataDir, "data-dir", "STATEMENTD_DATA_DIR", "./.statementd", "folder of the embedded cluster and generated state")
}

type secretSetting struct {
	p         *string
	name, env string
	file      string // the path given by --name-file or NAME_FILE
}

// secret registers a flag that may hold a credential (a database URL with its password, a key),
// and its -file companion, which names a file holding it: a value given on a command line shows
// in the process list (and in any profile of it), a file need not.
func (s *setting) secret(p *string, name, env, usage string) {
	s.fs.StringVar(p, name, "", fmt.Sprintf("%s (env %s; prefer --%s-file)", usage, env, name))
	s.secrets = append(s.secrets, secretSetting{p: p, name: name, env: env})
	i := len(s.secrets) - 1
	s.fs.Func(name+"-file", fmt.Sprintf("file whose content (without a final line break) is the --%s value (env %s_FILE)", name, env),
		func(v string) error { s.secrets[i].file = v; return nil })
}

func (s *setting) parse(args []string) error {
	if err := s.fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for i := range s.secrets {
		sec := &s.secrets[i]
		if !given[sec.name] {
			*sec.p = s.getenv(sec.env)
		}
		if !given[sec.name+"-file"] {
			sec.file = s.getenv(sec.env + "_FILE")
		}
		if sec.file == "" {
			continue
		}
		if *sec.p != "" {
			return fmt.Errorf("--%s (or %s) and --%s-file (or %s_FILE) are both set: give one", sec.name, sec.env, sec.name, sec.env)
		}
		v, err := ReadSecretFile(sec.file)
		if err != nil {
			return fmt.Errorf("--%s-file: %w", sec.name, err)
		}
		*sec.p = v
	}
	if s.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", s.fs.Arg(0))
	}
	return errors.Join(s.errs...)
}

// ReadSecretFile returns the secret held in the file at path: its content without a final line
// break. An empty file is an error, since it can only be a mistake.
func ReadSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	v := strings.TrimRight(string(b), "\r\n")
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}

// ParseServe reads the settings of `statementd serve` from args and the environment.
func ParseServe(args []string, getenv Getenv, output io.Writer) (Serve, error) {
	var c Serve
	s := newSetting("serve", getenv, output)
	s.database(&c.Database)
	s.str(&c.ReconAddr, "recon-addr", "STATEMENTD_RECON_ADDR", ":8080", "Reconciliation API production listener; empty disables it")
	s.str(&c.ReconSandboxAddr, "recon-sandbox-addr", "STATEMENTD_RECON_SANDBOX_ADDR", ":8081", "Reconciliation API sandbox listener; empty disables it")
	s.str(&c.ParseAddr, "parse-addr", "STATEMENTD_PARSE_ADDR", ":8082", "Parsing API listener; empty disables it")
	s.str(&c.DashboardAddr, "dashboard-addr", "STATEMENTD_DASHBOARD_ADDR", ":8083", "account dashboard listener (web pages); empty disables it")
	s.str(&c.OpsAddr, "ops-addr", "STATEMENTD_OPS_ADDR", "127.0.0.1:9090", "operator listener (/healthz, /readyz, profiles with --pprof), which asks no credentials: keep it on a private address; empty disables it")
	s.value(func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("must be true or false")
		}
		c.Pprof = b
		return nil
	}, "pprof", "STATEMENTD_PPROF", "false", "serve Go's profiles under /debug/pprof/ on the operator listener")
	s.value(func(v string) error {
		switch r := Role(v); r {
		case RoleAll, RoleAPI, RoleWorker:
			c.Role = r
			return nil
		}
		return errors.New("must be all, api or worker")
	}, "role", "STATEMENTD_ROLE", string(RoleAll), "what this process runs: all, api or worker")
	s.value(func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return errors.New("must be a positive number of bytes")
		}
		c.MaxUploadBytes = n
		return nil
	}, "max-upload-bytes", "STATEMENTD_MAX_UPLOAD_BYTES", "26214400", "largest accepted upload, in bytes")
	s.value(func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("must be a positive number of rows")
		}
		c.MaxRows = n
		return nil
	}, "max-rows", "STATEMENTD_MAX_ROWS", "1000000", "most transactions (rows) a statement file may hold")
	s.value(func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10_000 {
			return errors.New("must be a number of pages from 1 to 10000")
		}
		c.OCR.MaxPages = n
		return nil
	}, "ocr-max-pages", "STATEMENTD_OCR_MAX_PAGES", "50", "most scanned pages a statement may have to be read with OCR")
	s.value(func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1_000_000 || n > 500_000_000 {
			return errors.New("must be a number of pixels from 1000000 to 500000000")
		}
		c.OCR.MaxPixels = n
		return nil
	}, "ocr-max-pixels", "STATEMENTD_OCR_MAX_PIXELS", "60000000", "most pixels of one scanned page (A4 at 600 DPI is 35 million)")
	s.str(&c.OCR.Languages, "ocr-languages", "STATEMENTD_OCR_LANGUAGES", "", "Tesseract languages OCR reads with, such as eng+deu; empty: every installed language")
	s.str(&c.WebhookAllow, "webhook-allow", "STATEMENTD_WEBHOOK_ALLOW", "", "hosts and CIDRs (comma-separated) webhooks may reach although not public; plain http is then allowed for them")
	s.value(func(v string) error {
		sched, err := webhook.ParseSchedule(v)
		c.WebhookRetrySchedule = sched
		return err
	}, "webhook-retry-schedule", "STATEMENTD_WEBHOOK_RETRY_SCHEDULE", webhook.DefaultSchedule.String(),
		"when failed webhook deliveries are retried: offsets from the first attempt, comma-separated")
	s.value(func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10_000 {
			return errors.New("must be a number from 1 to 10000")
		}
		c.WebhookTestsPerMinute = n
		return nil
	}, "webhook-tests-per-minute", "STATEMENTD_WEBHOOK_TESTS_PER_MINUTE", "10", "webhook test requests (POST /api/v1/webhooks/test) an account may send a minute")
	s.value(func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("must be true or false")
		}
		c.Migrate = b
		return nil
	}, "migrate", "STATEMENTD_MIGRATE", "true", "apply pending database migrations at start")
	s.value(func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return errors.New("must be a positive duration such as 30s")
		}
		c.ShutdownTimeout = d
		return nil
	}, "shutdown-timeout", "STATEMENTD_SHUTDOWN_TIMEOUT", "30s", "how long a shutdown waits for in-flight requests")
	s.value(func(v string) error {
		return c.LogLevel.UnmarshalText([]byte(strings.ToUpper(v)))
	}, "log-level", "STATEMENTD_LOG_LEVEL", "info", "debug, info, warn or error")
	s.value(func(v string) error {
		d, err := time.ParseDuration(v)
		// expires_in is a whole number of seconds, at least 1.
		if err != nil || d < time.Second || d%time.Second != 0 {
			return errors.New("must be a whole number of seconds, at least 1s, such as 1h or 90s")
		}
		c.TokenTTL = d
		return nil
	}, "token-ttl", "STATEMENTD_TOKEN_TTL", "1h", "lifetime of Reconciliation API access tokens")
	s.value(func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Minute {
			return errors.New("must be a duration from 0s to 1m, such as 5s")
		}
		c.AuthCacheTTL = d
		return nil
	}, "auth-cache-ttl", "STATEMENTD_AUTH_CACHE_TTL", account.DefaultCredentialCacheTTL.String(), "how long a known token or API key is trusted before the database is asked again (a revocation takes up to this long); 0s asks every request")
	s.value(func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			return errors.New("must be a number from 0 to 1000")
		}
		c.Workers = n
		if n == 0 {
			c.Workers = runtime.NumCPU()
		}
		return nil
	}, "workers", "STATEMENTD_WORKERS", "0", "jobs of each API worked at once by this process; 0: one per CPU")
	duration := func(dst *time.Duration, name, env, def, usage string) {
		s.value(func(v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return errors.New("must be a positive duration such as 2m")
			}
			*dst = d
			return nil
		}, name, env, def, usage)
	}
	duration(&c.JobPollInterval, "job-poll-interval", "STATEMENTD_JOB_POLL_INTERVAL", "50ms", "how often an idle worker looks for new jobs")
	duration(&c.JobTimeout, "job-timeout", "STATEMENTD_JOB_TIMEOUT", "10m", "longest one attempt at a job may run (a scan of 50 pages is read with OCR in about 3 minutes)")
	duration(&c.JobRescueAfter, "job-rescue-after", "STATEMENTD_JOB_RESCUE_AFTER", "12m", "when a job whose worker vanished is run again; longer than --job-timeout")
	days := func(dst *time.Duration, name, env, def, usage string) {
		s.value(func(v string) error {
			d, err := ParseDays(v)
			if err != nil {
				return err
			}
			*dst = d
			return nil
		}, name, env, def, usage)
	}
	days(&c.FileRetention, "file-retention", "STATEMENTD_FILE_RETENTION", "30d", "how long uploaded files are kept after their job was created (days, 30d, or a duration such as 720h)")
	days(&c.ResultRetention, "result-retention", "STATEMENTD_RESULT_RETENTION", "365d", "how long results and transactions are kept after their job was created (days, 365d, or a duration)")
	duration(&c.OCR.PageTimeout, "ocr-page-timeout", "STATEMENTD_OCR_PAGE_TIMEOUT", "60s", "longest the OCR of one scanned page may take")
	duration(&c.ReadHeaderTimeout, "read-header-timeout", "STATEMENTD_READ_HEADER_TIMEOUT", "10s", "longest a client may take to send a request's headers; then the connection is closed")
	duration(&c.ReadTimeout, "read-timeout", "STATEMENTD_READ_TIMEOUT", "5m", "longest a client may take to send a whole request, upload included; then the connection is closed")
	duration(&c.IdleTimeout, "idle-timeout", "STATEMENTD_IDLE_TIMEOUT", "2m", "how long an idle keep-alive connection is kept open")
	s.value(func(v string) error {
		p, err := httpkit.ParseTrustedProxies(v)
		c.TrustedProxies = p
		return err
	}, "trusted-proxies", "STATEMENTD_TRUSTED_PROXIES", "", "CIDRs and addresses (comma-separated) of reverse proxies whose X-Forwarded-For (its rightmost address not theirs) names the client for throttles and logs; from any other peer the header is ignored")
	s.str(&c.TLSCert, "tls-cert", "STATEMENTD_TLS_CERT", "", "PEM file of the certificate chain every listener serves HTTPS (TLS 1.2+) with, reloaded on SIGHUP; empty: plain HTTP, as behind a TLS-terminating proxy")
	s.str(&c.TLSKey, "tls-key", "STATEMENTD_TLS_KEY", "", "PEM file of --tls-cert's private key")
	s.secret(&c.SecretKey, "secret-key", "STATEMENTD_SECRET_KEY",
		"base64 of the 32-byte key that encrypts webhook signing secrets; empty: generated once into the data dir")
	if err := s.parse(args); err != nil {
		return c, err
	}
	if c.JobRescueAfter <= c.JobTimeout {
		return c, fmt.Errorf("--job-rescue-after (%s) must be longer than --job-timeout (%s), or running jobs would be run twice", c.JobRescueAfter, c.JobTimeout)
	}
	if c.ResultRetention < c.FileRetention {
		return c, fmt.Errorf("--result-retention (%s) must not be shorter than --file-retention (%s): results are read back from no file", c.ResultRetention, c.FileRetention)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return c, errors.New("--tls-cert (STATEMENTD_TLS_CERT) and --tls-key (STATEMENTD_TLS_KEY) go together: set both or neither")
	}
	if c.ReadHeaderTimeout > c.ReadTimeout {
		return c, fmt.Errorf("--read-header-timeout (%s) must not be longer than --read-timeout (%s), which includes the headers", c.ReadHeaderTimeout, c.ReadTimeout)
	}
	return c, nil
}

// ParseDatabase reads the database settings of commands such as `statementd migrate`.
func ParseDatabase(name string, args []string, getenv Getenv, output io.Writer) (Database, error) {
	var d Database
	s := newSetting(name, getenv, output)
	s.database(&d)
	return d, s.parse(args)
}

// ParseDays reads a retention period: whole days ("30d") or a Go duration ("720h"), positive.
func ParseDays(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d <= 0 {
			return 0, errors.New("must be a positive number of days such as 30d, or a duration such as 720h")
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("must be a positive number of days such as 30d, or a duration such as 720h")
	}
	return d, nil
}
