package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/dashboard"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/httpkit/listen"
	"github.com/statementmatch/service/internal/metrics"
	"github.com/statementmatch/service/internal/parsehttp"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/people"
	"github.com/statementmatch/service/internal/platform/config"
	"github.com/statementmatch/service/internal/platform/secretbox"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/reconhttp"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/webhook"
)

// serve runs the listeners of the process's role until ctx ends (SIGTERM or SIGINT), then stops
// accepting, lets in-flight requests finish within the shutdown timeout and closes the database.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := config.ParseServe(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger, flushLog := newLogger(stderr, cfg.LogLevel)
	defer flushLog()
	slog.SetDefault(logger)
	db, closeDB, createdDB, err := openDatabase(ctx, cfg.Database, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if cfg.Migrate {
		if err := postgres.Migrate(ctx, db.DB); err != nil {
			return err
		}
	}

	key, err := secretbox.LoadKey(cfg.DataDir, cfg.SecretKey)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	box, err := secretbox.New(key)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	accounts := &account.Service{Store: postgres.NewAccountStore(db), Sealer: box, Now: time.Now, TokenTTL: cfg.TokenTTL,
		CacheTTL: cfg.AuthCacheTTL}

	// One limiter for every listener of the process; the count itself is in the database,
	// shared with every other process.
	// Every refusal is counted in the metrics of the operator listener.
	counts, m := postgres.NewRateLimitStore(db), metrics.New()
	limiter := &ratelimit.Limiter{Store: counts, Now: time.Now, Refused: m.RateLimited}
	budget := func(n int, name string) *ratelimit.Throttle {
		return &ratelimit.Throttle{Store: counts, Now: time.Now, Budget: n, Refused: m.ThrottleRefused(name)}
	}
	throttles := throttles{
		token:          budget(reconhttp.FailedAuthBudget, metrics.ThrottleTokenClientAddress),
		tokenAddresses: budget(reconhttp.FailedAuthAddressBudget, metrics.ThrottleTokenAddress),
		tokenBackstop:  budget(reconhttp.FailedAuthClientBackstop, metrics.ThrottleTokenClient),
		anonymous:      budget(httpkit.AnonymousBudget, metrics.ThrottleAnonymous),
		webhookTests:   budget(cfg.WebhookTestsPerMinute, metrics.ThrottleWebhookTests),
	}
	// The dashboard's people sign in under the same kind of throttles, in the same table.
	team := &people.Service{Store: postgres.NewPeopleStore(db), Sealer: box, Now: time.Now,
		Throttle:        budget(people.FailedSignInBudget, metrics.ThrottleSignInEmailAddress),
		AddressThrottle: budget(people.FailedSignInAddressBudget, metrics.ThrottleSignInAddress),
		Backstop:        budget(people.FailedSignInBackstop, metrics.ThrottleSignInEmail)}
	if createdDB && cfg.Migrate {
		if err := createDemo(ctx, accounts, team, cfg, stdout); err != nil {
			return fmt.Errorf("demo account: %w", err)
		}
	}

	// The queue and the job rules: every process can queue jobs; the worker roles also work them.
	enqueuer, err := queue.NewEnqueuer(db.DB)
	if err != nil {
		return err
	}
	// Scans are read with OCR by the workers only; the upload check leaves them to them.
	ocr := cfg.OCR
	limits := statement.Options{MaxRows: cfg.MaxRows, OCR: &ocr}
	// Protected statements are stored decrypted and sealed with the service key; their
	// passwords are identified, never kept, by digests keyed with it.
	jobStore, parseStore := postgres.NewJobStore(db, enqueuer), postgres.NewParseJobStore(db, enqueuer)
	jobStore.Sealer, parseStore.Sealer = box, box
	jobs := &reconjob.Service{Store: jobStore, Accounts: accounts.Store, Now: time.Now, Limits: limits, Logger: logger,
		Digester: box, Observer: m}
	parses := &parsejob.Service{Store: parseStore, Accounts: accounts.Store, Now: time.Now, Limits: limits, Logger: logger,
		Digester: box, Observer: m}
	policy, err := webhook.ParsePolicy(cfg.WebhookAllow)
	if err != nil {
		return fmt.Errorf("STATEMENTD_WEBHOOK_ALLOW / --webhook-allow: %w", err)
	}
	webhookStore := postgres.NewWebhookStore(db)
	webhooks := &webhook.Service{Store: webhookStore, Deliveries: webhookStore, Secrets: accounts, Policy: policy,
		Sender: webhook.NewSender(policy), Schedule: cfg.WebhookRetrySchedule, Now: time.Now, Logger: logger,
		Attempted: m.DeliveryAttempted}
	m.WatchDatabase(db.DB, func(ctx context.Context) ([]metrics.QueueDepth, error) {
		depths, err := queue.Depths(ctx, db.DB)
		out := make([]metrics.QueueDepth, len(depths))
		for i, d := range depths {
			out[i] = metrics.QueueDepth(d)
		}
		return out, err
	}, logger)

	var workers *queue.Workers
	if cfg.Role != config.RoleAPI {
		sweeper := &postgres.Sweeper{DB: db, Queue: enqueuer, Recon: reconjob.Abandoned, Parse: parsejob.Abandoned,
			DeliveryKind: queue.KindDelivery}
		retention := &postgres.Retention{DB: db, FileRetention: cfg.FileRetention, ResultRetention: cfg.ResultRetention}
		purge := func(ctx context.Context) error {
			p, err := retention.Purge(ctx)
			if p != (postgres.Purged{}) {
				logger.Info("data past its retention deleted", slog.Int64("files", p.Files), slog.Int64("results", p.Results),
					slog.Int64("transactions", p.Transactions), slog.Int64("webhook_events", p.Events),
					slog.Int64("idempotency_records", p.IdempotencyKeys))
			}
			return err
		}
		workers, err = queue.NewWorkers(db.DB, queue.Config{Workers: cfg.Workers, Reconcile: jobs.Process, Parse: parses.Process,
			Deliver: webhooks.Deliver, Sweep: sweeper.Sweep, Purge: purge, PollInterval: cfg.JobPollInterval, JobTimeout: cfg.JobTimeout,
			RescueAfter: cfg.JobRescueAfter, Logger: logger, Waited: m.Waited})
		if err != nil {
			return err
		}
	}

	var cert *listen.Certificate
	if cfg.TLSCert != "" {
		if cert, err = listen.LoadCertificate(cfg.TLSCert, cfg.TLSKey); err != nil {
			return err
		}
		logger.Info("every listener serves HTTPS", slog.String("certificate", listen.Describe(cert.Leaf())))
	}
	listeners, err := buildListeners(cfg, postgres.Health{DB: db}, accounts, jobs, parses, webhooks, limiter, throttles, cert, m, logger)
	if err != nil {
		return err
	}
	dash, err := dashboardListener(cfg, dashboard.Config{Accounts: accounts, People: team, Audit: postgres.NewAuditStore(db),
		Logger: logger, Observe: requestsOf(m, metrics.APIDashboard), DB: postgres.Health{DB: db}, TrustedProxies: cfg.TrustedProxies, Webhooks: webhooks,
		WebhookTests: throttles.webhookTests, Recon: jobs, Parse: parses, MaxFileBytes: cfg.MaxUploadBytes}, cert, logger)
	if err != nil {
		return err
	}
	if dash != nil {
		listeners = append(listeners, dash)
	}
	// Bind every address before serving any, so a port in use fails the start as a whole.
	for _, l := range listeners {
		if err := l.Listen(); err != nil {
			return err
		}
	}
	// The queue's context is not the signal's: on SIGTERM it stops fetching and lets running
	// jobs finish within the shutdown timeout, then hands the rest back to the queue.
	workerCount := 0
	if workers != nil {
		if err := workers.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("start job queue: %w", err)
		}
		workerCount = cfg.Workers
	}
	logger.Info("statementd started", slog.String("version", version), slog.String("role", string(cfg.Role)),
		slog.Int("workers", workerCount))

	g, gctx := errgroup.WithContext(ctx)
	for _, l := range listeners {
		g.Go(l.Serve)
	}
	if cert != nil {
		g.Go(func() error { reloadOnHangup(gctx, cert, logger); return nil })
	}
	g.Go(func() error {
		<-gctx.Done()
		logger.Info("shutting down: no new requests are accepted; waiting for in-flight ones",
			slog.String("timeout", cfg.ShutdownTimeout.String()))
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
		defer cancel()
		var wg sync.WaitGroup
		if workers != nil {
			wg.Go(func() {
				if err := workers.Stop(shutdownCtx); err != nil {
					logger.Error("shutdown", slog.String("component", "queue"), slog.String("error", err.Error()))
				}
			})
		}
		for _, l := range listeners {
			if err := l.Shutdown(shutdownCtx); err != nil {
				logger.Error("shutdown", slog.String("listener", l.Name), slog.String("error", err.Error()))
			}
		}
		wg.Wait()
		return nil
	})
	err = g.Wait()
	logger.Info("statementd stopped")
	return err
}

