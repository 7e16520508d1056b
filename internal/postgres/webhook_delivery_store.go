package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/webhook"
)

var _ webhook.DeliveryStore = (*WebhookStore)(nil)

type deliveryRow struct {
	ID             uuid.UUID      `db:"id"`
	EndpointID     uuid.UUID      `db:"endpoint_id"`
	AccountID      uuid.UUID      `db:"account_id"`
	Event          string         `db:"type"`
	Status         string         `db:"status"`
	Reason         sql.NullString `db:"status_reason"`
	Attempts       int            `db:"attempts"`
	FirstAttemptAt sql.NullTime   `db:"first_attempt_at"`
	NextAttemptAt  sql.NullTime   `db:"next_attempt_at"`
	CreatedAt      time.Time      `db:"created_at"`
	CompletedAt    sql.NullTime   `db:"completed_at"`
}

const deliveryColumns = `d.id, d.endpoint_id, ev.account_id, ev.type, d.status, d.status_reason, d.attempts,
       d.first_attempt_at, d.next_attempt_at, d.created_at, d.completed_at`

func (r deliveryRow) delivery() webhook.Delivery {
	d := webhook.Delivery{ID: r.ID, EndpointID: r.EndpointID, AccountID: r.AccountID, Event: webhook.EventType(r.Event),
		Status: webhook.DeliveryStatus(r.Status), Reason: r.Reason.String, AttemptsCount: r.Attempts,
		FirstAttemptAt: timeOf(r.FirstAttemptAt), NextAttemptAt: timeOf(r.NextAttemptAt), CreatedAt: r.CreatedAt.UTC()}
	if r.CompletedAt.Valid {
		t := r.CompletedAt.Time.UTC()
		d.CompletedAt = &t
	}
	return d
}

