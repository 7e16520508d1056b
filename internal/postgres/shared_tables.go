package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/upload"
)

// What both job stores share (JobStore for reconciliation jobs, ParseJobStore for parsing jobs):
// the idempotency_keys, job_quota, uploads and upload_chunks tables, and text made storable.

// chunkSize is the size of the pieces an uploaded file is stored in. A piece is held in memory
// while it is read and again in the driver's message buffer while it is sent; 256 KiB keeps 100
// concurrent uploads near 100 MiB. (With lib/pq, which hex-encoded bytea, 1 MiB pieces held
// about 400 MiB.)
const chunkSize = 256 << 10

// claimKey is reconjob.Store's ClaimKey. The insert either takes the key, or (on conflict) takes it
// over when the existing record expired or was abandoned pending; otherwise the existing record
// is read. A record deleted between the two statements is claimed on the next round.
func claimKey(ctx context.Context, db *sqlx.DB, k idempotency.Key, now time.Time) (idempotency.Record, bool, error) {
	for range 3 {
		var claimed bool
		err := db.QueryRowContext(ctx, `
INSERT INTO idempotency_keys (account_id, scope, key, request_hash, state, created_at)
VALUES ($1, $2, $3, $4, 'pending', $5)
ON CONFLICT (account_id, scope, key) DO UPDATE
   SET request_hash = EXCLUDED.request_hash, state = 'pending', resource_id = NULL, created_at = EXCLUDED.created_at
 WHERE idempotency_keys.created_at <= $6
    OR (idempotency_keys.state = 'pending' AND idempotency_keys.created_at <= $7)
RETURNING true`, k.AccountID, k.Scope, k.Key, k.Hash, now, now.Add(-idempotency.KeyTTL), now.Add(-idempotency.PendingTTL)).Scan(&claimed)
		if err == nil {
			return idempotency.Record{}, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return idempotency.Record{}, false, err
		}
		var (
			rec   idempotency.Record
			state string
			id    uuid.NullUUID
		)
		err = db.QueryRowContext(ctx, `
SELECT request_hash, state, resource_id, created_at FROM idempotency_keys
 WHERE account_id = $1 AND scope = $2 AND key = $3`, k.AccountID, k.Scope, k.Key).Scan(&rec.Hash, &state, &id, &rec.CreatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return idempotency.Record{}, false, err
		}
		rec.Done, rec.ResourceID = state == "done", id.UUID
		return rec, false, nil
	}
	return idempotency.Record{}, false, errors.New("idempotency key changed hands repeatedly")
}

// releaseKey is reconjob.Store's ReleaseKey: it deletes the key while its own request holds it
// pending.
func releaseKey(ctx context.Context, db *sqlx.DB, k idempotency.Key) error {
	_, err := db.ExecContext(ctx, `
DELETE FROM idempotency_keys WHERE account_id = $1 AND scope = $2 AND key = $3 AND state = 'pending' AND request_hash = $4`,
		k.AccountID, k.Scope, k.Key, k.Hash)
	return err
}

// quotaUsed is reconjob.Store's QuotaUsed: the jobs counted in the account's scope and period.
func quotaUsed(ctx context.Context, db *sqlx.DB, accountID uuid.UUID, scope string, period time.Time) (int, error) {
	var used int
	err := db.QueryRowContext(ctx, `SELECT coalesce(sum(used), 0) FROM job_quota WHERE account_id = $1 AND scope = $2 AND period = $3`,
		accountID, scope, period).Scan(&used)
	return used, err
}

// chargeAndRecordKey ends the transaction that creates a job: it charges the quota (see charge)
// and records the idempotency key (see recordKey).
func chargeAndRecordKey(ctx context.Context, tx *sqlx.Tx, accountID uuid.UUID, q quota.Charge, k idempotency.Key) error {
	if _, err := charge(ctx, tx, accountID, q); err != nil {
		return err
	}
	return recordKey(ctx, tx, k)
}

// charge counts one more job in the account's quota period and returns the new count; a
// *quota.Error when the count has reached q.Limit already. The quota is charged at the end of
// the transaction that creates a job: its row lock serialises an account's concurrent creates,
// so it is held only for the end of the transaction, not while the files are written.
func charge(ctx context.Context, tx *sqlx.Tx, accountID uuid.UUID, q quota.Charge) (int, error) {
	var used int
	err := tx.QueryRowContext(ctx, `
INSERT INTO job_quota (account_id, scope, period, used) VALUES ($1, $2, $3, 1)
ON CONFLICT (account_id, scope, period) DO UPDATE SET used = job_quota.used + 1 WHERE job_quota.used < $4
RETURNING used`, accountID, q.Scope, q.Period, q.Limit).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && used > q.Limit) {
		return 0, &quota.Error{Limit: q.Limit, ResetAt: q.ResetAt}
	}
	if err != nil {
		return 0, fmt.Errorf("charge quota: %w", err)
	}
	return used, nil
}

