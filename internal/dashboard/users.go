package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/people"
)

type usersPage struct {
	Users []people.User
	Roles []people.Role
	// Link is a set-password link just issued, shown this once, for Email.
	Link, Email string
}

// mayManageUsers answers 403 unless the user is an owner.
func (s *Server) mayManageUsers(w http.ResponseWriter, r *http.Request, req signedInRequest) bool {
	if req.user.Role.ManagesUsers() {
		return true
	}
	s.message(w, r, http.StatusForbidden, "Not allowed", "Only an owner manages the account's users.")
	return false
}

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	s.showUsers(w, r, req, http.StatusOK, "", "", usersPage{})
}

func (s *Server) showUsers(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, notice, problem string, page usersPage) {
	users, err := s.cfg.People.Users(r.Context(), req.user.AccountID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	page.Users, page.Roles = users, []people.Role{people.Developer, people.Viewer, people.Owner}
	v := signedInView(req, "Users", "users", page)
	v.Notice, v.Problem = notice, problem
	s.render(w, r, status, "users", v)
}

// linkBase is the dashboard's own address as the browser reached it, for the links it shows:
// https when it serves TLS or its cookies are Secure (off loopback, so behind a TLS proxy).
func (s *Server) linkBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || s.cfg.SecureCookies {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) inviteUser(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	role, err := people.ParseRole(r.PostFormValue("role"))
	if err != nil {
		s.showUsers(w, r, req, http.StatusUnprocessableEntity, "", "Choose a role: owner, developer or viewer.", usersPage{Email: email})
		return
	}
	u, token, err := s.cfg.People.Invite(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, email, role)
	switch {
	case err == nil:
		s.showUsers(w, r, req, http.StatusOK, "", "", usersPage{Link: s.linkBase(r) + "/set-password/" + token, Email: u.Email})
	case errors.Is(err, people.ErrInvalid):
		s.showUsers(w, r, req, http.StatusUnprocessableEntity, "", "That is not an email address.", usersPage{})
	case errors.Is(err, people.ErrConflict):
		s.showUsers(w, r, req, http.StatusConflict, "", "A user with this email exists already.", usersPage{})
	default:
		s.unavailable(w, r, err)
	}
}

func (s *Server) newLink(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	id, err := uuid.Parse(r.PathValue("id"))
	var u people.User
	var token string
	if err == nil {
		u, token, err = s.cfg.People.NewLink(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, id)
	} else {
		err = people.ErrNotFound
	}
	switch {
	case err == nil:
		s.showUsers(w, r, req, http.StatusOK, "", "", usersPage{Link: s.linkBase(r) + "/set-password/" + token, Email: u.Email})
	case errors.Is(err, people.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such user.")
	default:
		s.unavailable(w, r, err)
	}
}

// userAction answers a change to a user: the list again with notice, 404 for another account's
// user or a malformed id, 409 on oneself.
func (s *Server) userAction(w http.ResponseWriter, r *http.Request, req signedInRequest, change func(id uuid.UUID) (people.User, error), notice func(people.User) string) {
	if !s.mayManageUsers(w, r, req) {
		return
	}
	id, err := uuid.Parse(r.PathValue("id"))
	var u people.User
	if err == nil {
		u, err = change(id)
	} else {
		err = people.ErrNotFound
	}
	switch {
	case err == nil:
		s.showUsers(w, r, req, http.StatusOK, notice(u), "", usersPage{})
	case errors.Is(err, people.ErrSelf):
		s.showUsers(w, r, req, http.StatusConflict, "", "You cannot change your own role, disable or remove yourself, or remove your own authenticator here; another owner can, and your account page removes your authenticator.", usersPage{})
	case errors.Is(err, people.ErrInvalid):
		s.showUsers(w, r, req, http.StatusUnprocessableEntity, "", "Choose a role: owner, developer or viewer.", usersPage{})
	case errors.Is(err, people.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such user.")
	default:
		s.unavailable(w, r, err)
	}
}

func (s *Server) setRole(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.userAction(w, r, req, func(id uuid.UUID) (people.User, error) {
		return s.cfg.People.SetRole(r.Context(), req.user, clientAddress(r), id, people.Role(r.PostFormValue("role")))
	}, func(u people.User) string { return u.Email + " is now " + string(u.Role) + "." })
}

func (s *Server) setDisabled(disabled bool) func(http.ResponseWriter, *http.Request, signedInRequest) {
	return func(w http.ResponseWriter, r *http.Request, req signedInRequest) {
		s.userAction(w, r, req, func(id uuid.UUID) (people.User, error) {
			return s.cfg.People.SetDisabled(r.Context(), req.user, clientAddress(r), id, disabled)
		}, func(u people.User) string {
			if disabled {
				return u.Email + " is disabled: signed out everywhere, and cannot sign in."
			}
			return u.Email + " can sign in again."
		})
	}
}

type accountPage struct {
	MinLength int
	// SecondFactorSince is when the user's authenticator was set up (nil: none); Enrollment an
	// authenticator being set up.
	SecondFactorSince *time.Time
	Enrollment        *enrollmentView
}

// accountNotices are the lines shown after a change that redirects back to the account page.
var accountNotices = map[string]string{
	"second-factor-on":  "Your authenticator is set up: signing in now asks for its code.",
	"second-factor-off": "Your authenticator is removed: you sign in with your password alone.",
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.showAccount(w, r, req, http.StatusOK, accountNotices[r.URL.Query().Get("done")], "", nil)
}

// showAccount shows the user's own account page, with an authenticator being set up if e is set.
// The user is read again: the session's copy predates a change just made.
func (s *Server) showAccount(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, notice, problem string, e *enrollmentView) {
	u, err := s.cfg.People.User(r.Context(), req.user.ID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	req.user = u
	v := signedInView(req, "Your account", "account", accountPage{MinLength: people.MinPasswordLength,
		SecondFactorSince: u.SecondFactorSince, Enrollment: e})
	v.Notice, v.Problem = notice, problem
	s.render(w, r, status, "account", v)
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	next := r.PostFormValue("password")
	status := http.StatusUnprocessableEntity
	var notice, problem string
	var err error
	if next != r.PostFormValue("confirm") {
		problem = "The two new passwords differ."
	} else if err = s.cfg.People.ChangePassword(r.Context(), req.user, r.PostFormValue("current"), next, req.session, clientAddress(r)); err != nil {
		switch {
		case errors.Is(err, people.ErrInvalid):
			problem = "The new password needs at least " + strconv.Itoa(people.MinPasswordLength) + " characters."
		case errors.Is(err, people.ErrInvalidCredentials):
			problem, status = "The current password is wrong.", http.StatusUnauthorized
		case errors.Is(err, people.ErrThrottled):
			problem, status = "Too many wrong passwords from here. Wait a minute, then try again.", http.StatusTooManyRequests
			w.Header().Set("Retry-After", "60")
		default:
			s.unavailable(w, r, err)
			return
		}
	} else {
		notice, status = "Your password is changed; your other sessions are signed out.", http.StatusOK
	}
	s.showAccount(w, r, req, status, notice, problem, nil)
}
