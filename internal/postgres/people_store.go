package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
)

// PeopleStore keeps the dashboard's users, invitations and sessions (tables users,
// user_invitations, dashboard_sessions), writing each audited change's event in the same
// statement or transaction. It implements people.Store.
type PeopleStore struct {
	DB *sqlx.DB
}

var _ people.Store = (*PeopleStore)(nil)

// NewPeopleStore returns a PeopleStore on db.
func NewPeopleStore(db *sqlx.DB) *PeopleStore { return &PeopleStore{DB: db} }

// translatePeople turns a database error into one that wraps a people sentinel.
func translatePeople(op string, err error) error {
	return sentinels{notFound: people.ErrNotFound, conflict: people.ErrConflict, invalid: people.ErrInvalid}.translate(op, err)
}

type userRow struct {
	ID           uuid.UUID      `db:"id"`
	AccountID    uuid.UUID      `db:"account_id"`
	Email        string         `db:"email"`
	Role         string         `db:"role"`
	PasswordHash sql.NullString `db:"password_hash"`
	CreatedAt    time.Time      `db:"created_at"`
	DisabledAt   *time.Time     `db:"disabled_at"`
	TOTPSince    *time.Time     `db:"totp_since"`
}

func (r userRow) user() people.User {
	return people.User{ID: r.ID, AccountID: r.AccountID, Email: r.Email, Role: people.Role(r.Role),
		PasswordHash: r.PasswordHash.String, CreatedAt: r.CreatedAt, DisabledAt: r.DisabledAt, SecondFactorSince: r.TOTPSince}
}

const userColumns = `id, account_id, email, role, password_hash, created_at, disabled_at, totp_since`