// recordKey marks the idempotency key done with k.ResourceID, in the transaction that creates
// the resource (idempotency.ErrConflict when the request no longer holds it pending); nothing
// when k.Key is empty.
func recordKey(ctx context.Context, tx *sqlx.Tx, k idempotency.Key) error {
	if k.Key == "" {
		return nil
	}
	res, err := tx.ExecContext(ctx, `
UPDATE idempotency_keys SET state = 'done', resource_id = $5
 WHERE account_id = $1 AND scope = $2 AND key = $3 AND request_hash = $4 AND state = 'pending'`,
		k.AccountID, k.Scope, k.Key, k.Hash, k.ResourceID)
	if err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// Another request took the key over (this one was pending past PendingTTL).
		return idempotency.ErrConflict
	}
	return nil
}

// Sealer encrypts what must not be stored in the clear: the decrypted content of a protected
// file (upload.File.Sealed). secretbox.Box is one.
type Sealer interface {
	Seal(plain []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

// storeFile writes an uploaded file in chunks, each sealed when the file is, and returns its id.
func storeFile(ctx context.Context, tx *sqlx.Tx, accountID uuid.UUID, f upload.File, sealer Sealer, now time.Time) (uuid.UUID, error) {
	if f.Sealed && sealer == nil {
		return uuid.Nil, errors.New("a protected file must be stored sealed, and the store has no Sealer")
	}
	id := uuid.New()
	if _, err := tx.ExecContext(ctx, `INSERT INTO uploads (id, account_id, file_name, size, sha256, sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		id, accountID, cleanText(f.Name), f.Size, f.SHA256[:], f.Sealed, now); err != nil {
		return uuid.Nil, err
	}
	r, err := f.Open()
	if err != nil {
		return uuid.Nil, err
	}
	defer r.Close()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_chunks (upload_id, seq, data) VALUES ($1, $2, $3)`)
	if err != nil {
		return uuid.Nil, err
	}
	defer stmt.Close()
	buf := make([]byte, chunkSize)
	h := sha256.New()
	var size int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			h.Write(buf[:n])
			size += int64(n)
			chunk := buf[:n]
			if f.Sealed {
				sealed, serr := sealer.Seal(chunk)
				if serr != nil {
					return uuid.Nil, serr
				}
				chunk = sealed
			}
			if _, err := stmt.ExecContext(ctx, id, seq, chunk); err != nil {
				return uuid.Nil, err
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return uuid.Nil, err
		}
	}
	// The spooled file is what was checked and hashed; make sure it is also what is stored.
	if size != f.Size || !bytes.Equal(h.Sum(nil), f.SHA256[:]) {
		return uuid.Nil, errors.New("uploaded file changed while it was stored")
	}
	return id, nil
}

// readUpload returns the content of a stored file, opening its chunks with sealer when it was
// stored sealed. lookup selects the upload's id, size and sealed flag (u.id, u.size, u.sealed)
// from its args; when it finds no row the error is sql.ErrNoRows, for the caller to translate
// into its own not-found error.
func readUpload(ctx context.Context, db *sqlx.DB, sealer Sealer, lookup string, args ...any) ([]byte, error) {
	var size int64
	var upload uuid.UUID
	var sealed bool
	if err := db.QueryRowContext(ctx, lookup, args...).Scan(&upload, &size, &sealed); err != nil {
		return nil, err
	}
	if sealed && sealer == nil {
		return nil, fmt.Errorf("upload %s is sealed, and the store has no Sealer", upload)
	}
	rows, err := db.QueryContext(ctx, `SELECT data FROM upload_chunks WHERE upload_id = $1 ORDER BY seq`, upload)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	data := make([]byte, 0, size)
	for rows.Next() {
		var chunk sql.RawBytes
		if err := rows.Scan(&chunk); err != nil {
			return nil, err
		}
		if sealed {
			plain, err := sealer.Open(chunk)
			if err != nil {
				return nil, fmt.Errorf("upload %s: %w", upload, err)
			}
			chunk = plain
		}
		data = append(data, chunk...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("upload %s: read %d bytes, stored size is %d", upload, len(data), size)
	}
	return data, nil
}

// cleanText makes s storable in a PostgreSQL text (or jsonb) value, which can hold neither NUL
// characters nor invalid UTF-8: each invalid byte sequence and each NUL becomes U+FFFD. Valid
// text, by far the common case, is returned as it is without allocating.
func cleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// jobsPerDay counts the account's jobs in table created on each UTC day from from (a day's
// start) until to, with extra ("AND env = $4") narrowing them: one count a day, zeros included.
func jobsPerDay(ctx context.Context, db *sqlx.DB, table, extra string, accountID uuid.UUID, from, to time.Time, args ...any) ([]int, error) {
	days := int(to.Sub(from).Hours()/24 + 0.5)
	if days <= 0 {
		return nil, nil
	}
	var rows []struct {
		Day int `db:"day"`
		N   int `db:"n"`
	}
	err := db.SelectContext(ctx, &rows, `
SELECT floor(extract(epoch FROM created_at - $2) / 86400)::int AS day, count(*) AS n
  FROM `+table+` WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 `+extra+`
 GROUP BY 1`, append([]any{accountID, from, to}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("count %s per day: %w", table, err)
	}
	out := make([]int, days)
	for _, r := range rows {
		if r.Day >= 0 && r.Day < days {
			out[r.Day] = r.N
		}
	}
	return out, nil
}
