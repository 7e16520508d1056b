package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/webhook"
)

// Enqueuer queues work in the caller's transaction; queue.Enqueuer is one. The stores queue a
// job's work in the transaction that creates the job, and a delivery's in the one that writes
// its event.
type Enqueuer interface {
	EnqueueReconcile(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error)
	EnqueueParse(ctx context.Context, tx *sql.Tx, jobID uuid.UUID) (int64, error)
	EnqueueDeliveries(ctx context.Context, tx *sql.Tx, ids []uuid.UUID) error
}

// Webhook events are written by the transactions of the state changes that cause them (an
// outbox): emit stores the event's body once, one pending delivery per subscribed enabled
// endpoint, and one queued delivery job per delivery, all in the caller's transaction. So an
// event exists exactly when its cause committed, and its deliveries survive any crash after
// that. Which events a change emits is the job rules' decision (parsejob.Announcement).

// emit writes ev for the account's endpoints that subscribe to it, in tx. Nothing is written
// when no endpoint does.
func emit(ctx context.Context, tx *sqlx.Tx, q Enqueuer, ev webhook.Event) error {
	var endpoints []uuid.UUID
	err := tx.SelectContext(ctx, &endpoints, `
SELECT id FROM webhook_endpoints
 WHERE account_id = $1 AND enabled AND deleted_at IS NULL AND (events IS NULL OR $2 = ANY (events))
 ORDER BY id`, ev.AccountID, string(ev.Type))
	if err != nil {
		return fmt.Errorf("find endpoints of %s: %w", ev.Type, err)
	}
	if len(endpoints) == 0 {
		return nil
	}
	body, err := webhook.Body(ev.Type, ev.Data, ev.At)
	if err != nil {
		return err
	}
	eventID := uuid.New()
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, account_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)`,
		eventID, ev.AccountID, string(ev.Type), body, ev.At); err != nil {
		return fmt.Errorf("insert %s event: %w", ev.Type, err)
	}
	deliveries := make([]uuid.UUID, len(endpoints))
	ids := make(pq.StringArray, len(endpoints))
	targets := make(pq.StringArray, len(endpoints))
	for i, e := range endpoints {
		deliveries[i] = uuid.New()
		ids[i], targets[i] = deliveries[i].String(), e.String()
	}
	if _, err := tx.ExecContext(ctx, `
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, created_at)
SELECT d, $2, e, 'pending', $4, $4 FROM unnest($1::uuid[], $3::uuid[]) AS x (d, e)`, ids, eventID, targets, ev.At); err != nil {
		return fmt.Errorf("insert deliveries of %s: %w", ev.Type, err)
	}
	if err := q.EnqueueDeliveries(ctx, tx.Tx, deliveries); err != nil {
		return fmt.Errorf("queue deliveries of %s: %w", ev.Type, err)
	}
	return nil
}

// emitUsageThresholds announces, once per account, scope and period, each of c.Announce that
// the period's count reached with used jobs: a usage.threshold event in tx.
func emitUsageThresholds(ctx context.Context, tx *sqlx.Tx, q Enqueuer, accountID uuid.UUID, c quota.Charge, used int, at time.Time) error {
	for _, pct := range c.Announce {
		if used*100 < pct*c.Limit {
			continue
		}
		res, err := tx.ExecContext(ctx, `
INSERT INTO usage_thresholds (account_id, scope, period, percent, reached_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT DO NOTHING`, accountID, c.Scope, c.Period, pct, at)
		if err != nil {
			return fmt.Errorf("record usage threshold: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		data := webhook.UsageThresholdData{ThresholdPercent: pct, JobsCreated: used, JobsLimit: c.Limit,
			PeriodStart: c.Period.UTC(), PeriodEnd: c.ResetAt.UTC()}
		if err := emit(ctx, tx, q, webhook.Event{Type: webhook.EventUsageThreshold, AccountID: accountID, Data: data, At: at}); err != nil {
			return err
		}
	}
	return nil
}