// CreateUser inserts u, its invitation and the audit event, in one transaction.
func (s *PeopleStore) CreateUser(ctx context.Context, u people.User, inv people.Invitation, by audit.Actor) error {
	return translatePeople("create user", inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO users (id, account_id, email, role, created_at) VALUES ($1, $2, $3, $4, $5)`,
			u.ID, u.AccountID, u.Email, string(u.Role), u.CreatedAt); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_invitations (hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			inv.Hash, inv.UserID, inv.CreatedAt, inv.ExpiresAt); err != nil {
			return err
		}
		return recordTx(ctx, tx, u.AccountID, by, u.CreatedAt, audit.UserInvited, u.Email+" ("+string(u.Role)+")")
	}))
}

// NewInvitation stores another set-password link for u and records who issued it, in one
// transaction.
func (s *PeopleStore) NewInvitation(ctx context.Context, inv people.Invitation, u people.User, by audit.Actor) error {
	return translatePeople("new invitation", inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_invitations (hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			inv.Hash, inv.UserID, inv.CreatedAt, inv.ExpiresAt); err != nil {
			return err
		}
		return recordTx(ctx, tx, u.AccountID, by, inv.CreatedAt, audit.LinkIssued, u.Email)
	}))
}

// recordTx writes one audit event inside tx.
func recordTx(ctx context.Context, tx *sqlx.Tx, accountID uuid.UUID, by audit.Actor, at time.Time, action, target string) error {
	return insertAuditEvent(ctx, tx, audit.Event{AccountID: accountID, At: at, Actor: by, Action: action, Target: target})
}

// User returns the user with this id.
func (s *PeopleStore) User(ctx context.Context, id uuid.UUID) (people.User, error) {
	var r userRow
	if err := s.DB.GetContext(ctx, &r, `SELECT `+userColumns+` FROM users WHERE id = $1`, id); err != nil {
		return people.User{}, translatePeople("user", err)
	}
	return r.user(), nil
}

// UserByEmail returns the user with this email, compared without case.
func (s *PeopleStore) UserByEmail(ctx context.Context, email string) (people.User, error) {
	var r userRow
	if err := s.DB.GetContext(ctx, &r, `SELECT `+userColumns+` FROM users WHERE lower(email) = lower($1)`, email); err != nil {
		return people.User{}, translatePeople("user by email", err)
	}
	return r.user(), nil
}

// Users returns the account's users, oldest first.
func (s *PeopleStore) Users(ctx context.Context, accountID uuid.UUID) ([]people.User, error) {
	var rows []userRow
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+userColumns+` FROM users WHERE account_id = $1 ORDER BY created_at, email`,
		accountID); err != nil {
		return nil, translatePeople("users", err)
	}
	out := make([]people.User, len(rows))
	for i, r := range rows {
		out[i] = r.user()
	}
	return out, nil
}

// UseInvitation sets the password of the invitation's user, marks the invitation used, ends the
// user's sessions and records the change, in one transaction, if the invitation is unused and
// unexpired at at (people.ErrLinkInvalid otherwise). The invitation's row is locked, so one link
// sets a password once however many requests use it at the same time.
func (s *PeopleStore) UseInvitation(ctx context.Context, hash []byte, passwordHash string, at time.Time, address string) (people.User, error) {
	var u people.User
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		var userID uuid.UUID
		err := tx.GetContext(ctx, &userID, `SELECT user_id FROM user_invitations
			WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 FOR UPDATE`, hash, at)
		if errors.Is(err, sql.ErrNoRows) {
			return people.ErrLinkInvalid
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE user_invitations SET used_at = $2 WHERE hash = $1`, hash, at); err != nil {
			return err
		}
		var r userRow
		if err := tx.GetContext(ctx, &r, `UPDATE users SET password_hash = $2 WHERE id = $1 RETURNING `+userColumns,
			userID, passwordHash); err != nil {
			return err
		}
		u = r.user()
		if _, err := tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE user_id = $1`, userID); err != nil {
			return err
		}
		return recordTx(ctx, tx, u.AccountID, u.Actor(address), at, audit.PasswordSet, u.Email)
	})
	if errors.Is(err, people.ErrLinkInvalid) {
		return people.User{}, err
	}
	return u, translatePeople("use invitation", err)
}

// ChangePassword sets the user's password hash, ends their sessions but keep, and records the
// change, in one transaction.
func (s *PeopleStore) ChangePassword(ctx context.Context, u people.User, passwordHash string, keep []byte, at time.Time, address string) error {
	return translatePeople("change password", inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, u.ID, passwordHash); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE user_id = $1 AND hash <> $2`, u.ID, keep); err != nil {
			return err
		}
		return recordTx(ctx, tx, u.AccountID, u.Actor(address), at, audit.PasswordChanged, u.Email)
	}))
}

