package parsehttp

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/webhook"
)

// Webhooks is what the Parsing API needs of the webhook rules; *webhook.Service has it.
type Webhooks interface {
	Create(ctx context.Context, req webhook.NewEndpoint) (webhook.Created, error)
	List(ctx context.Context, accountID uuid.UUID) ([]webhook.Endpoint, error)
	Delete(ctx context.Context, accountID, id uuid.UUID) error
	Test(ctx context.Context, accountID uuid.UUID, webhookID *uuid.UUID, event webhook.EventType) ([]webhook.TestDelivery, error)
	ListDeliveries(ctx context.Context, accountID, endpointID uuid.UUID, cursor string, limit int) (webhook.DeliveryPage, error)
}

var _ Webhooks = (*webhook.Service)(nil)

// CreateWebhook registers a webhook endpoint of the caller's account.
func (s *Server) CreateWebhook(ctx context.Context, req parseapi.CreateWebhookRequestObject) (parseapi.CreateWebhookResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("create webhook: no authenticated caller")
	}
	if req.Body == nil {
		return nil, errors.New("create webhook: no body after validation")
	}
	in := webhook.NewEndpoint{AccountID: caller.AccountID, URL: req.Body.Url}
	if req.Body.Events != nil {
		in.Events = make([]webhook.EventType, len(*req.Body.Events))
		for i, e := range *req.Body.Events {
			in.Events[i] = webhook.EventType(e)
		}
	}
	if req.Body.Description != nil {
		// Shown back in the list of endpoints (and the dashboard's), so fit for display.
		in.Description = httpkit.DisplayText(*req.Body.Description)
	}
	key, err := httpkit.IdempotencyKey(req.Params.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	in.IdempotencyKey = key
	created, err := s.webhooks.Create(ctx, in)
	var urlErr *webhook.URLError
	switch {
	case errors.As(err, &urlErr):
		return parseapi.CreateWebhook400JSONResponse{InvalidWebhookRequestJSONResponse: parseapi.InvalidWebhookRequestJSONResponse{
			Body: errorBody(ctx, httpkit.CodeInvalidRequest, "url: "+urlErr.Error())}}, nil
	case errors.Is(err, webhook.ErrTooManyEndpoints):
		return parseapi.CreateWebhook400JSONResponse{InvalidWebhookRequestJSONResponse: parseapi.InvalidWebhookRequestJSONResponse{
			Body: errorBody(ctx, httpkit.CodeInvalidRequest,
				fmt.Sprintf("This account has %d webhook endpoints, the most it may have; delete one first.", webhook.MaxEndpoints))}}, nil
	case errors.Is(err, idempotency.ErrConflict):
		return parseapi.CreateWebhook409JSONResponse{IdempotencyConflictJSONResponse: parseapi.IdempotencyConflictJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeIdempotencyConflict),
				"A request with this Idempotency-Key is still in progress; retry shortly.")}}, nil
	case errors.Is(err, idempotency.ErrKeyReused):
		return parseapi.CreateWebhook422JSONResponse{IdempotencyKeyReusedJSONResponse: parseapi.IdempotencyKeyReusedJSONResponse{
			Body: errorBody(ctx, string(parseapi.ErrorCodeIdempotencyKeyReused),
				"This Idempotency-Key was used with a different request body in the last 24 hours; use a new key.")}}, nil
	case err != nil:
		return nil, err
	}
	e := apiEndpoint(created.Endpoint)
	headers := parseapi.CreateWebhook201ResponseHeaders{Location: "/api/v1/webhooks/" + created.Endpoint.ID.String()}
	if created.Replayed {
		replayed := true
		headers.IdempotentReplayed = &replayed
	}
	return parseapi.CreateWebhook201JSONResponse{Headers: headers, Body: parseapi.WebhookEndpointEnvelope{Ok: true, Meta: meta(ctx),
		Data: parseapi.WebhookEndpointCreated{Id: e.Id, Url: e.Url, Events: e.Events, Description: e.Description,
			Enabled: e.Enabled, DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt, SigningSecret: created.Secret}}}, nil
}

