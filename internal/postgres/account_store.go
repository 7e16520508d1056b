package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
)

// AccountStore keeps accounts and their credentials in PostgreSQL (tables accounts, api_clients,
// access_tokens, api_keys and signing_secrets). It implements account.Store; its errors wrap the
// account package's sentinels, decided by PostgreSQL error code, never by message text.
type AccountStore struct {
	DB *sqlx.DB
}

var _ account.Store = (*AccountStore)(nil)

// NewAccountStore returns an AccountStore on db.
func NewAccountStore(db *sqlx.DB) *AccountStore { return &AccountStore{DB: db} }

// translate turns a database error into one that wraps an account sentinel, keeping the original
// for the logs. A foreign key violation can only mean an unknown account here, since every
// credential table refers to accounts (access_tokens also to api_clients, whose caller looked the
// client up first).
func translate(op string, err error) error {
	return sentinels{notFound: account.ErrNotFound, conflict: account.ErrConflict, invalid: account.ErrInvalid}.translate(op, err)
}

// sentinels are a domain package's errors for what PostgreSQL reports by code: no row or a
// missing referenced row, a duplicate, a value its checks refuse.
type sentinels struct{ notFound, conflict, invalid error }

// translate wraps err in the sentinel its PostgreSQL error code (or sql.ErrNoRows) means, keeping
// the original for the logs; never by message text.
func (e sentinels) translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, e.notFound)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return fmt.Errorf("%s: %w", op, err)
	}
	switch pgErr.Code {
	case pgerrcode.ForeignKeyViolation:
		return fmt.Errorf("%s: %w (%s)", op, e.notFound, pgErr.ConstraintName)
	case pgerrcode.UniqueViolation:
		return fmt.Errorf("%s: %w (%s)", op, e.conflict, pgErr.ConstraintName)
	case pgerrcode.CheckViolation, pgerrcode.NotNullViolation, pgerrcode.InvalidTextRepresentation,
		pgerrcode.StringDataRightTruncationDataException:
		return fmt.Errorf("%s: %w: %w", op, e.invalid, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

type accountRow struct {
	ID        uuid.UUID `db:"id"`
	Name      string    `db:"name"`
	ReconPlan string    `db:"recon_plan"`
	ParsePlan string    `db:"parse_plan"`
	CreatedAt time.Time `db:"created_at"`
}

func (r accountRow) account() account.Account {
	return account.Account{
		ID:        r.ID,
		Name:      r.Name,
		ReconPlan: account.ReconPlan(r.ReconPlan),
		ParsePlan: account.ParsePlan(r.ParsePlan),
		CreatedAt: r.CreatedAt,
	}
}

const accountColumns = `id, name, recon_plan, parse_plan, created_at`

// CreateAccount inserts a. A zero ID, empty plans or a zero CreatedAt take the table's defaults;
// the stored account is returned.
func (s *AccountStore) CreateAccount(ctx context.Context, a account.Account) (account.Account, error) {
	var r accountRow
	err := s.DB.GetContext(ctx, &r, `
		INSERT INTO accounts (id, name, recon_plan, parse_plan, created_at)
		VALUES (COALESCE($1, gen_random_uuid()), $2,
		        COALESCE(NULLIF($3, ''), 'standard'), COALESCE(NULLIF($4, ''), 'free'),
		        COALESCE($5, now()))
		RETURNING `+accountColumns,
		uuid.NullUUID{UUID: a.ID, Valid: a.ID != uuid.Nil}, a.Name,
		string(a.ReconPlan), string(a.ParsePlan), nullTime(a.CreatedAt))
	if err != nil {
		return account.Account{}, translate("create account", err)
	}
	return r.account(), nil
}

// Account returns the account with this id.
func (s *AccountStore) Account(ctx context.Context, id uuid.UUID) (account.Account, error) {
	var r accountRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id)
	if err != nil {
		return account.Account{}, translate("account "+id.String(), err)
	}
	return r.account(), nil
}

// DeleteAccount removes an account and everything it owns, in one transaction: its jobs with
// their files, results and transactions, its credentials, webhooks with their events,
// deliveries and attempts, its people and their sessions, its audit log, quotas, idempotency
// records and rate-limit counts (every table's rows reach the account through a cascading
// foreign key, or are deleted here), and the queued work of its jobs and deliveries. It returns
// the account's name; account.ErrNotFound when there is no such account.
func (s *AccountStore) DeleteAccount(ctx context.Context, id uuid.UUID) (string, error) {
	var name string
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &name, `SELECT name FROM accounts WHERE id = $1 FOR UPDATE`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return account.ErrNotFound
		}
		if err != nil {
			return err
		}
		// The queue's rows name the work by id, with no key to cascade on.
		if _, err := tx.ExecContext(ctx, `
DELETE FROM river_job
 WHERE (kind IN ('reconcile', 'parse') AND (args ->> 'job_id')::uuid IN (
          SELECT id FROM recon_jobs WHERE account_id = $1 UNION ALL SELECT id FROM parse_jobs WHERE account_id = $1))
    OR (kind = 'webhook_delivery' AND (args ->> 'delivery_id')::uuid IN (
          SELECT d.id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.account_id = $1))`, id); err != nil {
			return fmt.Errorf("delete queued work: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM rate_limit_windows WHERE account_id = $1`, id); err != nil {
			return fmt.Errorf("delete rate-limit counts: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM accounts WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete account: %w", err)
		}
		return nil
	})
	return name, err
}