// UpdateUser sets the account's user's role and disabled time, ends their sessions when disabled,
// and records action, in one transaction. Another account's user is people.ErrNotFound.
func (s *PeopleStore) UpdateUser(ctx context.Context, accountID, userID uuid.UUID, role people.Role, disabledAt *time.Time, action string, by audit.Actor) (people.User, error) {
	var u people.User
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		var r userRow
		if err := tx.GetContext(ctx, &r, `UPDATE users SET role = $3, disabled_at = $4 WHERE id = $1 AND account_id = $2
			RETURNING `+userColumns, userID, accountID, string(role), disabledAt); err != nil {
			return err
		}
		u = r.user()
		if disabledAt != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE user_id = $1`, userID); err != nil {
				return err
			}
		}
		target := u.Email
		if action == audit.RoleChanged {
			target += " (" + string(role) + ")"
		}
		return recordTx(ctx, tx, accountID, by, time.Now().UTC(), action, target)
	})
	return u, translatePeople("update user", err)
}

// InvitationUser returns the user an invitation is for, if it is unused and unexpired at at
// (people.ErrLinkInvalid otherwise).
func (s *PeopleStore) InvitationUser(ctx context.Context, hash []byte, at time.Time) (people.User, error) {
	var r userRow
	err := s.DB.GetContext(ctx, &r, `SELECT `+prefixed("u.", userColumns)+` FROM user_invitations i JOIN users u ON u.id = i.user_id
		WHERE i.hash = $1 AND i.used_at IS NULL AND i.expires_at > $2`, hash, at)
	if errors.Is(err, sql.ErrNoRows) {
		return people.User{}, people.ErrLinkInvalid
	}
	if err != nil {
		return people.User{}, translatePeople("invitation", err)
	}
	return r.user(), nil
}

// prefixed qualifies each of a comma-separated column list with prefix ("u.").
func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

type sessionRow struct {
	Hash       []byte    `db:"hash"`
	UserID     uuid.UUID `db:"user_id"`
	CSRF       string    `db:"csrf"`
	CreatedAt  time.Time `db:"created_at"`
	LastSeenAt time.Time `db:"last_seen_at"`
	ExpiresAt  time.Time `db:"expires_at"`
	Address    string    `db:"address"`
}

// CreateSession inserts the session and records the sign-in, in one statement.
func (s *PeopleStore) CreateSession(ctx context.Context, sess people.Session, u people.User) error {
	return translatePeople("create session", createSession(ctx, s.DB, sess, u))
}

func createSession(ctx context.Context, db sqlx.ExecerContext, sess people.Session, u people.User) error {
	by := u.Actor(sess.Address)
	args := append([]any{sess.Hash, sess.UserID, sess.CSRF, sess.CreatedAt, sess.ExpiresAt, sess.Address, u.AccountID},
		actorArgs(by, sess.CreatedAt, audit.SignedIn)...)
	_, err := db.ExecContext(ctx, `
		WITH changed AS (
			INSERT INTO dashboard_sessions (hash, user_id, csrf, created_at, last_seen_at, expires_at, address)
			VALUES ($1, $2, $3, $4, $4, $5, $6)
			RETURNING $7::uuid AS account_id, '' AS target
		)`+auditInsert(8), args...)
	return err
}

// Session returns the session with this hash and its user.
func (s *PeopleStore) Session(ctx context.Context, hash []byte) (people.Session, people.User, error) {
	var row struct {
		sessionRow
		userRow
	}
	err := s.DB.QueryRowxContext(ctx, `
		SELECT s.hash, s.user_id, s.csrf, s.created_at AS s_created, s.last_seen_at, s.expires_at, s.address,
		       u.id, u.account_id, u.email, u.role, u.password_hash, u.created_at, u.disabled_at, u.totp_since
		FROM dashboard_sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = $1`, hash).Scan(
		&row.sessionRow.Hash, &row.sessionRow.UserID, &row.sessionRow.CSRF, &row.sessionRow.CreatedAt, &row.sessionRow.LastSeenAt,
		&row.sessionRow.ExpiresAt, &row.sessionRow.Address,
		&row.userRow.ID, &row.userRow.AccountID, &row.userRow.Email, &row.userRow.Role, &row.userRow.PasswordHash,
		&row.userRow.CreatedAt, &row.userRow.DisabledAt, &row.userRow.TOTPSince)
	if err != nil {
		return people.Session{}, people.User{}, translatePeople("session", err)
	}
	r := row.sessionRow
	return people.Session{Hash: r.Hash, UserID: r.UserID, CSRF: r.CSRF, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt,
		ExpiresAt: r.ExpiresAt, Address: r.Address}, row.userRow.user(), nil
}

// TouchSession notes a request of the session at at.
func (s *PeopleStore) TouchSession(ctx context.Context, hash []byte, at time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE dashboard_sessions SET last_seen_at = $2 WHERE hash = $1`, hash, at)
	return translatePeople("touch session", err)
}