// ListWebhooks lists the caller's webhook endpoints, oldest first.
func (s *Server) ListWebhooks(ctx context.Context, _ parseapi.ListWebhooksRequestObject) (parseapi.ListWebhooksResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("list webhooks: no authenticated caller")
	}
	all, err := s.webhooks.List(ctx, caller.AccountID)
	if err != nil {
		return nil, err
	}
	list := parseapi.WebhookEndpointList{Webhooks: make([]parseapi.WebhookEndpoint, len(all))}
	for i, e := range all {
		list.Webhooks[i] = apiEndpoint(e)
	}
	return parseapi.ListWebhooks200JSONResponse{Body: parseapi.WebhookEndpointListEnvelope{Ok: true, Data: list, Meta: meta(ctx)}}, nil
}

// DeleteWebhook deletes one of the caller's webhook endpoints.
func (s *Server) DeleteWebhook(ctx context.Context, req parseapi.DeleteWebhookRequestObject) (parseapi.DeleteWebhookResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("delete webhook: no authenticated caller")
	}
	err := s.webhooks.Delete(ctx, caller.AccountID, req.Id)
	switch {
	case errors.Is(err, webhook.ErrNotFound):
		return parseapi.DeleteWebhook404JSONResponse{NotFoundJSONResponse: webhookNotFound(ctx, req.Id)}, nil
	case err != nil:
		return nil, err
	}
	return parseapi.DeleteWebhook200JSONResponse{Body: parseapi.DeletedWebhookEnvelope{Ok: true, Meta: meta(ctx),
		Data: parseapi.DeletedWebhook{Id: req.Id, Deleted: parseapi.DeletedWebhookDeletedTrue}}}, nil
}

// TestWebhook sends a sample event now and answers with each delivery's outcome, in few words
// (webhook.Result.Brief).
func (s *Server) TestWebhook(ctx context.Context, req parseapi.TestWebhookRequestObject) (parseapi.TestWebhookResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("test webhook: no authenticated caller")
	}
	event := webhook.EventType(parseapi.WebhookEventTypeJobCompleted)
	var target *uuid.UUID
	if req.Body != nil {
		if req.Body.Event != nil {
			event = webhook.EventType(*req.Body.Event)
		}
		target = req.Body.WebhookId
	}
	if s.webhookTests != nil {
		d, err := s.webhookTests.Count(ctx, "webhook-test:"+caller.AccountID.String())
		if err != nil {
			return nil, err
		}
		if !d.Allowed {
			retry := d.RetryAfter(s.now())
			return parseapi.TestWebhook429JSONResponse{TooManyRequestsJSONResponse: parseapi.TooManyRequestsJSONResponse{
				Body:    errorBody(ctx, httpkit.CodeLimitExceeded, fmt.Sprintf("At most %d test requests a minute; retry in %d seconds.", d.Limit, retry)),
				Headers: parseapi.TooManyRequestsResponseHeaders{RetryAfter: retry}}}, nil
		}
	}
	deliveries, err := s.webhooks.Test(ctx, caller.AccountID, target, event)
	switch {
	case errors.Is(err, webhook.ErrNotFound) && target != nil:
		return parseapi.TestWebhook404JSONResponse{NotFoundJSONResponse: webhookNotFound(ctx, *target)}, nil
	case err != nil:
		return nil, err
	}
	out := parseapi.WebhookTestResult{Event: parseapi.WebhookEventType(event), Deliveries: make([]parseapi.WebhookTestDelivery, len(deliveries))}
	for i, d := range deliveries {
		td := parseapi.WebhookTestDelivery{WebhookId: d.Endpoint.ID, Url: d.Endpoint.URL, DeliveryId: d.DeliveryID,
			Success: d.Result.Success, DurationMs: int(d.Result.Duration.Milliseconds())}
		if d.Result.StatusCode != 0 {
			code := d.Result.StatusCode
			td.StatusCode = &code
		}
		if msg := d.Result.Brief(); msg != "" {
			td.Error = &msg
		}
		out.Deliveries[i] = td
	}
	return parseapi.TestWebhook200JSONResponse{Body: parseapi.WebhookTestEnvelope{Ok: true, Data: out, Meta: meta(ctx)}}, nil
}