// ListAccounts returns every account, oldest first.
func (s *AccountStore) ListAccounts(ctx context.Context) ([]account.Account, error) {
	var rows []accountRow
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+accountColumns+` FROM accounts ORDER BY created_at, id`); err != nil {
		return nil, translate("list accounts", err)
	}
	out := make([]account.Account, len(rows))
	for i, r := range rows {
		out[i] = r.account()
	}
	return out, nil
}

type clientRow struct {
	ID          string         `db:"id"`
	AccountID   uuid.UUID      `db:"account_id"`
	Permissions pq.StringArray `db:"permissions"`
	SecretHash  []byte         `db:"secret_hash"`
	CreatedAt   time.Time      `db:"created_at"`
	RevokedAt   *time.Time     `db:"revoked_at"`
	CreatedBy   string         `db:"created_by"`
	LastUsedAt  *time.Time     `db:"last_used_at"`
	SecretSince *time.Time     `db:"secret_since"`
	Previous    []byte         `db:"previous_secret_hash"`
	PreviousTo  *time.Time     `db:"previous_expires_at"`
}

func (r clientRow) client() account.Client {
	since := r.CreatedAt
	if r.SecretSince != nil {
		since = *r.SecretSince
	}
	return account.Client{
		ID:                 r.ID,
		AccountID:          r.AccountID,
		Permissions:        typed[account.Permission](r.Permissions),
		SecretHash:         r.SecretHash,
		CreatedAt:          r.CreatedAt,
		RevokedAt:          r.RevokedAt,
		CreatedBy:          r.CreatedBy,
		LastUsedAt:         r.LastUsedAt,
		SecretSince:        since,
		PreviousSecretHash: r.Previous,
		PreviousExpiresAt:  r.PreviousTo,
	}
}

const clientColumns = `id, account_id, permissions, secret_hash, created_at, revoked_at, created_by, last_used_at, secret_since,
	previous_secret_hash, previous_expires_at`

// auditInsert is the tail of a statement that records an audit event for each row its CTE
// "changed" returns (columns account_id and target), with the actor in $a, $a+1, $a+2 (user id,
// name, address) and the time in $a+3: the event is written by the statement that makes the
// change, or not at all.
func auditInsert(a int) string {
	return fmt.Sprintf(`
		INSERT INTO audit_events (account_id, at, actor_user_id, actor, address, action, target)
		SELECT account_id, $%d, $%d, $%d, $%d, $%d, target FROM changed`, a+3, a, a+1, a+2, a+4)
}

// actorArgs are the parameters of auditInsert: the actor's user id (NULL for the operator),
// name and address, the time and the action.
func actorArgs(by audit.Actor, at time.Time, action string) []any {
	return []any{uuid.NullUUID{UUID: by.UserID, Valid: by.UserID != uuid.Nil}, by.Name, by.Address, at, action}
}

// CreateClient inserts c and the audit event of its creation by by. An unknown account is
// account.ErrNotFound.
func (s *AccountStore) CreateClient(ctx context.Context, c account.Client, by audit.Actor) error {
	at := c.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	args := append([]any{c.ID, c.AccountID, textArray(c.Permissions), c.SecretHash, at, c.RevokedAt, by.Name},
		actorArgs(by, at, audit.ClientCreated)...)
	_, err := s.DB.ExecContext(ctx, `
		WITH changed AS (
			INSERT INTO api_clients (id, account_id, permissions, secret_hash, created_at, revoked_at, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING account_id, id AS target
		)`+auditInsert(8), args...)
	return translate("create client", err)
}

