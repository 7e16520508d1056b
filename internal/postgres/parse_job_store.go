package postgres

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

// ParseJobStore keeps parsing jobs (the Parsing API), their files and transactions, and queues
// their work on Queue in the transaction that creates them. Idempotency keys, quota counts and
// uploads are kept as for reconciliation jobs (see JobStore), in the same tables.
//
// Text is stored as PostgreSQL text, which holds neither NUL characters nor invalid UTF-8: both
// become U+FFFD (see cleanText). Optional text that is empty is stored as NULL and read back as
// "". Money is numeric, written with the scale it has (1250.50 stays 1250.50, never 1250.5).
type ParseJobStore struct {
	DB    *sqlx.DB
	Queue Enqueuer
	// Sealer seals the files that must not be stored in the clear (upload.File.Sealed).
	Sealer Sealer
}

var _ parsejob.Store = (*ParseJobStore)(nil)

// NewParseJobStore returns the parsing job store of db, queueing on q.
func NewParseJobStore(db *sqlx.DB, q Enqueuer) *ParseJobStore {
	return &ParseJobStore{DB: db, Queue: q}
}

// ClaimKey implements parsejob.Store; see claimKey.
func (s *ParseJobStore) ClaimKey(ctx context.Context, k idempotency.Key, now time.Time) (idempotency.Record, bool, error) {
	return claimKey(ctx, s.DB, k, now)
}

// ReleaseKey implements parsejob.Store; see releaseKey.
func (s *ParseJobStore) ReleaseKey(ctx context.Context, k idempotency.Key) error {
	return releaseKey(ctx, s.DB, k)
}

// QuotaUsed implements parsejob.Store; see quotaUsed.
func (s *ParseJobStore) QuotaUsed(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) (int, error) {
	return quotaUsed(ctx, s.DB, accountID, scope, period)
}

// Create implements parsejob.Store: file, job row, queued work, quota charge, webhook events
// (job.created, and usage.threshold when the charge reached one) and idempotency record in one
// transaction. A job refused by the quota rolls everything back.
func (s *ParseJobStore) Create(ctx context.Context, j parsejob.Job, f upload.File, q quota.Charge, k idempotency.Key) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		upload, err := storeFile(ctx, tx, j.AccountID, f, s.Sealer, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("store file: %w", err)
		}
		queued, err := s.Queue.EnqueueParse(ctx, tx.Tx, j.ID)
		if err != nil {
			return fmt.Errorf("queue parse job: %w", err)
		}
		_, err = tx.ExecContext(ctx, `
INSERT INTO parse_jobs (id, account_id, status, upload_id, file_name, format, request_id, queue_job_id, created_at)
VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8)`,
			j.ID, j.AccountID, upload, cleanText(j.FileName), string(j.Format), cleanText(j.RequestID), queued, j.CreatedAt)
		if err != nil {
			return fmt.Errorf("insert parse job: %w", err)
		}
		used, err := charge(ctx, tx, j.AccountID, q)
		if err != nil {
			return err
		}
		if err := emitUsageThresholds(ctx, tx, s.Queue, j.AccountID, q, used, j.CreatedAt); err != nil {
			return err
		}
		if err := announce(ctx, tx, s.Queue, j); err != nil {
			return err
		}
		return recordKey(ctx, tx, k)
	})
}

// announce writes the webhook event that announces j (parsejob.Announcement), if any, in tx.
func announce(ctx context.Context, tx *sqlx.Tx, q Enqueuer, j parsejob.Job) error {
	ev, ok := parsejob.Announcement(j)
	if !ok {
		return nil
	}
	return emit(ctx, tx, q, ev)
}

// parseJobColumns are the columns parseJobRow reads. Numbers are read as text, as database/sql
// reads them: pgx reading them itself (Results' batch) would decode them in binary, where a zero
// loses its scale (0.00 would read as 0).
const parseJobColumns = `id, account_id, status, file_name, format, bank_name, account, currency, period_start, period_end,
       opening_balance::text AS opening_balance, closing_balance::text AS closing_balance, transactions_count,
       review_reasons, error_code, error_message, request_id,
       created_at, completed_at, deleted_at, files_deleted_at, results_deleted_at`

