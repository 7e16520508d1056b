package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/statementmatch/service/internal/people"
)

// The cookies. __Host- would pin them to the host and path, but needs Secure, which plain HTTP
// on loopback cannot have; each cookie is set with Path=/ and no Domain either way.
const (
	sessionCookie = "sm_session"
	// formCookie holds the CSRF token of the forms shown before sign-in.
	formCookie = "sm_form"
	// linkCookie carries a set-password link's token from the link to the form, so that the
	// token leaves the address bar at once.
	linkCookie = "sm_link"
	// challengeCookie carries a sign-in whose password was right to the page that asks for
	// the authenticator's code.
	challengeCookie = "sm_challenge"
)

// signedInRequest is a request of a signed-in user.
type signedInRequest struct {
	session people.Session
	user    people.User
	token   string
}

// signedIn runs h for a request with a live session: a GET without one goes to the sign-in page,
// any other method gets 403; a POST whose CSRF token is not the session's is refused (403).
func (s *Server) signedIn(h func(http.ResponseWriter, *http.Request, signedInRequest)) http.Handler {
	return s.session(true, h)
}

// signedInUpload is signedIn for a multipart upload, whose handler checks the CSRF token itself
// (readUpload): reading it here would read the files into memory first.
func (s *Server) signedInUpload(h func(http.ResponseWriter, *http.Request, signedInRequest)) http.Handler {
	return s.session(false, h)
}

func (s *Server) session(checkForm bool, h func(http.ResponseWriter, *http.Request, signedInRequest)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		var req signedInRequest
		if err == nil {
			req.session, req.user, err = s.cfg.People.Authenticate(r.Context(), c.Value)
			req.token = c.Value
		}
		switch {
		case err == nil:
		case errors.Is(err, http.ErrNoCookie) || errors.Is(err, people.ErrSessionEnded):
			s.clearCookie(w, sessionCookie)
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/sign-in?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
				return
			}
			s.message(w, r, http.StatusForbidden, "Signed out", "Your session has ended. Sign in again, then repeat what you were doing.")
			return
		default:
			s.unavailable(w, r, err)
			return
		}
		if rec, ok := w.(*statusRecorder); ok {
			rec.account = req.user.AccountID.String()
		}
		if checkForm && r.Method == http.MethodPost && !s.formAllowed(r, req.session.CSRF) {
			s.message(w, r, http.StatusForbidden, "Form expired", "This form was not sent from this dashboard's page, or its page is too old. Go back, reload the page and try again.")
			return
		}
		h(w, r, req)
	})
}

// formAllowed checks a POST's CSRF token against want, in constant time, and that its Origin,
// when the browser sends one, is this dashboard.
func (s *Server) formAllowed(r *http.Request, want string) bool {
	return sameOrigin(r) && constantEqual(r.PostFormValue("csrf"), want)
}

// sameOrigin reports whether a POST's Origin, when the browser sends one, is this dashboard.
func sameOrigin(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	return true
}

// constantEqual compares a form's token with the expected one in constant time; empty never
// matches.
func constantEqual(got, want string) bool {
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// formToken returns the CSRF token of a form shown before sign-in, setting its cookie if the
// browser has none.
func (s *Server) formToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(formCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	s.setCookie(w, formCookie, token, 0)
	return token
}

// preSessionFormAllowed checks a form shown before sign-in: its token must be the cookie's.
func (s *Server) preSessionFormAllowed(r *http.Request) bool {
	c, err := r.Cookie(formCookie)
	return err == nil && s.formAllowed(r, c.Value)
}

func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode})
}

func (s *Server) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode})
}
