package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
)

// view is what every page's template gets.
type view struct {
	Title string
	// Nav names the current section, for the menu.
	Nav string
	// User and CSRF are set once signed in.
	User *people.User
	CSRF string
	// Notice and Problem are a line of success or of trouble above the page.
	Notice, Problem string
	Page            any
}

// render writes page's template with v, or a plain 500 if the template fails (before anything
// was written, since it renders into a buffer).
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	var buf bytes.Buffer
	if err := s.pages[page].Execute(&buf, v); err != nil {
		s.cfg.Logger.ErrorContext(r.Context(), "render dashboard page", slog.String("page", page), slog.String("error", err.Error()))
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type messagePage struct{ Heading, Text string }

// message shows a page with a heading and one paragraph.
func (s *Server) message(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	s.render(w, r, status, "message", view{Title: heading, Page: messagePage{Heading: heading, Text: text}})
}

// unavailable answers a request that failed for a reason of ours (the database, most likely).
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.Logger.ErrorContext(r.Context(), "dashboard request failed", slog.String("route", r.Pattern), slog.String("error", err.Error()))
	w.Header().Set("Retry-After", "5")
	s.message(w, r, http.StatusServiceUnavailable, "Temporarily unavailable", "The dashboard could not complete this request. Try again in a few seconds.")
}

// signedInView is the view of a page for a signed-in user.
func signedInView(req signedInRequest, title, nav string, page any) view {
	u := req.user
	return view{Title: title, Nav: nav, User: &u, CSRF: req.session.CSRF, Page: page}
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(sessionCookie); err == nil {
		http.Redirect(w, r, "/jobs", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/sign-in", http.StatusSeeOther)
}

type signInPage struct {
	Email, Next, FormCSRF string
}

// safeNext keeps a post-sign-in destination on this dashboard: a path of ours, never another
// site ("//evil.example" or "https://...").
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/jobs"
	}
	return next
}

func (s *Server) signInPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "sign_in", view{Title: "Sign in", Page: signInPage{
		Next: safeNext(r.URL.Query().Get("next")), FormCSRF: s.formToken(w, r)}})
}

func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	page := signInPage{Email: strings.TrimSpace(r.PostFormValue("email")), Next: safeNext(r.PostFormValue("next"))}
	if !s.preSessionFormAllowed(r) {
		page.FormCSRF = s.formToken(w, r)
		s.render(w, r, http.StatusForbidden, "sign_in", view{Title: "Sign in", Problem: "This form expired. Sign in again.", Page: page})
		return
	}
	res, err := s.cfg.People.SignIn(r.Context(), page.Email, r.PostFormValue("password"), clientAddress(r))
	var problem string
	status := http.StatusUnauthorized
	switch {
	case err == nil && res.Challenge != "":
		// The password was right; the authenticator's code is due before a session starts.
		s.clearCookie(w, sessionCookie)
		s.setCookie(w, challengeCookie, res.Challenge, people.ChallengeTTL)
		http.Redirect(w, r, "/sign-in/code?next="+url.QueryEscape(page.Next), http.StatusSeeOther)
		return
	case err == nil:
		s.startSession(w, r, res.Token, page.Next)
		return
	case errors.Is(err, people.ErrInvalidCredentials):
		problem = "The email or the password is wrong."
	case errors.Is(err, people.ErrThrottled):
		problem, status = "Too many failed sign-ins from here. Wait a minute, then try again.", http.StatusTooManyRequests
		w.Header().Set("Retry-After", "60")
	default:
		s.unavailable(w, r, err)
		return
	}
	page.FormCSRF = s.formToken(w, r)
	s.render(w, r, status, "sign_in", view{Title: "Sign in", Problem: problem, Page: page})
}

// startSession gives the browser its new session's cookie and sends it on to next. A new session
// at every sign-in: whatever cookie the browser had is replaced.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, token, next string) {
	s.setCookie(w, sessionCookie, token, people.SessionTTL)
	s.clearCookie(w, formCookie)
	s.clearCookie(w, challengeCookie)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// setPasswordLink takes a link's token out of the address bar: it goes into a short-lived
// cookie, and the browser on to the form.
func (s *Server) setPasswordLink(w http.ResponseWriter, r *http.Request) {
	s.setCookie(w, linkCookie, r.PathValue("token"), people.InvitationTTL)
	http.Redirect(w, r, "/set-password", http.StatusSeeOther)
}

type setPasswordPage struct {
	FormCSRF  string
	MinLength int
	Usable    bool
	// Email is whom the link is for.
	Email string
}