type parseJobRow struct {
	ID                uuid.UUID           `db:"id"`
	AccountID         uuid.UUID           `db:"account_id"`
	Status            sql.Null[string]    `db:"status"`
	FileName          sql.Null[string]    `db:"file_name"`
	Format            sql.Null[string]    `db:"format"`
	BankName          sql.NullString      `db:"bank_name"`
	Account           sql.NullString      `db:"account"`
	Currency          sql.NullString      `db:"currency"`
	PeriodStart       sql.NullTime        `db:"period_start"`
	PeriodEnd         sql.NullTime        `db:"period_end"`
	OpeningBalance    decimal.NullDecimal `db:"opening_balance"`
	ClosingBalance    decimal.NullDecimal `db:"closing_balance"`
	TransactionsCount sql.Null[int]       `db:"transactions_count"`
	ReviewReasons     []byte              `db:"review_reasons"`
	ErrorCode         sql.NullString      `db:"error_code"`
	ErrorMessage      sql.NullString      `db:"error_message"`
	RequestID         sql.Null[string]    `db:"request_id"`
	CreatedAt         sql.Null[time.Time] `db:"created_at"`
	CompletedAt       sql.NullTime        `db:"completed_at"`
	DeletedAt         sql.NullTime        `db:"deleted_at"`
	FilesGone         sql.NullTime        `db:"files_deleted_at"`
	ResultsGone       sql.NullTime        `db:"results_deleted_at"`
}

func (r parseJobRow) job() (parsejob.Job, error) {
	j := parsejob.Job{ID: r.ID, AccountID: r.AccountID, Status: parsejob.Status(r.Status.V), FileName: r.FileName.V,
		Format: statement.Format(r.Format.V), BankName: r.BankName.String, Account: r.Account.String, Currency: r.Currency.String,
		PeriodStart: dateOf(r.PeriodStart), PeriodEnd: dateOf(r.PeriodEnd),
		OpeningBalance: decimalOf(r.OpeningBalance), ClosingBalance: decimalOf(r.ClosingBalance),
		TransactionsCount: r.TransactionsCount.V, CreatedAt: r.CreatedAt.V.UTC(), RequestID: r.RequestID.V}
	if err := json.Unmarshal(r.ReviewReasons, &j.ReviewReasons); err != nil {
		return parsejob.Job{}, fmt.Errorf("parse job %s: review reasons: %w", r.ID, err)
	}
	if len(j.ReviewReasons) == 0 {
		j.ReviewReasons = nil
	}
	if r.ErrorCode.Valid {
		j.Error = &parsejob.Failure{Code: parsejob.ErrorCode(r.ErrorCode.String), Message: r.ErrorMessage.String}
	}
	if r.CompletedAt.Valid {
		t := r.CompletedAt.Time.UTC()
		j.CompletedAt = &t
	}
	j.DeletedAt, j.FilesDeletedAt, j.ResultsDeletedAt = whenSet(r.DeletedAt), whenSet(r.FilesGone), whenSet(r.ResultsGone)
	return j, nil
}