// Client returns the client with this id, revoked or not.
func (s *AccountStore) Client(ctx context.Context, id string) (account.Client, error) {
	var r clientRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+clientColumns+` FROM api_clients WHERE id = $1`, id)
	if err != nil {
		return account.Client{}, translate("client", err)
	}
	return r.client(), nil
}

// Clients returns the account's clients, revoked ones included, newest first.
func (s *AccountStore) Clients(ctx context.Context, accountID uuid.UUID) ([]account.Client, error) {
	var rows []clientRow
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+clientColumns+` FROM api_clients
		WHERE account_id = $1 ORDER BY created_at DESC, id`, accountID); err != nil {
		return nil, translate("list clients", err)
	}
	out := make([]account.Client, len(rows))
	for i, r := range rows {
		out[i] = r.client()
	}
	return out, nil
}

// RevokeClient marks the account's client (uuid.Nil: any account's) revoked at at and records
// the event. An unknown client, or another account's, is account.ErrNotFound; one revoked before
// is account.ErrRevoked and keeps its first revocation time.
func (s *AccountStore) RevokeClient(ctx context.Context, accountID uuid.UUID, id string, at time.Time, by audit.Actor) error {
	return s.revoke(ctx, "revoke client", "api_clients", "id", accountID, id, at, by, audit.ClientRevoked)
}

// RotateClient gives the account's unrevoked client the secret hash, keeping its current one
// until previousUntil (nil: the current one stops at once), and records the event, in one
// statement. An unknown client, or another account's, is account.ErrNotFound; a revoked one
// account.ErrRevoked.
func (s *AccountStore) RotateClient(ctx context.Context, accountID uuid.UUID, id string, hash []byte, at time.Time, previousUntil *time.Time, by audit.Actor) error {
	var exists, revoked, updated bool
	args := append([]any{id, uuid.NullUUID{UUID: accountID, Valid: accountID != uuid.Nil}, hash, at, previousUntil},
		actorArgs(by, at, audit.ClientRotated)...)
	err := s.DB.QueryRowContext(ctx, `
		WITH changed AS (
			UPDATE api_clients SET
				previous_secret_hash = CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE secret_hash END,
				previous_expires_at = $5, secret_hash = $3, secret_since = $4
			WHERE id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR account_id = $2)
			RETURNING account_id, id AS target
		), logged AS (`+auditInsert(6)+` RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM api_clients WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2)),
		       EXISTS (SELECT 1 FROM api_clients WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) AND revoked_at IS NOT NULL),
		       EXISTS (SELECT 1 FROM changed)`, args...).Scan(&exists, &revoked, &updated)
	switch {
	case err != nil:
		return translate("rotate client", err)
	case updated:
		return nil
	case revoked:
		return fmt.Errorf("rotate client: %w", account.ErrRevoked)
	case exists:
		return fmt.Errorf("rotate client: %w", account.ErrConflict)
	}
	return fmt.Errorf("rotate client: %w", account.ErrNotFound)
}

// ClientUsed notes that the client got a token at at, unless that was noted less than a minute
// before.
func (s *AccountStore) ClientUsed(ctx context.Context, id string, at time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE api_clients SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`, id, at)
	return translate("note client use", err)
}

// revoke sets revoked_at once and records the event, whose target is the row's targetColumn.
// table and targetColumn are this file's constants, never input.
func (s *AccountStore) revoke(ctx context.Context, op, table, targetColumn string, accountID uuid.UUID, id any, at time.Time, by audit.Actor, action string) error {
	// One statement tells the three cases apart and records the change: the CTE updates an
	// unrevoked row of the account, the outer query reports whether the row exists at all.
	var exists, updated bool
	args := append([]any{id, at, uuid.NullUUID{UUID: accountID, Valid: accountID != uuid.Nil}}, actorArgs(by, at, action)...)
	err := s.DB.QueryRowContext(ctx, `
		WITH changed AS (
			UPDATE `+table+` SET revoked_at = $2
			WHERE id = $1 AND revoked_at IS NULL AND ($3::uuid IS NULL OR account_id = $3)
			RETURNING account_id, `+targetColumn+` AS target
		), logged AS (`+auditInsert(4)+` RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = $1 AND ($3::uuid IS NULL OR account_id = $3)),
		       EXISTS (SELECT 1 FROM changed)`,
		args...).Scan(&exists, &updated)
	switch {
	case err != nil:
		return translate(op, err)
	case updated:
		return nil
	case exists:
		return fmt.Errorf("%s: %w", op, account.ErrRevoked)
	}
	return fmt.Errorf("%s: %w", op, account.ErrNotFound)
}

type tokenRow struct {
	Hash        []byte         `db:"hash"`
	ClientID    string         `db:"client_id"`
	AccountID   uuid.UUID      `db:"account_id"`
	Env         string         `db:"env"`
	Permissions pq.StringArray `db:"permissions"`
	IssuedAt    time.Time      `db:"issued_at"`
	ExpiresAt   time.Time      `db:"expires_at"`
	RevokedAt   *time.Time     `db:"revoked_at"`
}

// CreateAccessToken inserts t. An unknown client or account is account.ErrNotFound.
func (s *AccountStore) CreateAccessToken(ctx context.Context, t account.AccessToken) error {
	_, err := s.DB.ExecContext(ctx, `
		INSERT INTO access_tokens (hash, client_id, account_id, env, permissions, issued_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		t.Hash, t.ClientID, t.AccountID, string(t.Env), textArray(t.Permissions), t.IssuedAt, t.ExpiresAt)
	return translate("create access token", err)
}