// DeleteSession ends the session and records the sign-out, in one statement.
func (s *PeopleStore) DeleteSession(ctx context.Context, hash []byte, by audit.Actor) error {
	args := append([]any{hash}, actorArgs(by, time.Now(), audit.SignedOut)...)
	_, err := s.DB.ExecContext(ctx, `
		WITH changed AS (
			DELETE FROM dashboard_sessions s USING users u WHERE s.hash = $1 AND u.id = s.user_id
			RETURNING u.account_id, '' AS target
		)`+auditInsert(2), args...)
	return translatePeople("delete session", err)
}

// DeleteSessions ends every session of the user and records it, in one statement (once, however
// many sessions there were).
func (s *PeopleStore) DeleteSessions(ctx context.Context, userID uuid.UUID, by audit.Actor) error {
	args := append([]any{userID}, actorArgs(by, time.Now(), audit.SignedOutAll)...)
	_, err := s.DB.ExecContext(ctx, `
		WITH deleted AS (
			DELETE FROM dashboard_sessions WHERE user_id = $1 RETURNING user_id
		), changed AS (
			SELECT account_id, email AS target FROM users WHERE id = $1
		)`+auditInsert(2), args...)
	return translatePeople("delete sessions", err)
}

// RecordFailedSignIn records a failed sign-in of a known user.
func (s *PeopleStore) RecordFailedSignIn(ctx context.Context, u people.User, address string, at time.Time) error {
	e := audit.Event{AccountID: u.AccountID, At: at, Actor: u.Actor(address), Action: audit.SignInFailed, Target: u.Email}
	return translatePeople("record failed sign-in", insertAuditEvent(ctx, s.DB, e))
}

// DeleteUser removes the account's user and records it, in one statement; their sessions,
// links and challenges go with them (ON DELETE CASCADE), their audit events stay.
func (s *PeopleStore) DeleteUser(ctx context.Context, accountID, userID uuid.UUID, by audit.Actor) (people.User, error) {
	var r userRow
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &r, `DELETE FROM users WHERE id = $1 AND account_id = $2 RETURNING `+userColumns,
			userID, accountID); err != nil {
			return err
		}
		return recordTx(ctx, tx, accountID, by, time.Now().UTC(), audit.UserRemoved, r.Email+" ("+r.Role+")")
	})
	return r.user(), translatePeople("delete user", err)
}

// SetPendingSecondFactor keeps the sealed secret of the authenticator being set up.
func (s *PeopleStore) SetPendingSecondFactor(ctx context.Context, userID uuid.UUID, sealed []byte) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE users SET totp_pending = $2 WHERE id = $1`, userID, sealed)
	return translatePeople("set pending second factor", rowsAffected(res, err))
}

// SecondFactor returns the user's sealed authenticator secrets.
func (s *PeopleStore) SecondFactor(ctx context.Context, userID uuid.UUID) (people.SecondFactorSecrets, error) {
	var r struct {
		Sealed   []byte `db:"totp_secret"`
		Pending  []byte `db:"totp_pending"`
		LastStep int64  `db:"totp_last_step"`
	}
	if err := s.DB.GetContext(ctx, &r, `SELECT totp_secret, totp_pending, totp_last_step FROM users WHERE id = $1`, userID); err != nil {
		return people.SecondFactorSecrets{}, translatePeople("second factor", err)
	}
	return people.SecondFactorSecrets{Sealed: r.Sealed, Pending: r.Pending, LastStep: r.LastStep}, nil
}

// EnableSecondFactor makes the pending secret the user's second factor and records it, in one
// statement.
func (s *PeopleStore) EnableSecondFactor(ctx context.Context, u people.User, step int64, at time.Time, address string) error {
	args := append([]any{u.ID, at, step}, actorArgs(u.Actor(address), at, audit.SecondFactorOn)...)
	res, err := s.DB.ExecContext(ctx, `
		WITH changed AS (
			UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_since = $2, totp_last_step = $3
			WHERE id = $1 AND totp_pending IS NOT NULL
			RETURNING account_id, email AS target
		)`+auditInsert(4), args...)
	return translatePeople("enable second factor", rowsAffected(res, err))
}

// DisableSecondFactor removes the account's user's second factor and their challenges, and
// records it, in one transaction.
func (s *PeopleStore) DisableSecondFactor(ctx context.Context, accountID, userID uuid.UUID, by audit.Actor) (people.User, error) {
	var r userRow
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &r, `UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_since = NULL
			WHERE id = $1 AND account_id = $2 AND totp_secret IS NOT NULL RETURNING `+userColumns, userID, accountID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sign_in_challenges WHERE user_id = $1`, userID); err != nil {
			return err
		}
		return recordTx(ctx, tx, accountID, by, time.Now().UTC(), audit.SecondFactorOff, r.Email)
	})
	return r.user(), translatePeople("disable second factor", err)
}