// Delete implements parsejob.Store: under the job row's lock, the transactions, the file (its
// chunks with it), the events that announced the job (their bodies name its file and bank, and
// their deliveries and attempts go with them) and the statement's details go in one
// transaction, and the row becomes a tombstone.
func (s *ParseJobStore) Delete(ctx context.Context, accountID, id uuid.UUID, now time.Time) error {
	return inTx(ctx, s.DB, func(tx *sqlx.Tx) error {
		var r struct {
			Status  string        `db:"status"`
			Deleted bool          `db:"deleted"`
			Upload  uuid.NullUUID `db:"upload_id"`
		}
		err := tx.GetContext(ctx, &r, `
SELECT status, deleted_at IS NOT NULL AS deleted, upload_id FROM parse_jobs WHERE id = $1 AND account_id = $2 FOR UPDATE`, id, accountID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return parsejob.ErrNotFound
		case err != nil:
			return fmt.Errorf("lock job: %w", err)
		case r.Deleted:
			return nil
		case !parsejob.Status(r.Status).Finished():
			return parsejob.ErrNotReady
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM parse_transactions WHERE job_id = $1`, id); err != nil {
			return fmt.Errorf("delete transactions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `
DELETE FROM webhook_events
 WHERE account_id = $1 AND type LIKE 'job.%' AND convert_from(body, 'UTF8')::jsonb -> 'data' ->> 'job_id' = $2`,
			accountID, id.String()); err != nil {
			return fmt.Errorf("delete the job's events: %w", err)
		}
		// A failure's message may quote the file; its code stays.
		if _, err := tx.ExecContext(ctx, `
UPDATE parse_jobs SET upload_id = NULL, file_name = '', bank_name = NULL, account = NULL, currency = NULL,
       period_start = NULL, period_end = NULL, opening_balance = NULL, closing_balance = NULL, review_reasons = '[]',
       error_message = CASE WHEN error_message IS NULL THEN NULL ELSE '' END, deleted_at = $2
 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("mark job deleted: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE id = $1`, r.Upload); err != nil {
			return fmt.Errorf("delete file: %w", err)
		}
		return nil
	})
}

// parseJobGetQuery reads a job by id and account ($1, $2); parseJobGetCounted also counts a
// deferred request (countedQuery), built once.
const parseJobGetQuery = `SELECT ` + parseJobColumns + ` FROM parse_jobs WHERE id = $1 AND account_id = $2`

var parseJobGetCounted = countedQuery(parseJobGetQuery, 2)

// Get implements parsejob.Store. A request whose rate-limit count is deferred
// (ratelimit.Pending) is counted in the same statement.
func (s *ParseJobStore) Get(ctx context.Context, accountID, id uuid.UUID) (parsejob.Job, error) {
	if d := ratelimit.Pending(ctx, accountID); d != nil {
		var r struct {
			countedRow
			parseJobRow
		}
		found, err := r.record(d, s.DB.GetContext(ctx, &r, parseJobGetCounted, countedArgs(d, id, accountID)...))
		switch {
		case err != nil:
			return parsejob.Job{}, fmt.Errorf("get parse job: %w", err)
		case !found:
			return parsejob.Job{}, parsejob.ErrNotFound
		}
		return r.job()
	}
	var r parseJobRow
	err := s.DB.GetContext(ctx, &r, parseJobGetQuery, id, accountID)
	if errors.Is(err, sql.ErrNoRows) {
		return parsejob.Job{}, parsejob.ErrNotFound
	}
	if err != nil {
		return parsejob.Job{}, fmt.Errorf("get parse job: %w", err)
	}
	return r.job()
}

// List implements parsejob.Store: keyset pagination, newest first, on (created_at, id), which
// the indexes parse_jobs_account_created and parse_jobs_account_status_created serve. A limit
// of 0 or less lists nothing.
func (s *ParseJobStore) List(ctx context.Context, accountID uuid.UUID, q parsejob.ListQuery) ([]parsejob.Job, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	args := []any{accountID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + parseJobColumns + ` FROM parse_jobs WHERE account_id = $1 AND deleted_at IS NULL`)
	if q.Status != nil {
		b.WriteString(` AND status = ` + arg(string(*q.Status)))
	}
	if q.CreatedAfter != nil {
		b.WriteString(` AND created_at >= ` + arg(*q.CreatedAfter))
	}
	if q.CreatedBefore != nil {
		b.WriteString(` AND created_at < ` + arg(*q.CreatedBefore))
	}
	if q.FileName != "" {
		b.WriteString(` AND strpos(lower(file_name), lower(` + arg(q.FileName) + `)) > 0`)
	}
	if q.After != nil {
		b.WriteString(` AND (created_at, id) < (` + arg(q.After.CreatedAt) + `, ` + arg(q.After.ID) + `)`)
	}
	b.WriteString(` ORDER BY created_at DESC, id DESC LIMIT ` + arg(q.Limit))

	var rows []parseJobRow
	if err := s.DB.SelectContext(ctx, &rows, b.String(), args...); err != nil {
		return nil, fmt.Errorf("list parse jobs: %w", err)
	}
	jobs := make([]parsejob.Job, len(rows))
	for i, r := range rows {
		j, err := r.job()
		if err != nil {
			return nil, fmt.Errorf("list parse jobs: %w", err)
		}
		jobs[i] = j
	}
	return jobs, nil
}

type parseTransactionRow struct {
	ID                  uuid.UUID           `db:"id"`
	Seq                 int                 `db:"seq"`
	BookingDate         time.Time           `db:"booking_date"`
	ValueDate           sql.NullTime        `db:"value_date"`
	Amount              decimal.Decimal     `db:"amount"`
	Currency            sql.NullString      `db:"currency"`
	Description         string              `db:"description"`
	Reference           sql.NullString      `db:"reference"`
	CounterpartyName    sql.NullString      `db:"counterparty_name"`
	CounterpartyAccount sql.NullString      `db:"counterparty_account"`
	Balance             decimal.NullDecimal `db:"balance"`
	Type                string              `db:"type"`
	Raw                 string              `db:"raw"`
	PosLine             sql.NullInt32       `db:"pos_line"`
	PosRecord           sql.NullInt32       `db:"pos_record"`
	PosPage             sql.NullInt32       `db:"pos_page"`
	PosSheet            sql.NullString      `db:"pos_sheet"`
	PosPath             sql.NullString      `db:"pos_path"`
	BoxLeft             sql.NullFloat64     `db:"box_left"`
	BoxTop              sql.NullFloat64     `db:"box_top"`
	BoxRight            sql.NullFloat64     `db:"box_right"`
	BoxBottom           sql.NullFloat64     `db:"box_bottom"`
	BoxCorners          pq.Float64Array     `db:"box_corners"`
}

// parseTransactionsPage reads the transactions of job $1 with $2 < seq <= $2 + $3, in order.
// Complete numbers a job's transactions 0, 1, 2, ... without gaps, so the page is a bounded range
// of the primary key rather than "after, with a LIMIT". That matters: until the table is
// analysed after a large job was stored, the planner takes "job_id = $1 AND seq > $2" for a few
// rows and reads and sorts every remaining row of the job for each page (40 ms a page at
// 150,000 rows left, 155 ms at 1,000,000), where the range is an index scan (0.5 ms).
// Numbers and arrays are read as text, as for parseJobColumns.
const parseTransactionsPage = `
SELECT id, seq, booking_date, value_date, amount::text AS amount, currency, description, reference, counterparty_name,
       counterparty_account, balance::text AS balance, type, raw, pos_line, pos_record, pos_page, pos_sheet, pos_path,
       box_left, box_top, box_right, box_bottom, box_corners::text AS box_corners
  FROM parse_transactions WHERE job_id = $1 AND seq > $2 AND seq <= $2 + $3`

// parseTransactionsPageOf is parseTransactionsPage read only when job $1 is account $4's.
const parseTransactionsPageOf = parseTransactionsPage + `
   AND EXISTS (SELECT FROM parse_jobs WHERE id = $1 AND account_id = $4) ORDER BY seq`

// Transactions implements parsejob.Store. A limit of 0 or less reads nothing.
func (s *ParseJobStore) Transactions(ctx context.Context, jobID uuid.UUID, after, limit int) ([]parsejob.Transaction, error) {
	if limit <= 0 {
		return nil, nil
	}
	var rows []parseTransactionRow
	if err := s.DB.SelectContext(ctx, &rows, parseTransactionsPage+` ORDER BY seq`, jobID, after, limit); err != nil {
		return nil, fmt.Errorf("read parse transactions: %w", err)
	}
	return transactionsOf(rows), nil
}

// Results implements parsejob.Store. The job's read (which counts a deferred request, as Get's
// does) and the page's go to PostgreSQL together, as one pgx batch: one round trip where a read
// of the job and then of its page took two. The batch runs as one implicit transaction, so a
// page that fails to read takes the request's count back with it: the request is answered with
// an error and counts for nothing.
func (s *ParseJobStore) Results(ctx context.Context, accountID, id uuid.UUID, after, limit int) (parsejob.Job, []parsejob.Transaction, error) {
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return parsejob.Job{}, nil, fmt.Errorf("read parse job results: %w", err)
	}
	defer conn.Close()
	var (
		job   parsejob.Job
		txs   []parsejob.Transaction
		found bool
	)
	err = conn.Raw(func(driverConn any) error {
		pc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the database driver is %T, not pgx's", driverConn)
		}
		d := ratelimit.Pending(ctx, accountID)
		b := &pgx.Batch{}
		if d != nil {
			b.Queue(parseJobGetCounted, countedArgs(d, id, accountID)...)
		} else {
			b.Queue(parseJobGetQuery, id, accountID)
		}
		b.Queue(parseTransactionsPageOf, id, after, max(limit, 0), accountID)
		br := pc.Conn().SendBatch(ctx, b)
		job, found, err = readJobOf(br, d)
		if err == nil && found {
			rows, _ := br.Query() // the error, if any, is the rows'
			var page []parseTransactionRow
			if page, err = pgx.CollectRows(rows, pgx.RowToStructByName[parseTransactionRow]); err == nil {
				txs = transactionsOf(page)
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return err
	})
	switch {
	case err != nil:
		return parsejob.Job{}, nil, fmt.Errorf("read parse job results: %w", err)
	case !found:
		return parsejob.Job{}, nil, parsejob.ErrNotFound
	}
	return job, txs, nil
}

// readJobOf reads the job, the first statement of a Results batch, and records the deferred
// request's count when d is set.
func readJobOf(br pgx.BatchResults, d *ratelimit.Deferred) (parsejob.Job, bool, error) {
	rows, _ := br.Query() // the error, if any, is the rows'
	if d != nil {
		r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[struct {
			countedRow
			parseJobRow
		}])
		found, err := r.record(d, err)
		if err != nil || !found {
			return parsejob.Job{}, false, err
		}
		j, err := r.job()
		return j, err == nil, err
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[parseJobRow])
	if errors.Is(err, pgx.ErrNoRows) {
		return parsejob.Job{}, false, nil
	}
	if err != nil {
		return parsejob.Job{}, false, err
	}
	j, err := r.job()
	return j, err == nil, err
}

