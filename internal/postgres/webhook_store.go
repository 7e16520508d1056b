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

	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/webhook"
)

// WebhookStore keeps webhook endpoints.
type WebhookStore struct {
	DB *sqlx.DB
}

var _ webhook.Store = (*WebhookStore)(nil)

// NewWebhookStore returns the webhook store of db.
func NewWebhookStore(db *sqlx.DB) *WebhookStore { return &WebhookStore{DB: db} }

// ClaimKey implements idempotency.Store.
func (s *WebhookStore) ClaimKey(ctx context.Context, k idempotency.Key, now time.Time) (idempotency.Record, bool, error) {
	return claimKey(ctx, s.DB, k, now)
}

// ReleaseKey implements idempotency.Store.
func (s *WebhookStore) ReleaseKey(ctx context.Context, k idempotency.Key) error {
	return releaseKey(ctx, s.DB, k)
}

// CreateEndpoint implements webhook.Store. The account's row is locked before its endpoints are
// counted, so concurrent registrations take turns and cannot pass the limit together. The count
// is a statement of its own: under READ COMMITTED a statement sees what was committed when it
// started, so a count in the statement that waited for the lock would miss the endpoint of the
// transaction it waited for.
func (s *WebhookStore) CreateEndpoint(ctx context.Context, e webhook.Endpoint, max int, k idempotency.Key) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, e.AccountID); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE account_id = $1 AND deleted_at IS NULL`, e.AccountID).Scan(&n)
		if err != nil {
			return fmt.Errorf("count webhook endpoints: %w", err)
		}
		if n >= max {
			return webhook.ErrTooManyEndpoints
		}
		var desc sql.NullString
		if e.Description != "" {
			desc = sql.NullString{String: cleanText(e.Description), Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `
INSERT INTO webhook_endpoints (id, account_id, url, events, description, enabled, created_at)
VALUES ($1, $2, $3, $4, $5, true, $6)`, e.ID, e.AccountID, e.URL, eventsArray(e.Events), desc, e.CreatedAt); err != nil {
			return fmt.Errorf("insert webhook endpoint: %w", err)
		}
		return recordKey(ctx, tx, k)
	})
}

// eventsArray is the events column of a subscription: NULL for every event type.
func eventsArray(events []webhook.EventType) any {
	if events == nil {
		return nil
	}
	out := make(pq.StringArray, len(events))
	for i, e := range events {
		out[i] = string(e)
	}
	return out
}

const endpointColumns = `id, account_id, url, events, description, enabled, disabled_reason, failing_since, created_at`

type endpointRow struct {
	ID             uuid.UUID      `db:"id"`
	AccountID      uuid.UUID      `db:"account_id"`
	URL            string         `db:"url"`
	Events         pq.StringArray `db:"events"`
	Description    sql.NullString `db:"description"`
	Enabled        bool           `db:"enabled"`
	DisabledReason sql.NullString `db:"disabled_reason"`
	FailingSince   sql.NullTime   `db:"failing_since"`
	CreatedAt      time.Time      `db:"created_at"`
}

func (r endpointRow) endpoint() webhook.Endpoint {
	e := webhook.Endpoint{ID: r.ID, AccountID: r.AccountID, URL: r.URL, Description: r.Description.String,
		Enabled: r.Enabled, DisabledReason: r.DisabledReason.String, CreatedAt: r.CreatedAt.UTC()}
	if r.FailingSince.Valid {
		e.FailingSince = r.FailingSince.Time.UTC()
	}
	if r.Events != nil {
		e.Events = make([]webhook.EventType, len(r.Events))
		for i, ev := range r.Events {
			e.Events[i] = webhook.EventType(ev)
		}
	}
	return e
}

// Endpoint implements webhook.Store.
func (s *WebhookStore) Endpoint(ctx context.Context, accountID, id uuid.UUID, withDeleted bool) (webhook.Endpoint, error) {
	var r endpointRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+endpointColumns+` FROM webhook_endpoints
 WHERE id = $1 AND account_id = $2 AND ($3 OR deleted_at IS NULL)`, id, accountID, withDeleted)
	if errors.Is(err, sql.ErrNoRows) {
		return webhook.Endpoint{}, webhook.ErrNotFound
	}
	if err != nil {
		return webhook.Endpoint{}, fmt.Errorf("get webhook endpoint: %w", err)
	}
	return r.endpoint(), nil
}

// Endpoints implements webhook.Store.
func (s *WebhookStore) Endpoints(ctx context.Context, accountID uuid.UUID) ([]webhook.Endpoint, error) {
	var rows []endpointRow
	err := s.DB.SelectContext(ctx, &rows, `SELECT `+endpointColumns+` FROM webhook_endpoints
 WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i, r := range rows {
		out[i] = r.endpoint()
	}
	return out, nil
}

// SetEnabled implements webhook.Store: the endpoint's switch, its pending deliveries when it is
// turned off, and the audit event, in one transaction.
func (s *WebhookStore) SetEnabled(ctx context.Context, accountID, id uuid.UUID, enabled bool, reason string, now time.Time, by audit.Actor) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		var url string
		err := tx.GetContext(ctx, &url, `
UPDATE webhook_endpoints SET enabled = $3, disabled_reason = NULLIF($4, ''),
       failing_since = CASE WHEN $3 THEN NULL ELSE failing_since END
 WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING url`, id, accountID, enabled, reason)
		if errors.Is(err, sql.ErrNoRows) {
			return webhook.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("switch webhook endpoint: %w", err)
		}
		action := audit.WebhookReenabled
		if !enabled {
			action = audit.WebhookDisabled
			if err := endPendingDeliveries(ctx, tx, id, webhook.DeliveryCancelled, "The endpoint was disabled.", now); err != nil {
				return err
			}
		}
		return recordTx(ctx, tx, accountID, by, now, action, url)
	})
}

// DeleteEndpoint implements webhook.Store. The endpoint's pending deliveries are cancelled in
// the same transaction.
func (s *WebhookStore) DeleteEndpoint(ctx context.Context, accountID, id uuid.UUID, now time.Time) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `
UPDATE webhook_endpoints SET deleted_at = $3 WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID, now)
		if err != nil {
			return fmt.Errorf("delete webhook endpoint: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return webhook.ErrNotFound
		}
		return endPendingDeliveries(ctx, tx, id, webhook.DeliveryCancelled, "The endpoint was deleted.", now)
	})
}
