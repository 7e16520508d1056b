package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
)

type signingPage struct {
	// Secret is the signing secret, shown after the password was confirmed; Rotated when it is
	// a new one.
	Secret  string
	Rotated bool
}

func (s *Server) signingPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	s.render(w, r, http.StatusOK, "signing", signedInView(req, "Signing secret", "signing", signingPage{}))
}

// confirmed checks the password the form carries; on failure it shows the page again with why.
func (s *Server) confirmed(w http.ResponseWriter, r *http.Request, req signedInRequest) bool {
	err := s.cfg.People.ConfirmPassword(r.Context(), req.user, r.PostFormValue("password"), clientAddress(r))
	if err == nil {
		return true
	}
	v := signedInView(req, "Signing secret", "signing", signingPage{})
	switch {
	case errors.Is(err, people.ErrInvalidCredentials):
		v.Problem = "That is not your password."
		s.render(w, r, http.StatusUnauthorized, "signing", v)
	case errors.Is(err, people.ErrThrottled):
		v.Problem = "Too many wrong passwords from here. Wait a minute, then try again."
		w.Header().Set("Retry-After", "60")
		s.render(w, r, http.StatusTooManyRequests, "signing", v)
	default:
		s.unavailable(w, r, err)
	}
	return false
}

func (s *Server) revealSigningSecret(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) || !s.confirmed(w, r, req) {
		return
	}
	secret, err := s.cfg.Accounts.SigningSecret(r.Context(), req.user.AccountID)
	if err == nil {
		err = s.cfg.Audit.Record(r.Context(), audit.Event{AccountID: req.user.AccountID, At: time.Now().UTC(),
			Actor: req.user.Actor(clientAddress(r)), Action: audit.SigningRevealed})
	}
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "signing", signedInView(req, "Signing secret", "signing", signingPage{Secret: secret}))
}

func (s *Server) rotateSigningSecret(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		v := signedInView(req, "Signing secret", "signing", signingPage{})
		v.Problem = "Tick the box to confirm that the current secret stops working at once."
		s.render(w, r, http.StatusUnprocessableEntity, "signing", v)
		return
	}
	if !s.confirmed(w, r, req) {
		return
	}
	by := req.user.Actor(clientAddress(r))
	secret, err := s.cfg.Accounts.RotateSigningSecret(r.Context(), &by, req.user.AccountID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "signing", signedInView(req, "Signing secret", "signing", signingPage{Secret: secret, Rotated: true}))
}