// transactionsOf turns stored rows into the job's transactions.
func transactionsOf(rows []parseTransactionRow) []parsejob.Transaction {
	txs := make([]parsejob.Transaction, len(rows))
	for i, r := range rows {
		var box *statement.Box
		if r.BoxLeft.Valid {
			// Kept as real: four figures are what a page drawn on a screen can show.
			round := func(v float64) float64 { return math.Round(v*10000) / 10000 }
			box = &statement.Box{Left: round(r.BoxLeft.Float64), Top: round(r.BoxTop.Float64), Right: round(r.BoxRight.Float64),
				Bottom: round(r.BoxBottom.Float64)}
			if len(r.BoxCorners) == 8 {
				var c [4][2]float64
				for i, v := range r.BoxCorners {
					c[i/2][i%2] = round(v)
				}
				box.Corners = &c
			}
		}
		txs[i] = parsejob.Transaction{ID: r.ID, Seq: r.Seq, Transaction: statement.Transaction{
			Date: statement.DateOf(r.BookingDate), ValueDate: dateOf(r.ValueDate), Amount: r.Amount,
			Currency: r.Currency.String, Description: r.Description, Reference: r.Reference.String,
			CounterpartyName: r.CounterpartyName.String, CounterpartyAccount: r.CounterpartyAccount.String,
			Balance: decimalOf(r.Balance), Type: statement.Type(r.Type), Raw: r.Raw,
			Pos: statement.Position{Line: int(r.PosLine.Int32), Record: int(r.PosRecord.Int32), Page: int(r.PosPage.Int32),
				Sheet: r.PosSheet.String, Path: r.PosPath.String, Box: box},
		}}
	}
	return txs
}

