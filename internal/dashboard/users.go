package dashboard

import (
	"errors"
	"net/http"
	"strings"

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