// buildListeners returns the listeners the role and addresses ask for; an empty address
// disables its listener.
func buildListeners(cfg config.Serve, db httpkit.Pinger, accounts *account.Service, jobs *reconjob.Service, parses *parsejob.Service, webhooks *webhook.Service, limiter httpkit.RateLimiter, th throttles, cert *listen.Certificate, m *metrics.Metrics, logger *slog.Logger) ([]*listen.Listener, error) {
	var listeners []*listen.Listener
	add := func(name, addr string, h http.Handler) {
		listeners = append(listeners, &listen.Listener{Name: name, Addr: addr, Handler: h, Logger: logger, TLS: cert,
			Timeouts: listen.Timeouts{ReadHeader: cfg.ReadHeaderTimeout, Read: cfg.ReadTimeout, Idle: cfg.IdleTimeout}})
	}
	if cfg.Role != config.RoleWorker {
		for _, env := range []struct {
			name, addr, api string
			env             account.Environment
		}{
			{"recon", cfg.ReconAddr, metrics.APIReconProduction, account.Production},
			{"recon-sandbox", cfg.ReconSandboxAddr, metrics.APIReconSandbox, account.Sandbox},
		} {
			if env.addr == "" {
				continue
			}
			h, err := reconhttp.New(reconhttp.Config{Env: env.env, Logger: logger, DB: db, TrustedProxies: cfg.TrustedProxies,
				Observe: requestsOf(m, env.api), Accounts: accounts, Now: time.Now, Limiter: limiter, Throttle: th.token, AddressThrottle: th.tokenAddresses, ClientBackstop: th.tokenBackstop, Anonymous: th.anonymous,
				Jobs: jobs, MaxFileBytes: cfg.MaxUploadBytes, MaxUploadBodyBytes: uploadBodyLimit(cfg.MaxUploadBytes)})
			if err != nil {
				return nil, fmt.Errorf("%s listener: %w", env.name, err)
			}
			add(env.name, env.addr, h)
		}
		if cfg.ParseAddr != "" {
			h, err := parsehttp.New(parsehttp.Config{Logger: logger, DB: db, TrustedProxies: cfg.TrustedProxies,
				Observe: requestsOf(m, metrics.APIParse), Accounts: accounts, Limiter: limiter, Anonymous: th.anonymous,
				Jobs: parses, Webhooks: webhooks, WebhookTests: th.webhookTests, Version: version, MaxFileBytes: cfg.MaxUploadBytes, MaxUploadBodyBytes: uploadBodyLimit(cfg.MaxUploadBytes)})
			if err != nil {
				return nil, fmt.Errorf("parse listener: %w", err)
			}
			add("parse", cfg.ParseAddr, h)
		}
	}
	if cfg.OpsAddr != "" {
		add("ops", cfg.OpsAddr, opsHandler(db, m, cfg.Pprof))
		if !loopback(cfg.OpsAddr) {
			logger.Warn("the operator listener asks no credentials and is reachable beyond this machine: keep its address private",
				"addr", cfg.OpsAddr, "pprof", cfg.Pprof)
		}
	}
	return listeners, nil
}

