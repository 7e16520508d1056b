package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/audit"
)

// AuditStore reads the audit log (table audit_events). The stores that make changes write it,
// each in the statement of its change (auditInsert). It implements audit.Store.
type AuditStore struct {
	DB *sqlx.DB
}

var _ audit.Store = (*AuditStore)(nil)

// NewAuditStore returns an AuditStore on db.
func NewAuditStore(db *sqlx.DB) *AuditStore { return &AuditStore{DB: db} }

type auditRow struct {
	ID          int64         `db:"id"`
	AccountID   uuid.UUID     `db:"account_id"`
	At          time.Time     `db:"at"`
	ActorUserID uuid.NullUUID `db:"actor_user_id"`
	Actor       string        `db:"actor"`
	Address     string        `db:"address"`
	Action      string        `db:"action"`
	Target      string        `db:"target"`
}

// Record writes one event that goes with no change of state (a secret shown).
func (s *AuditStore) Record(ctx context.Context, e audit.Event) error {
	return translate("record audit event", insertAuditEvent(ctx, s.DB, e))
}

// insertAuditEvent writes e through db, a pool or a transaction; auditInsert is its form for the
// tail of a statement that makes the change.
func insertAuditEvent(ctx context.Context, db sqlx.ExecerContext, e audit.Event) error {
	_, err := db.ExecContext(ctx, `
		INSERT INTO audit_events (account_id, at, actor_user_id, actor, address, action, target)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		e.AccountID, e.At, uuid.NullUUID{UUID: e.Actor.UserID, Valid: e.Actor.UserID != uuid.Nil}, e.Actor.Name, e.Actor.Address, e.Action, e.Target)
	return err
}

// Events returns the account's events, newest first, at most limit, older than the event before
// (0: from the newest).
func (s *AuditStore) Events(ctx context.Context, accountID uuid.UUID, before int64, limit int) ([]audit.Event, error) {
	var rows []auditRow
	err := s.DB.SelectContext(ctx, &rows, `
		SELECT id, account_id, at, actor_user_id, actor, address, action, target FROM audit_events
		WHERE account_id = $1 AND ($2 = 0 OR id < $2)
		ORDER BY id DESC LIMIT $3`, accountID, before, limit)
	if err != nil {
		return nil, translate("audit events", err)
	}
	out := make([]audit.Event, len(rows))
	for i, r := range rows {
		out[i] = audit.Event{ID: r.ID, AccountID: r.AccountID, At: r.At, Action: r.Action, Target: r.Target,
			Actor: audit.Actor{UserID: r.ActorUserID.UUID, Name: r.Actor, Address: r.Address}}
	}
	return out, nil
}