// JobsPerDay implements parsejob.Store.
func (s *ParseJobStore) JobsPerDay(ctx context.Context, accountID uuid.UUID, from, to time.Time) ([]int, error) {
	return jobsPerDay(ctx, s.DB, "parse_jobs", "", accountID, from, to)
}

// ThresholdsReached implements parsejob.Store.
func (s *ParseJobStore) ThresholdsReached(ctx context.Context, accountID uuid.UUID, scope string, period time.Time) ([]parsejob.Threshold, error) {
	var rows []struct {
		Percent   int       `db:"percent"`
		ReachedAt time.Time `db:"reached_at"`
	}
	if err := s.DB.SelectContext(ctx, &rows, `
SELECT percent, reached_at FROM usage_thresholds WHERE account_id = $1 AND scope = $2 AND period = $3 ORDER BY percent`,
		accountID, scope, period); err != nil {
		return nil, fmt.Errorf("read usage thresholds: %w", err)
	}
	out := make([]parsejob.Threshold, len(rows))
	for i, r := range rows {
		out[i] = parsejob.Threshold{Percent: r.Percent, ReachedAt: r.ReachedAt.UTC()}
	}
	return out, nil
}

// TransactionsParsed implements parsejob.Store.
func (s *ParseJobStore) TransactionsParsed(ctx context.Context, accountID uuid.UUID, from, to time.Time) (int64, error) {
	var n int64
	err := s.DB.QueryRowContext(ctx, `
SELECT coalesce(sum(transactions_count), 0) FROM parse_jobs WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`,
		accountID, from, to).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count parsed transactions: %w", err)
	}
	return n, nil
}

// OldestQueued implements parsejob.Store, over every account's jobs.
func (s *ParseJobStore) OldestQueued(ctx context.Context) (time.Time, bool, error) {
	var oldest sql.NullTime
	if err := s.DB.QueryRowContext(ctx, `SELECT min(created_at) FROM parse_jobs WHERE status = 'queued'`).Scan(&oldest); err != nil {
		return time.Time{}, false, fmt.Errorf("find oldest queued parse job: %w", err)
	}
	return oldest.Time.UTC(), oldest.Valid, nil
}

// Claim implements parsejob.Store.
func (s *ParseJobStore) Claim(ctx context.Context, id uuid.UUID, n int) (parsejob.Job, error) {
	var r parseJobRow
	err := takeOver(ctx, s.DB, parseAttempt(id, n), func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &r, `
UPDATE parse_jobs SET attempt = $2, status = 'processing'
 WHERE id = $1 AND status IN ('queued', 'processing') AND attempt < $2
RETURNING `+parseJobColumns, id, n)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return parsejob.Job{}, attempt.ErrStale
	}
	if err != nil {
		return parsejob.Job{}, fmt.Errorf("claim parse job: %w", err)
	}
	return r.job()
}

// parseAttempt is attempt n at parsing job id.
func parseAttempt(id uuid.UUID, n int) attemptTag {
	return attemptTag{kind: parseAttemptKind, job: id, n: n}
}