// timeOf is the time of a timestamptz column in UTC; the zero time for NULL.
func timeOf(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// DeliveryTask implements webhook.DeliveryStore.
func (s *WebhookStore) DeliveryTask(ctx context.Context, id uuid.UUID) (webhook.Task, error) {
	var r struct {
		deliveryRow
		Body     []byte `db:"body"`
		Deleted  bool   `db:"deleted"`
		endpoint endpointRow
	}
	err := s.DB.QueryRowxContext(ctx, `
SELECT `+deliveryColumns+`, ev.body, e.deleted_at IS NOT NULL AS deleted,
       e.id, e.account_id, e.url, e.events, e.description, e.enabled, e.disabled_reason, e.failing_since, e.created_at
  FROM webhook_deliveries d
  JOIN webhook_events ev ON ev.id = d.event_id
  JOIN webhook_endpoints e ON e.id = d.endpoint_id
 WHERE d.id = $1`, id).Scan(&r.ID, &r.EndpointID, &r.AccountID, &r.Event, &r.Status, &r.Reason, &r.Attempts,
		&r.FirstAttemptAt, &r.NextAttemptAt, &r.CreatedAt, &r.CompletedAt, &r.Body, &r.Deleted,
		&r.endpoint.ID, &r.endpoint.AccountID, &r.endpoint.URL, &r.endpoint.Events, &r.endpoint.Description,
		&r.endpoint.Enabled, &r.endpoint.DisabledReason, &r.endpoint.FailingSince, &r.endpoint.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return webhook.Task{}, webhook.ErrNotFound
	}
	if err != nil {
		return webhook.Task{}, fmt.Errorf("get delivery: %w", err)
	}
	return webhook.Task{Delivery: r.delivery(), Endpoint: r.endpoint.endpoint(), EndpointDeleted: r.Deleted, Body: r.Body}, nil
}

// RecordAttempt implements webhook.DeliveryStore.
func (s *WebhookStore) RecordAttempt(ctx context.Context, o webhook.Outcome) error {
	a := o.Attempt
	var next, completed any
	if o.Status == webhook.DeliveryPending {
		next = o.NextAttemptAt
	} else {
		completed = a.At
	}
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `
UPDATE webhook_deliveries
   SET attempts = $2, status = $3, status_reason = $4, first_attempt_at = $5, next_attempt_at = $6, completed_at = $7
 WHERE id = $1 AND status = 'pending' AND attempts = $2 - 1`,
			o.DeliveryID, a.Number, string(o.Status), nullText(o.Reason), o.FirstAttemptAt, next, completed)
		if err != nil {
			return fmt.Errorf("update delivery: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return attempt.ErrStale
		}
		var status sql.NullInt32
		if a.StatusCode != 0 {
			status = sql.NullInt32{Int32: int32(a.StatusCode), Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `
INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, success, status_code, duration_ms, error)
VALUES ($1, $2, $3, $4, $5, $6, $7)`, o.DeliveryID, a.Number, a.At, a.Success, status, a.Duration.Milliseconds(), nullText(a.Error)); err != nil {
			return fmt.Errorf("insert delivery attempt: %w", err)
		}
		// The endpoint's run of failures: a success ends it, a failure starts one if none runs.
		if a.Success {
			_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, o.EndpointID)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL`, o.EndpointID, a.At)
		}
		if err != nil {
			return fmt.Errorf("update endpoint failure streak: %w", err)
		}
		if o.DisableEndpoint == "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `
UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1 AND enabled`, o.EndpointID, o.DisableEndpoint); err != nil {
			return fmt.Errorf("disable endpoint: %w", err)
		}
		return endPendingDeliveries(ctx, tx, o.EndpointID, webhook.DeliveryFailed, "The endpoint was disabled.", a.At)
	})
}

// endPendingDeliveries ends every pending delivery of an endpoint with status and reason, in tx;
// their queued work then finds nothing to do.
func endPendingDeliveries(ctx context.Context, tx *sqlx.Tx, endpointID uuid.UUID, status webhook.DeliveryStatus, reason string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `
UPDATE webhook_deliveries SET status = $2, status_reason = $3, next_attempt_at = NULL, completed_at = $4
 WHERE endpoint_id = $1 AND status = 'pending'`, endpointID, string(status), reason, at)
	if err != nil {
		return fmt.Errorf("end pending deliveries: %w", err)
	}
	return nil
}

// FinishDelivery implements webhook.DeliveryStore.
func (s *WebhookStore) FinishDelivery(ctx context.Context, id uuid.UUID, status webhook.DeliveryStatus, reason string, at time.Time) error {
	res, err := s.DB.ExecContext(ctx, `
UPDATE webhook_deliveries SET status = $2, status_reason = $3, next_attempt_at = NULL, completed_at = $4
 WHERE id = $1 AND status = 'pending'`, id, string(status), nullText(reason), at)
	if err != nil {
		return fmt.Errorf("finish delivery: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return attempt.ErrStale
	}
	return nil
}

// Deliveries implements webhook.DeliveryStore: keyset pagination on (created_at, id), newest
// first, which the index webhook_deliveries_endpoint serves; then the page's attempts.
func (s *WebhookStore) Deliveries(ctx context.Context, endpointID uuid.UUID, after *webhook.DeliveryMark, limit int) ([]webhook.Delivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	var afterAt, afterID any
	if after != nil {
		afterAt, afterID = after.CreatedAt, after.ID
	}
	var rows []deliveryRow
	err := s.DB.SelectContext(ctx, &rows, `
SELECT `+deliveryColumns+`
  FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
 WHERE d.endpoint_id = $1 AND ($2::timestamptz IS NULL OR (d.created_at, d.id) < ($2, $3::uuid))
 ORDER BY d.created_at DESC, d.id DESC LIMIT $4`, endpointID, afterAt, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out := make([]webhook.Delivery, len(rows))
	index := make(map[uuid.UUID]int, len(rows))
	ids := make(pq.StringArray, len(rows))
	for i, r := range rows {
		out[i] = r.delivery()
		out[i].Attempts = []webhook.Attempt{}
		index[r.ID] = i
		ids[i] = r.ID.String()
	}
	if len(rows) == 0 {
		return out, nil
	}
	var attempts []struct {
		DeliveryID uuid.UUID      `db:"delivery_id"`
		Attempt    int            `db:"attempt"`
		At         time.Time      `db:"attempted_at"`
		Success    bool           `db:"success"`
		StatusCode sql.NullInt32  `db:"status_code"`
		DurationMS int64          `db:"duration_ms"`
		Error      sql.NullString `db:"error"`
	}
	err = s.DB.SelectContext(ctx, &attempts, `
SELECT delivery_id, attempt, attempted_at, success, status_code, duration_ms, error
  FROM webhook_attempts WHERE delivery_id = ANY ($1::uuid[]) ORDER BY delivery_id, attempt`, ids)
	if err != nil {
		return nil, fmt.Errorf("list delivery attempts: %w", err)
	}
	for _, a := range attempts {
		d := &out[index[a.DeliveryID]]
		d.Attempts = append(d.Attempts, webhook.Attempt{Number: a.Attempt, At: a.At.UTC(), Success: a.Success,
			StatusCode: int(a.StatusCode.Int32), Error: a.Error.String, Duration: time.Duration(a.DurationMS) * time.Millisecond})
	}
	return out, nil
}
