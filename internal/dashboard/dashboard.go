// Package dashboard is the account dashboard: server-rendered HTML pages where the people of an
// account sign in and manage their API clients, API keys and webhook endpoints, owners their
// users and the signing secret, and everyone reads the audit log. It calls
// the domain services (internal/account, internal/people, internal/audit) as the APIs do, never
// the APIs themselves. Every form works without JavaScript; the one script, embedded, only adds
// copy buttons.
//
// # Security
//
//   - Sessions are server-side (people.Session): the cookie holds a random token, HttpOnly,
//     SameSite=Lax, Secure unless the listener is plain HTTP on loopback; a new one at every
//     sign-in, so a cookie planted before sign-in is worthless (no fixation).
//   - Every POST carries a CSRF token: the session's own once signed in, and before that (sign-in,
//     set password) one that must match a cookie set with the form. A POST whose Origin names
//     another site is refused as well.
//   - Every page and action takes its account from the session, never from the request: an id of
//     another account's client or key is not found.
//   - Pages are not cached, not framed, and load nothing but their own CSS and script (a
//     Content-Security-Policy header); links carry no referrer. Secrets are shown once, in the
//     answer to the POST that made them, never in a URL or a log. The access log names routes,
//     not paths, so a set-password link's token never reaches it.
package dashboard