// ListWebhookDeliveries lists a page of one endpoint's deliveries with their attempts.
func (s *Server) ListWebhookDeliveries(ctx context.Context, req parseapi.ListWebhookDeliveriesRequestObject) (parseapi.ListWebhookDeliveriesResponseObject, error) {
	caller, ok := CallerFrom(ctx)
	if !ok {
		return nil, errors.New("list webhook deliveries: no authenticated caller")
	}
	var cur string
	if req.Params.Cursor != nil {
		cur = *req.Params.Cursor
	}
	limit := 20
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	page, err := s.webhooks.ListDeliveries(ctx, caller.AccountID, req.Id, cur, limit)
	switch {
	case errors.Is(err, webhook.ErrNotFound):
		return parseapi.ListWebhookDeliveries404JSONResponse{NotFoundJSONResponse: webhookNotFound(ctx, req.Id)}, nil
	case errors.Is(err, cursor.ErrBad):
		return parseapi.ListWebhookDeliveries400JSONResponse{BadRequestJSONResponse: badCursor(ctx, err)}, nil
	case err != nil:
		return nil, err
	}
	list := parseapi.WebhookDeliveryList{WebhookId: req.Id, NextCursor: nextCursor(page.NextCursor),
		Deliveries: make([]parseapi.WebhookDelivery, len(page.Deliveries))}
	for i, d := range page.Deliveries {
		list.Deliveries[i] = apiDelivery(d)
	}
	return parseapi.ListWebhookDeliveries200JSONResponse{Body: parseapi.WebhookDeliveryListEnvelope{Ok: true, Data: list, Meta: meta(ctx)}}, nil
}

func apiDelivery(d webhook.Delivery) parseapi.WebhookDelivery {
	out := parseapi.WebhookDelivery{Id: d.ID, Event: parseapi.WebhookEventType(d.Event), Status: parseapi.WebhookDeliveryStatus(d.Status),
		StatusReason: text(d.Reason), AttemptsCount: d.AttemptsCount, CreatedAt: d.CreatedAt.UTC(),
		Attempts: make([]parseapi.WebhookDeliveryAttempt, len(d.Attempts))}
	if d.Status == webhook.DeliveryPending && !d.NextAttemptAt.IsZero() {
		next := d.NextAttemptAt.UTC()
		out.NextAttemptAt = &next
	}
	if d.CompletedAt != nil {
		done := d.CompletedAt.UTC()
		out.CompletedAt = &done
	}
	for i, a := range d.Attempts {
		at := parseapi.WebhookDeliveryAttempt{Attempt: a.Number, AttemptedAt: a.At.UTC(), Success: a.Success,
			Error: text(a.Error), DurationMs: int(a.Duration.Milliseconds())}
		if a.StatusCode != 0 {
			code := a.StatusCode
			at.StatusCode = &code
		}
		out.Attempts[i] = at
	}
	return out
}

func webhookNotFound(ctx context.Context, id uuid.UUID) parseapi.NotFoundJSONResponse {
	return parseapi.NotFoundJSONResponse{Body: errorBody(ctx, httpkit.CodeNotFound, fmt.Sprintf("Webhook endpoint %s was not found.", id))}
}

func apiEndpoint(e webhook.Endpoint) parseapi.WebhookEndpoint {
	out := parseapi.WebhookEndpoint{Id: e.ID, Url: e.URL, Enabled: e.Enabled, CreatedAt: e.CreatedAt.UTC()}
	for _, t := range e.EventTypes() {
		out.Events = append(out.Events, parseapi.WebhookEventType(t))
	}
	if e.Description != "" {
		d := e.Description
		out.Description = &d
	}
	if e.DisabledReason != "" {
		r := e.DisabledReason
		out.DisabledReason = &r
	}
	return out
}