// ReadFile implements parsejob.Store.
func (s *ParseJobStore) ReadFile(ctx context.Context, id uuid.UUID) ([]byte, error) {
	data, err := readUpload(ctx, s.DB, s.Sealer, `SELECT u.id, u.size, u.sealed FROM parse_jobs j JOIN uploads u ON u.id = j.upload_id WHERE j.id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parsejob.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read parse job file: %w", err)
	}
	return data, nil
}

// parseTransactionsCopy is the COPY that copyTransactions feeds, in PostgreSQL's text format.
const parseTransactionsCopy = `COPY parse_transactions (job_id, seq, id, booking_date, value_date, amount, currency,
description, reference, counterparty_name, counterparty_account, balance, type, raw, pos_line, pos_record, pos_page, pos_sheet,
pos_path, box_left, box_top, box_right, box_bottom, box_corners) FROM STDIN`

// Complete implements parsejob.Store. Under the job row's lock it writes the transactions
// first, then the job's fields (completed by txs.Finish when set), in one transaction. It
// stores transactions_count as txs.Count, the rows it writes, whatever out.TransactionsCount
// says; transactions that are not that many, or one without a booking date, end the COPY and
// store nothing.
func (s *ParseJobStore) Complete(ctx context.Context, id uuid.UUID, n int, out parsejob.Job, txs parsejob.Transactions) error {
	err := s.complete(ctx, id, n, out, txs)
	if err != nil && !errors.Is(err, attempt.ErrStale) {
		return fmt.Errorf("complete parse job %s: %w", id, err)
	}
	return err
}

func (s *ParseJobStore) complete(ctx context.Context, id uuid.UUID, n int, out parsejob.Job, txs parsejob.Transactions) error {
	check := func(out parsejob.Job) error {
		if !out.Status.HasResults() {
			return fmt.Errorf("status %q has no results", out.Status)
		}
		if out.CompletedAt == nil {
			return errors.New("no completion time")
		}
		return nil
	}
	if txs.Finish == nil {
		// Refused before any work when the fields are known.
		if err := check(out); err != nil {
			return err
		}
	}
	return inConnTx(ctx, s.DB, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		// Tagged, so that a newer attempt can end this transaction should this worker freeze in
		// the COPY (see takeOver).
		if err := parseAttempt(id, n).tag(ctx, tx); err != nil {
			return err
		}
		// The attempt's fence, and the row's lock for as long as the COPY takes.
		var accountID uuid.UUID
		var createdAt time.Time
		err := tx.QueryRowContext(ctx, `
SELECT account_id, created_at FROM parse_jobs WHERE id = $1 AND attempt = $2 AND status = 'processing' FOR UPDATE`,
			id, n).Scan(&accountID, &createdAt)
		if errors.Is(err, sql.ErrNoRows) {
			return attempt.ErrStale
		}
		if err != nil {
			return err
		}
		if err := copyTransactions(ctx, conn, id, txs); err != nil {
			return err
		}
		if txs.Finish != nil {
			txs.Finish(&out)
		}
		if err := check(out); err != nil {
			return err
		}
		reasons, err := reviewReasonsJSON(out.ReviewReasons)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `
UPDATE parse_jobs
   SET status = $2, bank_name = $3, account = $4, currency = $5, period_start = $6, period_end = $7,
       opening_balance = $8, closing_balance = $9, transactions_count = $10, review_reasons = $11, completed_at = $12
 WHERE id = $1`,
			id, string(out.Status), nullText(out.BankName), nullText(out.Account), nullText(out.Currency),
			dateValue(out.PeriodStart), dateValue(out.PeriodEnd), decimalValue(out.OpeningBalance), decimalValue(out.ClosingBalance),
			txs.Count, reasons, *out.CompletedAt); err != nil {
			return err
		}
		return announce(ctx, tx, s.Queue, parsejob.Job{ID: id, AccountID: accountID, Status: out.Status,
			BankName: cleanText(out.BankName), TransactionsCount: txs.Count, CreatedAt: createdAt, CompletedAt: out.CompletedAt})
	})
}

// copyTransactions writes the job's transactions with COPY FROM STDIN, inside the transaction
// open on conn, as txs yields them: they are read (from the statement file, for a stream) as
// PostgreSQL takes the rows, written as COPY text a 64 KiB message at a time, so a statement of
// a million lines is never held, nor one giant statement, nor one buffer, and a row costs
// about one allocation (its new id's randomness is read in bulk). (pgx's own CopyFrom encodes
// numeric in binary with several big.Int operations a value: twice as slow.)
func copyTransactions(ctx context.Context, conn *sqlx.Conn, jobID uuid.UUID, txs parsejob.Transactions) error {
	if txs.Count == 0 {
		return nil
	}
	var eachErr error
	next, stop := iter.Pull(func(yield func(*statement.Transaction) bool) { eachErr = txs.Each(yield) })
	defer stop()
	err := conn.Raw(func(driverConn any) error {
		pc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the database driver is %T, not pgx's", driverConn)
		}
		src := &copyText{job: jobID, next: next, eachErr: &eachErr, want: txs.Count}
		tag, err := pc.Conn().PgConn().CopyFrom(ctx, src, parseTransactionsCopy)
		if err == nil && tag.RowsAffected() != int64(txs.Count) {
			err = fmt.Errorf("copied %d of %d rows", tag.RowsAffected(), txs.Count)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("copy transactions: %w", err)
	}
	return nil
}

// copyText is an io.Reader of the COPY text of a job's transactions, made a batch of rows at a
// time from those next yields. A reading that fails, yields other than want transactions, or a
// transaction without a booking date, is a read error: pgx then ends the COPY with CopyFail,
// and nothing of it is stored.
type copyText struct {
	job     uuid.UUID
	next    func() (*statement.Transaction, bool)
	eachErr *error // why the reading ended, once next has said it did
	want    int
	seq     int    // the next transaction's number
	done    bool   // next has said the reading ended
	buf     []byte // written, not yet read from off
	off     int
}

func (c *copyText) Read(p []byte) (int, error) {
	if c.off == len(c.buf) {
		c.buf, c.off = c.buf[:0], 0
		for !c.done && len(c.buf) < 64<<10 {
			t, ok := c.next()
			switch {
			case !ok:
				c.done = true
				if err := *c.eachErr; err != nil {
					return 0, fmt.Errorf("read the transactions: %w", err)
				}
				if c.seq != c.want {
					return 0, fmt.Errorf("read %d transactions, not %d", c.seq, c.want)
				}
			case c.seq == c.want:
				return 0, fmt.Errorf("read more than %d transactions", c.want)
			case t.Date.IsZero():
				return 0, fmt.Errorf("transaction %d has no booking date", c.seq)
			default:
				c.buf = c.appendRow(c.buf, c.seq, t)
				c.seq++
			}
		}
		if len(c.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, c.buf[c.off:])
	c.off += n
	return n, nil
}

// appendRow appends transaction t's row, number seq, in parseTransactionsCopy's column order.
func (c *copyText) appendRow(b []byte, seq int, t *statement.Transaction) []byte {
	b = appendUUID(b, c.job)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(seq), 10)
	b = append(b, '\t')
	b = appendUUID(b, uuid.New())
	b = append(b, '\t')
	b = appendCopyDate(b, t.Date)
	b = append(b, '\t')
	b = appendCopyDate(b, t.ValueDate)
	b = append(b, '\t')
	b = appendDecimal(b, t.Amount)
	b = append(b, '\t')
	b = appendCopyText(b, t.Currency, true)
	b = append(b, '\t')
	b = appendCopyText(b, t.Description, false)
	b = append(b, '\t')
	b = appendCopyText(b, t.Reference, true)
	b = append(b, '\t')
	b = appendCopyText(b, t.CounterpartyName, true)
	b = append(b, '\t')
	b = appendCopyText(b, t.CounterpartyAccount, true)
	b = append(b, '\t')
	if t.Balance == nil {
		b = append(b, copyNull...)
	} else {
		b = appendDecimal(b, *t.Balance)
	}
	b = append(b, '\t')
	b = appendCopyText(b, string(t.Type), false)
	b = append(b, '\t')
	b = appendCopyText(b, t.Raw, false)
	for _, n := range [...]int{t.Pos.Line, t.Pos.Record, t.Pos.Page} {
		b = append(b, '\t')
		if n > 0 {
			b = strconv.AppendInt(b, int64(n), 10)
		} else {
			b = append(b, copyNull...)
		}
	}
	b = append(b, '\t')
	b = appendCopyText(b, t.Pos.Sheet, true)
	b = append(b, '\t')
	b = appendCopyText(b, t.Pos.Path, true)
	if box := t.Pos.Box; box != nil {
		for _, v := range [...]float64{box.Left, box.Top, box.Right, box.Bottom} {
			b = append(b, '\t')
			b = strconv.AppendFloat(b, v, 'f', -1, 32)
		}
	} else {
		for range 4 {
			b = append(b, '\t')
			b = append(b, copyNull...)
		}
	}
	b = append(b, '\t')
	if box := t.Pos.Box; box != nil && box.Corners != nil {
		// An array in COPY text: {x0,y0,x1,y1,...}.
		b = append(b, '{')
		for i, xy := range box.Corners {
			for j, v := range xy {
				if i+j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendFloat(b, v, 'f', -1, 32)
			}
		}
		b = append(b, '}')
	} else {
		b = append(b, copyNull...)
	}
	return append(b, '\n')
}

// copyNull is NULL in COPY text.
const copyNull = `\N`

func appendUUID(b []byte, id uuid.UUID) []byte {
	var text [36]byte
	hex.Encode(text[0:8], id[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], id[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], id[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], id[8:10])
	text[23] = '-'
	hex.Encode(text[24:], id[10:])
	return append(b, text[:]...)
}

// appendCopyDate appends d as YYYY-MM-DD, or NULL for the zero date.
func appendCopyDate(b []byte, d statement.Date) []byte {
	if d.IsZero() {
		return append(b, copyNull...)
	}
	return d.Time().AppendFormat(b, time.DateOnly)
}

// appendDecimal appends d with the decimals it has, as decimalText writes it.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	exp := d.Exponent()
	if !d.Coefficient().IsInt64() || exp > 0 {
		return append(b, decimalText(d)...)
	}
	coef := d.CoefficientInt64()
	if coef < 0 {
		b = append(b, '-')
		coef = -coef
	}
	var digits [20]byte
	text := strconv.AppendUint(digits[:0], uint64(coef), 10)
	scale := int(-exp)
	if len(text) <= scale {
		b = append(b, '0', '.')
		for range scale - len(text) {
			b = append(b, '0')
		}
		return append(b, text...)
	}
	b = append(b, text[:len(text)-scale]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, text[len(text)-scale:]...)
	}
	return b
}

// appendCopyText appends s made storable (cleanText) with COPY text's escapes; an empty s is
// NULL when null is set.
func appendCopyText(b []byte, s string, null bool) []byte {
	if s == "" && null {
		return append(b, copyNull...)
	}
	s = cleanText(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}

// Fail implements parsejob.Store, with the job's announcement (job.failed) in the same
// transaction.
func (s *ParseJobStore) Fail(ctx context.Context, id uuid.UUID, n int, f parsejob.Failure, now time.Time) error {
	err := takeOver(ctx, s.DB, parseAttempt(id, n), func(tx *sqlx.Tx) error {
		var accountID uuid.UUID
		var createdAt time.Time
		err := tx.QueryRowContext(ctx, `
UPDATE parse_jobs SET status = 'failed', error_code = $3, error_message = $4, completed_at = $5, attempt = $2
 WHERE id = $1 AND attempt <= $2 AND status IN ('queued', 'processing')
RETURNING account_id, created_at`, id, n, string(f.Code), cleanText(f.Message), now).Scan(&accountID, &createdAt)
		if errors.Is(err, sql.ErrNoRows) {
			return attempt.ErrStale
		}
		if err != nil {
			return err
		}
		return announce(ctx, tx, s.Queue, parsejob.Job{ID: id, AccountID: accountID, Status: parsejob.StatusFailed,
			CreatedAt: createdAt, CompletedAt: &now})
	})
	if err != nil && !errors.Is(err, attempt.ErrStale) {
		return fmt.Errorf("fail parse job: %w", err)
	}
	return err
}

// reviewReasonsJSON is the review_reasons document of reasons: a JSON array, [] when there are
// none, with each message made storable (jsonb refuses \u0000 as text refuses NUL).
func reviewReasonsJSON(reasons []statement.ReviewReason) (string, error) {
	clean := make([]statement.ReviewReason, len(reasons))
	for i, r := range reasons {
		r.Message = cleanText(r.Message)
		r.Code = statement.ReviewCode(cleanText(string(r.Code)))
		clean[i] = r
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return "", fmt.Errorf("review reasons: %w", err)
	}
	return string(b), nil
}

// nullText is s made storable, or NULL when s is empty.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return cleanText(s)
}

// dateValue is d as a date parameter, or NULL for the zero date.
func dateValue(d statement.Date) any {
	if d.IsZero() {
		return nil
	}
	return d.String()
}

// dateOf is the date of a date column; the zero date for NULL.
func dateOf(t sql.NullTime) statement.Date {
	if !t.Valid {
		return statement.Date{}
	}
	return statement.DateOf(t.Time)
}

// decimalText writes d with the decimals it has, trailing zeros included (1250.50, not
// 1250.5), whatever decimal.TrimTrailingZeros says: numeric keeps the scale it is given.
func decimalText(d decimal.Decimal) string {
	return d.StringFixed(max(-d.Exponent(), 0))
}

// decimalValue is *d as a numeric parameter, or NULL for nil.
func decimalValue(d *decimal.Decimal) any {
	if d == nil {
		return nil
	}
	return decimalText(*d)
}

// decimalOf is the value of a numeric column, nil for NULL; it keeps the column's scale.
func decimalOf(d decimal.NullDecimal) *decimal.Decimal {
	if !d.Valid {
		return nil
	}
	v := d.Decimal
	return &v
}