// CreateChallenge stores a sign-in waiting for its code and drops the user's expired ones.
func (s *PeopleStore) CreateChallenge(ctx context.Context, c people.Challenge) error {
	return translatePeople("create challenge", inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sign_in_challenges WHERE user_id = $1 AND expires_at <= $2`,
			c.UserID, c.CreatedAt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sign_in_challenges (hash, user_id, created_at, expires_at, address)
			VALUES ($1, $2, $3, $4, $5)`, c.Hash, c.UserID, c.CreatedAt, c.ExpiresAt, c.Address)
		return err
	}))
}

// Challenge returns the challenge with this hash and its user.
func (s *PeopleStore) Challenge(ctx context.Context, hash []byte) (people.Challenge, people.User, error) {
	var c struct {
		Hash      []byte    `db:"hash"`
		UserID    uuid.UUID `db:"user_id"`
		CreatedAt time.Time `db:"created_at"`
		ExpiresAt time.Time `db:"expires_at"`
		Attempts  int       `db:"attempts"`
		Address   string    `db:"address"`
	}
	if err := s.DB.GetContext(ctx, &c, `SELECT hash, user_id, created_at, expires_at, attempts, address
		FROM sign_in_challenges WHERE hash = $1`, hash); err != nil {
		return people.Challenge{}, people.User{}, translatePeople("challenge", err)
	}
	u, err := s.User(ctx, c.UserID)
	if err != nil {
		return people.Challenge{}, people.User{}, err
	}
	return people.Challenge{Hash: c.Hash, UserID: c.UserID, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt,
		Attempts: c.Attempts, Address: c.Address}, u, nil
}

// FailChallenge counts a wrong code and records the failed sign-in, in one transaction.
func (s *PeopleStore) FailChallenge(ctx context.Context, hash []byte, u people.User, address string, at time.Time) error {
	return translatePeople("fail challenge", inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE sign_in_challenges SET attempts = attempts + 1 WHERE hash = $1`, hash); err != nil {
			return err
		}
		return recordTx(ctx, tx, u.AccountID, u.Actor(address), at, audit.SignInFailed, u.Email+" (authenticator code)")
	}))
}

// CompleteChallenge deletes the challenge, notes the code's step and creates the session, in one
// transaction: of two requests with one challenge or one code, one signs in.
func (s *PeopleStore) CompleteChallenge(ctx context.Context, hash []byte, step int64, sess people.Session, u people.User) error {
	err := inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sign_in_challenges WHERE hash = $1 AND user_id = $2`, hash, u.ID)
		if err := rowsAffected(res, err); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2`, u.ID, step)
		if err := rowsAffected(res, err); errors.Is(err, sql.ErrNoRows) {
			return people.ErrInvalidCode
		} else if err != nil {
			return err
		}
		return createSession(ctx, tx, sess, u)
	})
	if errors.Is(err, people.ErrInvalidCode) {
		return err
	}
	return translatePeople("complete challenge", err)
}

// rowsAffected turns an update or delete that matched no row into sql.ErrNoRows, which the
// stores' translate reports as not found.
func rowsAffected(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return sql.ErrNoRows
	}
	return nil
}