import (
	"context"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/people"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/webhook"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what the dashboard needs.
type Config struct {
	Accounts *account.Service
	People   *people.Service
	Audit    audit.Store
	Logger   *slog.Logger
	// SecureCookies marks cookies Secure: every listener but plain HTTP on loopback, where a
	// browser would not send them back.
	SecureCookies bool
	// TrustedProxies name the client of a request for the audit log and the sign-in throttles.
	TrustedProxies httpkit.TrustedProxies
	// DB is pinged by /readyz; nil pings nothing.
	DB httpkit.Pinger
	// Observe, when set, is told of every request answered: its route pattern ("" when no
	// route took it), method, status and how long it took, for the metrics.
	Observe httpkit.RequestObserver
	// Webhooks are the account's webhook endpoints; WebhookTests the budget of test
	// deliveries each account shares with the Parsing API's POST /webhooks/test.
	Webhooks     *webhook.Service
	WebhookTests *ratelimit.Throttle
	// Recon and Parse are the job rules of both APIs; MaxFileBytes bounds each uploaded file,
	// as the APIs do.
	Recon        *reconjob.Service
	Parse        *parsejob.Service
	MaxFileBytes int64
}

// Server serves the dashboard.
type Server struct {
	cfg   Config
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New returns the dashboard's handler.
func New(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, pages: map[string]*template.Template{}, mux: http.NewServeMux()}
	for _, page := range []string{"sign_in", "sign_in_code", "set_password", "jobs", "new_job", "recon_job", "parse_job", "parse_row", "usage", "clients", "keys", "webhooks", "deliveries", "users", "account", "signing", "audit", "message"} {
		t, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(templateFS, "templates/layout.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		s.pages[page] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	s.routes(http.FileServerFS(static))
	return s, nil
}

func (s *Server) routes(static http.Handler) {
	m := s.mux
	m.Handle("GET /static/", http.StripPrefix("/static/", cacheStatic(static)))
	m.HandleFunc("GET /healthz", httpkit.Liveness)
	m.HandleFunc("GET /readyz", httpkit.Readiness(s.cfg.DB))
	m.HandleFunc("GET /{$}", s.home)
	m.HandleFunc("GET /sign-in", s.signInPage)
	m.HandleFunc("POST /sign-in", s.signIn)
	m.HandleFunc("GET /sign-in/code", s.codePage)
	m.HandleFunc("POST /sign-in/code", s.signInCode)
	m.HandleFunc("GET /set-password/{token}", s.setPasswordLink)
	m.HandleFunc("GET /set-password", s.setPasswordPage)
	m.HandleFunc("POST /set-password", s.setPassword)
	m.Handle("POST /sign-out", s.signedIn(s.signOut))
	m.Handle("GET /jobs", s.signedIn(s.jobsPage))
	m.Handle("GET /jobs/new", s.signedIn(s.newJobPage))
	m.Handle("POST /jobs/reconciliation", s.signedInUpload(s.createReconJob))
	m.Handle("POST /jobs/parsing", s.signedInUpload(s.createParseJob))
	m.Handle("GET /jobs/reconciliation/{env}/{id}", s.signedIn(s.reconJobPage))
	m.Handle("GET /jobs/reconciliation/{env}/{id}/results.csv", s.signedIn(s.reconDownload("csv")))
	m.Handle("GET /jobs/reconciliation/{env}/{id}/results.xlsx", s.signedIn(s.reconDownload("xlsx")))
	m.Handle("GET /jobs/parsing/{id}", s.signedIn(s.parseJobPage))
	m.Handle("GET /jobs/parsing/{id}/rows/{n}", s.signedIn(s.parseRowPage))
	m.Handle("GET /jobs/parsing/{id}/pages/{n}", s.signedIn(s.pageImage))
	m.Handle("GET /jobs/parsing/{id}/export.csv", s.signedIn(s.parseExport(false)))
	m.Handle("GET /jobs/parsing/{id}/export.json", s.signedIn(s.parseExport(true)))
	m.Handle("GET /usage", s.signedIn(s.usagePage))
	m.Handle("GET /clients", s.signedIn(s.clientsPage))
	m.Handle("POST /clients", s.signedIn(s.createClient))
	m.Handle("POST /clients/{id}/revoke", s.signedIn(s.revokeClient))
	m.Handle("POST /clients/{id}/rotate", s.signedIn(s.rotateClient))
	m.Handle("GET /keys", s.signedIn(s.keysPage))
	m.Handle("POST /keys", s.signedIn(s.createKey))
	m.Handle("POST /keys/{id}/revoke", s.signedIn(s.revokeKey))
	m.Handle("GET /webhooks", s.signedIn(s.webhooksPage))
	m.Handle("POST /webhooks/{id}/test", s.signedIn(s.testWebhook))
	m.Handle("POST /webhooks/{id}/disable", s.signedIn(s.switchWebhook(false)))
	m.Handle("POST /webhooks/{id}/enable", s.signedIn(s.switchWebhook(true)))
	m.Handle("GET /webhooks/{id}/deliveries", s.signedIn(s.deliveriesPage))
	m.Handle("GET /users", s.signedIn(s.usersPage))
	m.Handle("POST /users", s.signedIn(s.inviteUser))
	m.Handle("POST /users/{id}/link", s.signedIn(s.newLink))
	m.Handle("POST /users/{id}/role", s.signedIn(s.setRole))
	m.Handle("POST /users/{id}/disable", s.signedIn(s.setDisabled(true)))
	m.Handle("POST /users/{id}/enable", s.signedIn(s.setDisabled(false)))
	m.Handle("POST /users/{id}/remove", s.signedIn(s.removeUser))
	m.Handle("POST /users/{id}/second-factor/remove", s.signedIn(s.removeSecondFactor))
	m.Handle("GET /account", s.signedIn(s.accountPage))
	m.Handle("POST /account/password", s.signedIn(s.changePassword))
	m.Handle("POST /account/second-factor/setup", s.signedIn(s.beginSecondFactor))
	m.Handle("POST /account/second-factor/enable", s.signedIn(s.enableSecondFactor))
	m.Handle("POST /account/second-factor/remove", s.signedIn(s.disableSecondFactor))
	m.Handle("GET /signing-secret", s.signedIn(s.signingPage))
	m.Handle("POST /signing-secret/reveal", s.signedIn(s.revealSigningSecret))
	m.Handle("POST /signing-secret/rotate", s.signedIn(s.rotateSigningSecret))
	m.Handle("GET /audit", s.signedIn(s.auditPage))
}

// ServeHTTP runs every request through the headers, the access log and panic recovery, then the
// routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	if a, ok := s.cfg.TrustedProxies.Client(r); ok {
		r = r.WithContext(context.WithValue(r.Context(), clientKey{}, a.String()))
	}
	h := rec.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.cfg.Logger.ErrorContext(r.Context(), "panic in dashboard handler", slog.Any("panic", p))
			if !rec.wrote {
				s.message(rec, r, http.StatusInternalServerError, "Something went wrong", "The page could not be shown. Try again; if it persists, contact support.")
			}
		}
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		// The route's pattern, never the path: a set-password link's path holds its token.
		s.cfg.Logger.LogAttrs(r.Context(), level, "request", slog.String("api", "dashboard"),
			slog.String("method", r.Method), slog.String("route", r.Pattern), slog.Int("status", rec.status),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("remote_ip", clientAddress(r)), slog.String("account", rec.account))
		if s.cfg.Observe != nil {
			_, route, _ := strings.Cut(r.Pattern, " ")
			s.cfg.Observe(route, r.Method, rec.status, time.Since(start))
		}
	}()
	s.mux.ServeHTTP(rec, r)
}

// cacheStatic lets browsers keep the CSS and script for a day: they hold nothing of an account.
func cacheStatic(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		h.ServeHTTP(w, r)
	})
}

type clientKey struct{}

// clientAddress is the request's client, resolved behind a trusted proxy.
func clientAddress(r *http.Request) string {
	if a, ok := r.Context().Value(clientKey{}).(string); ok {
		return a
	}
	return r.RemoteAddr
}

// statusRecorder remembers the status and the account for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status  int
	wrote   bool
	account string
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

var templateFuncs = template.FuncMap{
	"when": func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"date":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"seconds": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"ms":      func(d time.Duration) int64 { return d.Milliseconds() },
	"ageDays": func(t time.Time) int {
		return int(time.Since(t).Hours() / 24)
	},
	"future": func(t *time.Time) bool { return t != nil && time.Now().Before(*t) },
	"inc":    func(i int) int { return i + 1 },
	// boxWidth and boxHeight size a row's outline on its page.
	"boxWidth":  func(b *statement.Box) float64 { return b.Right - b.Left },
	"boxHeight": func(b *statement.Box) float64 { return b.Bottom - b.Top },
	// cornerPoints outlines a row that runs askew on its page.
	"cornerPoints": cornerPoints,
}