func (s *Server) setPasswordPage(w http.ResponseWriter, r *http.Request) {
	page := setPasswordPage{MinLength: people.MinPasswordLength}
	if c, err := r.Cookie(linkCookie); err == nil {
		u, err := s.cfg.People.InvitationUser(r.Context(), c.Value)
		switch {
		case err == nil:
			page.Usable, page.Email = true, u.Email
		case !errors.Is(err, people.ErrLinkInvalid):
			s.unavailable(w, r, err)
			return
		}
	}
	page.FormCSRF = s.formToken(w, r)
	s.render(w, r, http.StatusOK, "set_password", view{Title: "Set your password", Page: page})
}

func (s *Server) setPassword(w http.ResponseWriter, r *http.Request) {
	page := setPasswordPage{MinLength: people.MinPasswordLength, Usable: true}
	c, err := r.Cookie(linkCookie)
	if err != nil || !s.preSessionFormAllowed(r) {
		page.FormCSRF, page.Usable = s.formToken(w, r), err == nil
		s.render(w, r, http.StatusForbidden, "set_password", view{Title: "Set your password",
			Problem: "This form expired. Open the link you were sent again.", Page: page})
		return
	}
	password := r.PostFormValue("password")
	problem := ""
	if password != r.PostFormValue("confirm") {
		problem = "The two passwords differ."
	} else if _, err = s.cfg.People.SetPassword(r.Context(), c.Value, password, clientAddress(r)); err != nil {
		switch {
		case errors.Is(err, people.ErrInvalid):
			problem = strings.TrimPrefix(err.Error(), people.ErrInvalid.Error()+": ")
			problem = strings.ToUpper(problem[:1]) + problem[1:] + "."
		case errors.Is(err, people.ErrLinkInvalid):
			page.Usable = false
		default:
			s.unavailable(w, r, err)
			return
		}
	}
	if problem != "" || !page.Usable {
		page.FormCSRF = s.formToken(w, r)
		s.render(w, r, http.StatusUnprocessableEntity, "set_password", view{Title: "Set your password", Problem: problem, Page: page})
		return
	}
	s.clearCookie(w, linkCookie)
	s.render(w, r, http.StatusOK, "sign_in", view{Title: "Sign in", Notice: "Your password is set. Sign in with it.",
		Page: signInPage{Next: "/jobs", FormCSRF: s.formToken(w, r)}})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	by := req.user.Actor(clientAddress(r))
	var err error
	if r.PostFormValue("everywhere") == "1" {
		err = s.cfg.People.SignOutEverywhere(r.Context(), req.user, by)
	} else {
		err = s.cfg.People.SignOut(r.Context(), req.token, by)
	}
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.clearCookie(w, sessionCookie)
	s.render(w, r, http.StatusOK, "sign_in", view{Title: "Sign in", Notice: "You are signed out.",
		Page: signInPage{Next: "/jobs", FormCSRF: s.formToken(w, r)}})
}

// clientsPage lists the account's API clients; created, when set, is the one just made, with
// its secret, shown this once.
type clientsPage struct {
	Clients     []account.Client
	Permissions []account.Permission
	Created     *createdSecret
	CanManage   bool
	Overlaps    any
}

type createdSecret struct {
	ID, Secret string
	// Rotated: a new secret of an existing client.
	Rotated bool
}

func (s *Server) clientsPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.showClients(w, r, req, http.StatusOK, "", "", nil)
}