// requestsOf counts the requests of listener api in m.
func requestsOf(m *metrics.Metrics, api string) httpkit.RequestObserver {
	return func(route, method string, status int, took time.Duration) {
		m.Request(api, route, method, status, took)
	}
}

// reloadOnHangup reads the TLS certificate again on every SIGHUP until ctx ends, so that a
// renewed one is served without a restart; a pair that does not load is logged and the one being
// served stays. Only a process with TLS takes SIGHUP: without it, the signal keeps its usual
// meaning.
func reloadOnHangup(ctx context.Context, cert *listen.Certificate, logger *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			leaf, err := cert.Reload()
			if err != nil {
				logger.Error("SIGHUP: the TLS certificate was not reloaded; the previous one is still served", slog.String("error", err.Error()))
				continue
			}
			logger.Info("SIGHUP: TLS certificate reloaded", slog.String("certificate", listen.Describe(leaf)))
		}
	}
}

// dashboardListener returns the account dashboard's listener, or nil when the role or an empty
// address disables it. Its cookies are Secure unless it serves plain HTTP on loopback, where a
// browser would not send them back (behind a TLS-terminating proxy they are Secure).
func dashboardListener(cfg config.Serve, dc dashboard.Config, cert *listen.Certificate, logger *slog.Logger) (*listen.Listener, error) {
	if cfg.Role == config.RoleWorker || cfg.DashboardAddr == "" {
		return nil, nil
	}
	dc.SecureCookies = cert != nil || !loopback(cfg.DashboardAddr)
	h, err := dashboard.New(dc)
	if err != nil {
		return nil, fmt.Errorf("dashboard listener: %w", err)
	}
	return &listen.Listener{Name: "dashboard", Addr: cfg.DashboardAddr, Handler: h, Logger: logger, TLS: cert,
		Timeouts: listen.Timeouts{ReadHeader: cfg.ReadHeaderTimeout, Read: cfg.ReadTimeout, Idle: cfg.IdleTimeout}}, nil
}

