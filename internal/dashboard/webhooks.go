package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/webhook"
)

type webhooksPage struct {
	Endpoints []webhook.Endpoint
	CanManage bool
	// Tested is the outcome of a test delivery just sent.
	Tested *testOutcome
}

type testOutcome struct {
	URL     string
	Success bool
	Brief   string
	Took    time.Duration
}

func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	s.showWebhooks(w, r, req, http.StatusOK, "", "", nil)
}

func (s *Server) showWebhooks(w http.ResponseWriter, r *http.Request, req signedInRequest, status int, notice, problem string, tested *testOutcome) {
	endpoints, err := s.cfg.Webhooks.List(r.Context(), req.user.AccountID)
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	v := signedInView(req, "Webhooks", "webhooks", webhooksPage{Endpoints: endpoints, CanManage: req.user.Role.ManagesCredentials(), Tested: tested})
	v.Notice, v.Problem = notice, problem
	s.render(w, r, status, "webhooks", v)
}

// endpointID reads the {id} of a webhook route; a malformed one is as unknown as another
// account's.
func endpointID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, webhook.ErrNotFound
	}
	return id, nil
}

func (s *Server) switchWebhook(enabled bool) func(http.ResponseWriter, *http.Request, signedInRequest) {
	return func(w http.ResponseWriter, r *http.Request, req signedInRequest) {
		if !s.mayManage(w, r, req) {
			return
		}
		id, err := endpointID(r)
		if err == nil {
			err = s.cfg.Webhooks.SetEnabled(r.Context(), req.user.Actor(clientAddress(r)), req.user.AccountID, id, enabled)
		}
		notice := "The endpoint is disabled: nothing is delivered to it, and its pending deliveries were cancelled."
		if enabled {
			notice = "The endpoint is enabled: new events are delivered to it again."
		}
		switch {
		case err == nil:
			s.showWebhooks(w, r, req, http.StatusOK, notice, "", nil)
		case errors.Is(err, webhook.ErrNotFound):
			s.message(w, r, http.StatusNotFound, "Not found", "This account has no such webhook endpoint.")
		default:
			s.unavailable(w, r, err)
		}
	}
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	if !s.mayManage(w, r, req) {
		return
	}
	id, err := endpointID(r)
	if err != nil {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such webhook endpoint.")
		return
	}
	// The same budget as POST /api/v1/webhooks/test: test deliveries are few per account.
	if s.cfg.WebhookTests != nil {
		d, err := s.cfg.WebhookTests.Count(r.Context(), "webhook-test:"+req.user.AccountID.String())
		if err != nil {
			s.unavailable(w, r, err)
			return
		}
		if !d.Allowed {
			w.Header().Set("Retry-After", "60")
			s.showWebhooks(w, r, req, http.StatusTooManyRequests, "", "Too many test deliveries this minute; try again in a minute.", nil)
			return
		}
	}
	sent, err := s.cfg.Webhooks.Test(r.Context(), req.user.AccountID, &id, webhook.EventJobCompleted)
	switch {
	case errors.Is(err, webhook.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such webhook endpoint.")
		return
	case err != nil:
		s.unavailable(w, r, err)
		return
	}
	res := sent[0].Result
	s.showWebhooks(w, r, req, http.StatusOK, "", "", &testOutcome{URL: sent[0].Endpoint.URL, Success: res.Success, Brief: res.Brief(),
		Took: res.Duration.Round(time.Millisecond)})
}

type deliveriesPage struct {
	Endpoint   webhook.Endpoint
	Deliveries []webhook.Delivery
	NextCursor string
}

func (s *Server) deliveriesPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	id, err := endpointID(r)
	var page webhook.DeliveryPage
	var e webhook.Endpoint
	if err == nil {
		page, err = s.cfg.Webhooks.ListDeliveries(r.Context(), req.user.AccountID, id, r.URL.Query().Get("cursor"), 20)
	}
	if err == nil {
		e, err = s.cfg.Webhooks.Endpoint(r.Context(), req.user.AccountID, id)
	}
	switch {
	case err == nil:
		s.render(w, r, http.StatusOK, "deliveries", signedInView(req, "Deliveries", "webhooks",
			deliveriesPage{Endpoint: e, Deliveries: page.Deliveries, NextCursor: page.NextCursor}))
	case errors.Is(err, webhook.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such webhook endpoint.")
	case errors.Is(err, cursor.ErrBad):
		s.message(w, r, http.StatusBadRequest, "Bad page", "That is not a page of this endpoint's deliveries.")
	default:
		s.unavailable(w, r, err)
	}
}