func (s *Server) showClients(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, notice, problem string, created *createdSecret) {
	clients, err := s.cfg.Accounts.Clients(r.Context(), req.user.AccountID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	v := signedInView(req, "API clients", "clients", clientsPage{Clients: clients, Permissions: account.AllPermissions,
		Created: created, CanManage: req.user.Role.ManagesCredentials(), Overlaps: rotationOverlaps})
	v.Notice, v.Problem = notice, problem
	s.render(w, r, status, "clients", v)
}

// mayManage answers 403 unless the user's role manages credentials.
func (s *Server) mayManage(w http.ResponseWriter, r *http.Request, req signedInRequest) bool {
	if req.user.Role.ManagesCredentials() {
		return true
	}
	s.message(w, r, http.StatusForbidden, "Not allowed", "Your role ("+string(req.user.Role)+") can read this account's credentials, not change them. Ask an owner.")
	return false
}

func (s *Server) createClient(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	var perms []account.Permission
	for _, p := range r.PostForm["permission"] {
		perms = append(perms, account.Permission(p))
	}
	if len(perms) == 0 {
		s.showClients(w, r, req, http.StatusUnprocessableEntity, "", "Choose at least one permission.", nil)
		return
	}
	c, secret, err := s.cfg.Accounts.CreateClient(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, perms)
	if errors.Is(err, account.ErrInvalid) {
		s.showClients(w, r, req, http.StatusUnprocessableEntity, "", "Those permissions are not known.", nil)
		return
	}
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.showClients(w, r, req, http.StatusOK, "", "", &createdSecret{ID: c.ID, Secret: secret})
}

func (s *Server) revokeClient(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	id := r.PathValue("id")
	err := s.cfg.Accounts.RevokeClient(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, id)
	s.afterRevoke(w, r, err, "API client", "Client "+id+" is revoked: its secret and its tokens no longer work.",
		"Client "+id+" was already revoked.", func(notice string) { s.showClients(w, r, req, http.StatusOK, notice, "", nil) })
}

// afterRevoke answers a revocation: the list again with done (or already, when it was revoked
// before), 404 when the account has no such credential (a noun), 503 on any other error.
func (s *Server) afterRevoke(w http.ResponseWriter, r *http.Request, err error, noun, done, already string, show func(notice string)) {
	switch {
	case err == nil:
		show(done)
	case errors.Is(err, account.ErrRevoked):
		show(already)
	case errors.Is(err, account.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such "+noun+".")
	default:
		s.unavailable(w, r, err)
	}
}

// rotationOverlaps are the choices of how long a rotated client's previous secret keeps working.
var rotationOverlaps = []struct {
	Value string
	Label string
	D     time.Duration
}{
	{"24h", "24 hours", 24 * time.Hour},
	{"1h", "1 hour", time.Hour},
	{"168h", "7 days", 7 * 24 * time.Hour},
	{"0s", "no overlap: it stops now", 0},
}

func (s *Server) rotateClient(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	id, overlap := r.PathValue("id"), time.Duration(-1)
	for _, o := range rotationOverlaps {
		if r.PostFormValue("overlap") == o.Value {
			overlap = o.D
		}
	}
	if overlap < 0 {
		s.showClients(w, r, req, http.StatusUnprocessableEntity, "", "Choose how long the current secret keeps working.", nil)
		return
	}
	secret, err := s.cfg.Accounts.RotateClientSecret(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, id, overlap)
	switch {
	case err == nil:
		s.showClients(w, r, req, http.StatusOK, "", "", &createdSecret{ID: id, Secret: secret, Rotated: true})
	case errors.Is(err, account.ErrRevoked):
		s.showClients(w, r, req, http.StatusConflict, "", "Client "+id+" is revoked; create a new one.", nil)
	case errors.Is(err, account.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such API client.")
	default:
		s.unavailable(w, r, err)
	}
}

type keysPage struct {
	Keys      []account.APIKey
	Scopes    []account.Scope
	Created   *createdSecret
	CanManage bool
}

func (s *Server) keysPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.showKeys(w, r, req, http.StatusOK, "", "", nil)
}

func (s *Server) showKeys(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, notice, problem string, created *createdSecret) {
	keys, err := s.cfg.Accounts.APIKeys(r.Context(), req.user.AccountID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	v := signedInView(req, "API keys", "keys", keysPage{Keys: keys, Scopes: account.AllScopes, Created: created,
		CanManage: req.user.Role.ManagesCredentials()})
	v.Notice, v.Problem = notice, problem
	s.render(w, r, status, "keys", v)
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	var scopes []account.Scope
	for _, sc := range r.PostForm["scope"] {
		scopes = append(scopes, account.Scope(sc))
	}
	if len(scopes) == 0 {
		s.showKeys(w, r, req, http.StatusUnprocessableEntity, "", "Choose at least one scope.", nil)
		return
	}
	k, key, err := s.cfg.Accounts.CreateAPIKey(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, scopes)
	if errors.Is(err, account.ErrInvalid) {
		s.showKeys(w, r, req, http.StatusUnprocessableEntity, "", "Those scopes are not known.", nil)
		return
	}
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.showKeys(w, r, req, http.StatusOK, "", "", &createdSecret{ID: k.Prefix, Secret: key})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	id, err := uuid.Parse(r.PathValue("id"))
	if err == nil {
		err = s.cfg.Accounts.RevokeAPIKey(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, id)
	} else {
		err = account.ErrNotFound
	}
	s.afterRevoke(w, r, err, "API key", "The key is revoked: it no longer works.", "The key was already revoked.",
		func(notice string) { s.showKeys(w, r, req, http.StatusOK, notice, "", nil) })
}

// auditPageSize is how many events a page of the audit log shows.
const auditPageSize = 50

type auditPage struct {
	Events []audit.Event
	// Older is the cursor of the next page, 0 when this is the last.
	Older int64
}

func (s *Server) auditPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	var before int64
	if raw := r.URL.Query().Get("before"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			s.message(w, r, http.StatusBadRequest, "Bad page", fmt.Sprintf("%q is not a page of the audit log.", raw))
			return
		}
		before = n
	}
	events, err := s.cfg.Audit.Events(r.Context(), req.user.AccountID, before, auditPageSize+1)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	page := auditPage{Events: events}
	if len(events) > auditPageSize {
		page.Events = events[:auditPageSize]
		page.Older = page.Events[auditPageSize-1].ID
	}
	s.render(w, r, http.StatusOK, "audit", signedInView(req, "Audit log", "audit", page))
}