// AccessToken returns the token with this hash, expired or not, and its client's revocation
// time (nil while the client is active).
func (s *AccountStore) AccessToken(ctx context.Context, hash []byte) (account.AccessToken, *time.Time, error) {
	var r tokenRow
	err := s.DB.GetContext(ctx, &r, `
		SELECT t.hash, t.client_id, t.account_id, t.env, t.permissions, t.issued_at, t.expires_at, c.revoked_at
		FROM access_tokens t JOIN api_clients c ON c.id = t.client_id
		WHERE t.hash = $1`, hash)
	if err != nil {
		return account.AccessToken{}, nil, translate("access token", err)
	}
	return account.AccessToken{
		Hash:        r.Hash,
		ClientID:    r.ClientID,
		AccountID:   r.AccountID,
		Env:         account.Environment(r.Env),
		Permissions: typed[account.Permission](r.Permissions),
		IssuedAt:    r.IssuedAt,
		ExpiresAt:   r.ExpiresAt,
	}, r.RevokedAt, nil
}

// DeleteExpiredAccessTokens deletes the tokens that expired before now, at most limit of them,
// and returns how many it deleted; a cleanup job calls it until it returns less than limit.
func (s *AccountStore) DeleteExpiredAccessTokens(ctx context.Context, now time.Time, limit int) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `
		DELETE FROM access_tokens WHERE hash IN (
			SELECT hash FROM access_tokens WHERE expires_at < $1 LIMIT $2)`, now, limit)
	if err != nil {
		return 0, translate("delete expired access tokens", err)
	}
	return res.RowsAffected()
}

type apiKeyRow struct {
	ID         uuid.UUID      `db:"id"`
	AccountID  uuid.UUID      `db:"account_id"`
	Prefix     string         `db:"prefix"`
	Hash       []byte         `db:"hash"`
	Scopes     pq.StringArray `db:"scopes"`
	CreatedAt  time.Time      `db:"created_at"`
	RevokedAt  *time.Time     `db:"revoked_at"`
	CreatedBy  string         `db:"created_by"`
	LastUsedAt *time.Time     `db:"last_used_at"`
}

func (r apiKeyRow) key() account.APIKey {
	return account.APIKey{
		ID:         r.ID,
		AccountID:  r.AccountID,
		Prefix:     r.Prefix,
		Hash:       r.Hash,
		Scopes:     typed[account.Scope](r.Scopes),
		CreatedAt:  r.CreatedAt,
		RevokedAt:  r.RevokedAt,
		CreatedBy:  r.CreatedBy,
		LastUsedAt: r.LastUsedAt,
	}
}

const apiKeyColumns = `id, account_id, prefix, hash, scopes, created_at, revoked_at, created_by, last_used_at`

// CreateAPIKey inserts k and the audit event of its creation by by. An unknown account is
// account.ErrNotFound.
func (s *AccountStore) CreateAPIKey(ctx context.Context, k account.APIKey, by audit.Actor) error {
	at := k.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	args := append([]any{uuid.NullUUID{UUID: k.ID, Valid: k.ID != uuid.Nil}, k.AccountID, k.Prefix, k.Hash,
		textArray(k.Scopes), at, k.RevokedAt, by.Name}, actorArgs(by, at, audit.KeyCreated)...)
	_, err := s.DB.ExecContext(ctx, `
		WITH changed AS (
			INSERT INTO api_keys (id, account_id, prefix, hash, scopes, created_at, revoked_at, created_by)
			VALUES (COALESCE($1, gen_random_uuid()), $2, $3, $4, $5, $6, $7, $8)
			RETURNING account_id, prefix AS target
		)`+auditInsert(9), args...)
	return translate("create API key", err)
}