// loopback reports whether a listener address binds the loopback interface only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// throttles are the process's counters of attempts per minute, each kept in the database.
type throttles struct {
	// token, tokenAddresses and tokenBackstop count failed token requests per client and
	// address, per address, and per client; anonymous counts requests without valid
	// credentials per address; webhookTests counts each account's webhook test requests.
	token, tokenAddresses, tokenBackstop, anonymous, webhookTests *ratelimit.Throttle
}

// uploadBodyLimit is the largest request body: a reconciliation job carries two files of up to
// the upload limit each, plus the multipart framing.
func uploadBodyLimit(maxUpload int64) int64 { return 2*maxUpload + 1<<20 }

// opsHandler serves the operator endpoints: process liveness and database readiness, for load
// balancers and orchestrators that should not need to know the API listeners; the Prometheus
// metrics (/metrics); and, with pprof,
// Go's profiles under /debug/pprof/ (CPU, heap, goroutines), for measuring a live process. The
// operator listener asks no credentials, so it is never the public one. Even with profiles on,
// /debug/pprof/cmdline is not served: a command line may hold a secret.
func opsHandler(db httpkit.Pinger, m *metrics.Metrics, pprofOn bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", httpkit.Liveness)
	mux.HandleFunc("GET /readyz", httpkit.Readiness(db))
	if !pprofOn {
		return mux
	}
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", http.NotFound)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}
