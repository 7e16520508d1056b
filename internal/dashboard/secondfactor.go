package dashboard

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/boombuler/barcode/qr"
	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/people"
)

type codePage struct {
	Next, FormCSRF string
}

// codePage asks for the authenticator's code of a sign-in whose password
// was right.
func (s *Server) codePage(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(challengeCookie); err != nil {
		http.Redirect(w, r, "/sign-in", http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "sign_in_code", view{Title: "Your code", Page: codePage{
		Next: safeNext(r.URL.Query().Get("next")), FormCSRF: s.formToken(w, r)}})
}

func (s *Server) signInCode(w http.ResponseWriter, r *http.Request) {
	page := codePage{Next: safeNext(r.PostFormValue("next"))}
	c, err := r.Cookie(challengeCookie)
	if err != nil || !s.preSessionFormAllowed(r) {
		s.clearCookie(w, challengeCookie)
		s.render(w, r, http.StatusForbidden, "sign_in", view{Title: "Sign in", Problem: "This form expired. Sign in again.",
			Page: signInPage{Next: page.Next, FormCSRF: s.formToken(w, r)}})
		return
	}
	res, err := s.cfg.People.SignInCode(r.Context(), c.Value, r.PostFormValue("code"), clientAddress(r))
	var problem string
	status := http.StatusUnauthorized
	switch {
	case err == nil:
		s.startSession(w, r, res.Token, page.Next)
		return
	case errors.Is(err, people.ErrChallengeEnded):
		s.clearCookie(w, challengeCookie)
		s.render(w, r, http.StatusUnauthorized, "sign_in", view{Title: "Sign in",
			Problem: "Sign in again: the code came too late, or was wrong too often.",
			Page:    signInPage{Next: page.Next, FormCSRF: s.formToken(w, r)}})
		return
	case errors.Is(err, people.ErrInvalidCode):
		problem = "That code is wrong, or was used already. Enter the code your authenticator shows now."
	case errors.Is(err, people.ErrThrottled):
		problem, status = "Too many failed sign-ins from here. Wait a minute, then try again.", http.StatusTooManyRequests
		w.Header().Set("Retry-After", "60")
	default:
		s.unavailable(w, r, err)
		return
	}
	page.FormCSRF = s.formToken(w, r)
	s.render(w, r, status, "sign_in_code", view{Title: "Your code", Problem: problem, Page: page})
}

// enrollmentView is an authenticator being set up, as the account page shows it.
type enrollmentView struct {
	// Secret is the key to type in, in groups of four; QR the same as a QR code.
	Secret string
	QR     template.HTML
}

func (s *Server) enrollmentView(e people.Enrollment) (*enrollmentView, error) {
	code, err := qrSVG(e.URL)
	if err != nil {
		return nil, err
	}
	var groups []string
	for i := 0; i < len(e.Secret); i += 4 {
		groups = append(groups, e.Secret[i:min(i+4, len(e.Secret))])
	}
	return &enrollmentView{Secret: strings.Join(groups, " "), QR: code}, nil
}

// beginSecondFactor shows a new authenticator secret to set up.
func (s *Server) beginSecondFactor(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	e, err := s.cfg.People.BeginSecondFactor(r.Context(), req.user)
	switch {
	case errors.Is(err, people.ErrConflict):
		s.showAccount(w, r, req, http.StatusConflict, "", "Your authenticator is set up already; remove it first to set up another.", nil)
		return
	case err != nil:
		s.unavailable(w, r, err)
		return
	}
	s.showEnrollment(w, r, req, http.StatusOK, "", e)
}

// showEnrollment shows the account page with the authenticator e being set up.
func (s *Server) showEnrollment(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, problem string, e people.Enrollment) {
	ev, err := s.enrollmentView(e)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.showAccount(w, r, req, status, "", problem, ev)
}

// enableSecondFactor turns the authenticator on once its code and the password are right; after
// a wrong one the same secret is shown again.
func (s *Server) enableSecondFactor(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	err := s.cfg.People.EnableSecondFactor(r.Context(), req.user, r.PostFormValue("password"), r.PostFormValue("code"), clientAddress(r))
	var problem string
	status := http.StatusUnauthorized
	switch {
	case err == nil:
		http.Redirect(w, r, "/account?done=second-factor-on", http.StatusSeeOther)
		return
	case errors.Is(err, people.ErrNotFound):
		s.showAccount(w, r, req, http.StatusConflict, "", "No authenticator is being set up: start again.", nil)
		return
	case errors.Is(err, people.ErrInvalidCredentials):
		problem = "The password is wrong."
	case errors.Is(err, people.ErrInvalidCode):
		problem = "That code is wrong. Enter the six digits your authenticator shows now."
	case errors.Is(err, people.ErrThrottled):
		problem, status = "Too many wrong passwords from here. Wait a minute, then try again.", http.StatusTooManyRequests
		w.Header().Set("Retry-After", "60")
	default:
		s.unavailable(w, r, err)
		return
	}
	e, err := s.cfg.People.PendingSecondFactor(r.Context(), req.user)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.showEnrollment(w, r, req, status, problem, e)
}

// disableSecondFactor removes the user's own authenticator once the password is right.
func (s *Server) disableSecondFactor(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	err := s.cfg.People.DisableSecondFactor(r.Context(), req.user, r.PostFormValue("password"), clientAddress(r))
	switch {
	case err == nil:
		http.Redirect(w, r, "/account?done=second-factor-off", http.StatusSeeOther)
	case errors.Is(err, people.ErrNotFound):
		http.Redirect(w, r, "/account", http.StatusSeeOther)
	case errors.Is(err, people.ErrInvalidCredentials):
		s.showAccount(w, r, req, http.StatusUnauthorized, "", "The password is wrong; your authenticator stays.", nil)
	case errors.Is(err, people.ErrThrottled):
		w.Header().Set("Retry-After", "60")
		s.showAccount(w, r, req, http.StatusTooManyRequests, "", "Too many wrong passwords from here. Wait a minute, then try again.", nil)
	default:
		s.unavailable(w, r, err)
	}
}

// removeSecondFactor is an owner removing another user's authenticator, lost with its phone.
func (s *Server) removeSecondFactor(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.userAction(w, r, req, func(id uuid.UUID) (people.User, error) {
		return s.cfg.People.RemoveSecondFactor(r.Context(), req.user, clientAddress(r), id)
	}, func(u people.User) string {
		return u.Email + " signs in with the password alone until they set up an authenticator again."
	})
}

// removeUser is an owner removing a user for good.
func (s *Server) removeUser(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.userAction(w, r, req, func(id uuid.UUID) (people.User, error) {
		return s.cfg.People.Remove(r.Context(), req.user, clientAddress(r), id)
	}, func(u people.User) string {
		return u.Email + " is removed: signed out everywhere, their links no longer work. The audit log keeps what they did."
	})
}

// qrSVG draws text as a QR code in SVG, one path of dark modules, for an authenticator app to
// scan; inline, so that the page loads nothing more.
func qrSVG(text string) (template.HTML, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", fmt.Errorf("qr code: %w", err)
	}
	b := code.Bounds()
	const quiet = 4
	var path strings.Builder
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := code.At(x, y).RGBA(); r == 0 {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x-b.Min.X+quiet, y-b.Min.Y+quiet)
			}
		}
	}
	size := b.Dx() + 2*quiet
	// Only numbers and the fixed markup: nothing of text reaches the SVG but its modules.
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="220" height="220" role="img" aria-label="QR code of the authenticator key" shape-rendering="crispEdges"><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		size, size, size, size, path.String())), nil //nolint:gosec // built from numbers only, above
}