// APIKeyByHash returns the key with this hash, revoked or not.
func (s *AccountStore) APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error) {
	var r apiKeyRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = $1`, hash)
	if err != nil {
		return account.APIKey{}, translate("API key", err)
	}
	return r.key(), nil
}

// APIKeys returns the account's keys, revoked ones included, newest first.
func (s *AccountStore) APIKeys(ctx context.Context, accountID uuid.UUID) ([]account.APIKey, error) {
	var rows []apiKeyRow
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE account_id = $1 ORDER BY created_at DESC, id`, accountID); err != nil {
		return nil, translate("list API keys", err)
	}
	out := make([]account.APIKey, len(rows))
	for i, r := range rows {
		out[i] = r.key()
	}
	return out, nil
}

// RevokeAPIKey marks the account's key (uuid.Nil: any account's) revoked at at and records the
// event. An unknown key, or another account's, is account.ErrNotFound; one revoked before is
// account.ErrRevoked and keeps its first revocation time.
func (s *AccountStore) RevokeAPIKey(ctx context.Context, accountID uuid.UUID, id uuid.UUID, at time.Time, by audit.Actor) error {
	return s.revoke(ctx, "revoke API key", "api_keys", "prefix", accountID, id, at, by, audit.KeyRevoked)
}

// APIKeyUsed notes that the key authenticated a request at at, unless that was noted less than
// a minute before.
func (s *AccountStore) APIKeyUsed(ctx context.Context, id uuid.UUID, at time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`, id, at)
	return translate("note API key use", err)
}

// SigningSecret returns the account's sealed webhook signing secret. An unknown account, or one
// without a secret yet, is account.ErrNotFound.
func (s *AccountStore) SigningSecret(ctx context.Context, accountID uuid.UUID) ([]byte, error) {
	var sealed []byte
	err := s.DB.GetContext(ctx, &sealed, `SELECT sealed FROM signing_secrets WHERE account_id = $1`, accountID)
	if err != nil {
		return nil, translate("signing secret", err)
	}
	return sealed, nil
}

// AnySigningSecret returns one stored sealed signing secret, whichever, or account.ErrNotFound
// when there is none. It lets a process check, before it seals anything new, that its secret key
// is the one the database's secrets were sealed with.
func (s *AccountStore) AnySigningSecret(ctx context.Context) ([]byte, error) {
	var sealed []byte
	err := s.DB.GetContext(ctx, &sealed, `SELECT sealed FROM signing_secrets LIMIT 1`)
	if err != nil {
		return nil, translate("any signing secret", err)
	}
	return sealed, nil
}

// SetSigningSecret stores the account's sealed signing secret, replacing the one it had, and,
// when by is set, the audit event of its rotation. An unknown account is account.ErrNotFound.
func (s *AccountStore) SetSigningSecret(ctx context.Context, accountID uuid.UUID, sealed []byte, at time.Time, by *audit.Actor) error {
	query := `
		INSERT INTO signing_secrets (account_id, sealed, rotated_at) VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET sealed = EXCLUDED.sealed, rotated_at = EXCLUDED.rotated_at`
	args := []any{accountID, sealed, at}
	if by != nil {
		query = `WITH changed AS (` + query + ` RETURNING account_id, '' AS target)` + auditInsert(4)
		args = append(args, actorArgs(*by, at, audit.SigningRotated)...)
	}
	_, err := s.DB.ExecContext(ctx, query, args...)
	return translate("set signing secret", err)
}

// textArray converts a slice of a string type (permissions, scopes) for a text[] parameter. A nil
// slice becomes an empty array, never NULL, so that the NOT NULL column reports the real problem
// through its CHECK.
func textArray[T ~string](in []T) pq.StringArray {
	out := make(pq.StringArray, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// typed converts a text[] column back to a slice of a string type.
func typed[T ~string](in pq.StringArray) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = T(v)
	}
	return out
}

// nullTime makes a zero time NULL, so that the column's default applies.
func nullTime(t time.Time) sql.NullTime { return sql.NullTime{Time: t, Valid: !t.IsZero()} }
