package postgres_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/statement"
)

// parseBundle is a parsing job store over a fresh database, with an insert-only queue and one
// account.
type parseBundle struct {
	db      *sqlx.DB
	store   *postgres.ParseJobStore
	account account.Account
	now     time.Time
}

func setupParseStore(t testing.TB) *parseBundle {
	t.Helper()
	db := pgtest.New(t)
	q, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	return newParseBundle(t, db, q)
}

func newParseBundle(t testing.TB, db *sqlx.DB, q postgres.Enqueuer) *parseBundle {
	t.Helper()
	acc, err := postgres.NewAccountStore(db).CreateAccount(t.Context(), account.Account{Name: "Acme"})
	require.NoError(t, err)
	return &parseBundle{db: db, store: postgres.NewParseJobStore(db, q), account: acc,
		now: time.Date(2024, 3, 15, 10, 30, 0, 123456000, time.UTC)}
}

func (b *parseBundle) otherAccount(t *testing.T) account.Account {
	t.Helper()
	acc, err := postgres.NewAccountStore(b.db).CreateAccount(t.Context(), account.Account{Name: "Other"})
	require.NoError(t, err)
	return acc
}

// newJob is a new queued job of acc created at the given time.
func (b *parseBundle) newJob(acc account.Account, at time.Time) parsejob.Job {
	return parsejob.Job{ID: uuid.New(), AccountID: acc.ID, Status: parsejob.StatusQueued, FileName: "statement.csv",
		Format: statement.FormatCSV, CreatedAt: at, RequestID: "req-" + uuid.NewString()}
}

// charge is the parse quota charge in the bundle's month.
func (b *parseBundle) charge(limit int) quota.Charge {
	start, reset := quota.Period(b.now)
	return quota.Charge{Scope: parsejob.QuotaScope, Period: start, Limit: limit, ResetAt: reset,
		Announce: parsejob.UsageThresholds}
}

// createAt stores a small job of acc created at the given time and returns it.
func (b *parseBundle) createAt(t testing.TB, acc account.Account, at time.Time) parsejob.Job {
	t.Helper()
	j := b.newJob(acc, at)
	require.NoError(t, b.store.Create(t.Context(), j, fileOf(j.FileName, []byte("Date,Description,Amount\n")),
		b.charge(100_000), idempotency.Key{}))
	return j
}

// create stores a small job of the bundle's account, created now.
func (b *parseBundle) create(t testing.TB) parsejob.Job {
	t.Helper()
	return b.createAt(t, b.account, b.now)
}

func (b *parseBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.GetContext(t.Context(), &n, query, args...))
	return n
}

// finish claims the job as attempt 1 and completes it with n transactions, or fails it when
// status is failed.
func (b *parseBundle) finish(t testing.TB, id uuid.UUID, status parsejob.Status, n int) {
	t.Helper()
	ctx := t.Context()
	_, err := b.store.Claim(ctx, id, 1)
	require.NoError(t, err)
	done := b.now.Add(time.Minute)
	if status == parsejob.StatusFailed {
		require.NoError(t, b.store.Fail(ctx, id, 1, parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "broken"}, done))
		return
	}
	require.NoError(t, b.store.Complete(ctx, id, 1, parsejob.Job{Status: status, TransactionsCount: n, CompletedAt: &done},
		held(manyTransactions(n))))
}

// manyTransactions is n plain transactions, dated from 1 March 2024 on.
// held returns transactions held in a slice as a job's Transactions.
func held(txs []statement.Transaction) parsejob.Transactions {
	return parsejob.Transactions{Count: len(txs), Each: statement.Held(&statement.Statement{Transactions: txs}).Each}
}

func manyTransactions(n int) []statement.Transaction {
	txs := make([]statement.Transaction, n)
	for i := range txs {
		amount := decimal.New(int64(i%100_000)-50_000, -2)
		balance := decimal.New(int64(i), -2)
		typ := statement.Credit
		if amount.IsNegative() {
			typ = statement.Debit
		}
		txs[i] = statement.Transaction{
			Date:        statement.MustDate(2024, time.March, 1+i%28),
			Amount:      amount,
			Currency:    "EUR",
			Description: fmt.Sprintf("SEPA TRANSFER %d ACME GMBH INVOICE 2024-%06d", i, i),
			Reference:   fmt.Sprintf("INV-%d", i),
			Balance:     &balance,
			Type:        typ,
			Raw:         fmt.Sprintf("2024-03-%02d,SEPA TRANSFER %d ACME GMBH INVOICE 2024-%06d,%s,%s", 1+i%28, i, i, amount, balance),
		}
	}
	return txs
}

// exact shows a decimal with its scale: 1250.50 is 125050e-2, 1250.5 is 12505e-1.
func exact(d decimal.Decimal) string { return fmt.Sprintf("%se%d", d.Coefficient(), d.Exponent()) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func decp(s string) *decimal.Decimal {
	d := dec(s)
	return &d
}

func TestParseJobStoreCreateStoresTheQueuedJobItsFileAndItsWork(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	data := randomBytes(t, 5<<19) // 2.5 MiB: two full chunks and a half one
	j := b.newJob(b.account, b.now)
	j.FileName, j.Format, j.RequestID = "März.pdf", statement.FormatPDF, "req-0123456789"
	require.NoError(t, b.store.Create(ctx, j, fileOf("März.pdf", data), b.charge(50), idempotency.Key{}))

	got, err := b.store.Get(ctx, b.account.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, j, got, "the job comes back as it was created")
	require.Equal(t, j, got.Accepted())

	file, err := b.store.ReadFile(ctx, j.ID)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, file), "the file comes back byte for byte")
	require.Equal(t, 10, b.count(t, `SELECT count(*) FROM upload_chunks c JOIN parse_jobs j ON c.upload_id = j.upload_id WHERE j.id = $1`, j.ID)) // pieces of 256 KiB

	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'parse' AND queue = 'parse'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job r JOIN parse_jobs j ON j.queue_job_id = r.id WHERE j.id = $1 AND r.args->>'job_id' = $2`,
		j.ID, j.ID.String()), "the queued work names the job and the job row names it")
	used, err := b.store.QuotaUsed(ctx, b.account.ID, parsejob.QuotaScope, b.charge(0).Period)
	require.NoError(t, err)
	require.Equal(t, 1, used)

	other := b.otherAccount(t)
	for _, tc := range []struct {
		name    string
		account uuid.UUID
		id      uuid.UUID
	}{
		{"another account does not see it", other.ID, j.ID},
		{"an unknown id is not found", b.account.ID, uuid.New()},
	} {
		_, err := b.store.Get(ctx, tc.account, tc.id)
		require.ErrorIs(t, err, parsejob.ErrNotFound, tc.name)
	}
	_, err = b.store.ReadFile(ctx, uuid.New())
	require.ErrorIs(t, err, parsejob.ErrNotFound)
}

func TestParseJobStoreCreateMarksTheIdempotencyKeyDone(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	k := idempotency.Key{AccountID: b.account.ID, Scope: parsejob.QuotaScope, Key: "k-1", Hash: []byte("request")}
	_, claimed, err := b.store.ClaimKey(ctx, k, b.now)
	require.NoError(t, err)
	require.True(t, claimed)
	j := b.newJob(b.account, b.now)
	k.ResourceID = j.ID
	require.NoError(t, b.store.Create(ctx, j, fileOf("a.csv", []byte("a")), b.charge(50), k))

	rec, claimed, err := b.store.ClaimKey(ctx, k, b.now.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, claimed)
	require.True(t, rec.Done)
	require.Equal(t, j.ID, rec.ResourceID)
	require.NoError(t, b.store.ReleaseKey(ctx, k))
	_, claimed, err = b.store.ClaimKey(ctx, k, b.now.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, claimed, "releasing a done key does nothing")

	t.Run("a request that lost its key to another one creates nothing", func(t *testing.T) {
		lost := idempotency.Key{AccountID: b.account.ID, Scope: parsejob.QuotaScope, Key: "k-2", Hash: []byte("first")}
		_, claimed, err := b.store.ClaimKey(ctx, lost, b.now)
		require.NoError(t, err)
		require.True(t, claimed)
		_, claimed, err = b.store.ClaimKey(ctx, idempotency.Key{AccountID: b.account.ID, Scope: parsejob.QuotaScope, Key: "k-2", Hash: []byte("second")},
			b.now.Add(idempotency.PendingTTL))
		require.NoError(t, err)
		require.True(t, claimed, "the pending key was abandoned long enough to be taken over")
		j := b.newJob(b.account, b.now)
		lost.ResourceID = j.ID
		require.ErrorIs(t, b.store.Create(ctx, j, fileOf("b.csv", []byte("b")), b.charge(50), lost), idempotency.ErrConflict)
		_, err = b.store.Get(ctx, b.account.ID, j.ID)
		require.ErrorIs(t, err, parsejob.ErrNotFound)
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM uploads`), "only the first job's file is stored")
	})
}

func TestParseJobStoreQuotaRefusalLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	charge := b.charge(2)
	for i := range 2 {
		require.NoError(t, b.store.Create(ctx, b.newJob(b.account, b.now), fileOf("a.csv", []byte("a")), charge, idempotency.Key{}), "job %d", i+1)
	}
	k := idempotency.Key{AccountID: b.account.ID, Scope: parsejob.QuotaScope, Key: "k-refused", Hash: []byte("request")}
	_, claimed, err := b.store.ClaimKey(ctx, k, b.now)
	require.NoError(t, err)
	require.True(t, claimed)
	refused := b.newJob(b.account, b.now)
	k.ResourceID = refused.ID

	err = b.store.Create(ctx, refused, fileOf("a.csv", []byte("a")), charge, k)
	var qe *quota.Error
	require.ErrorAs(t, err, &qe)
	require.ErrorIs(t, err, quota.ErrExceeded)
	require.Equal(t, 2, qe.Limit)
	require.True(t, qe.ResetAt.Equal(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)), "resets at %s", qe.ResetAt)

	_, err = b.store.Get(ctx, b.account.ID, refused.ID)
	require.ErrorIs(t, err, parsejob.ErrNotFound, "the refused job is not stored")
	for table, want := range map[string]int{"parse_jobs": 2, "uploads": 2, "upload_chunks": 2, "river_job": 2} {
		require.Equal(t, want, b.count(t, `SELECT count(*) FROM `+table), "%s holds the accepted jobs' rows only", table)
	}
	used, err := b.store.QuotaUsed(ctx, b.account.ID, parsejob.QuotaScope, charge.Period)
	require.NoError(t, err)
	require.Equal(t, 2, used)
	rec, claimed, err := b.store.ClaimKey(ctx, k, b.now)
	require.NoError(t, err)
	require.False(t, claimed)
	require.False(t, rec.Done, "the key is still pending, for the service to release")
}

func TestParseJobStoreListPagesEveryJobOnceNewestFirst(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	other := b.otherAccount(t)
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	statuses := []parsejob.Status{parsejob.StatusQueued, parsejob.StatusCompleted, parsejob.StatusReview, parsejob.StatusFailed}
	var all []parsejob.Job
	for i := range 250 {
		// Two jobs of three share their second; the third is a microsecond later.
		at := base.Add(time.Duration(i/3) * time.Second)
		if i%3 == 2 {
			at = at.Add(time.Microsecond)
		}
		j := b.createAt(t, b.account, at)
		j.Status = statuses[i%len(statuses)]
		if j.Status != parsejob.StatusQueued {
			b.finish(t, j.ID, j.Status, 0)
		}
		all = append(all, j)
		if i%50 == 0 {
			b.createAt(t, other, at) // never listed
		}
	}
	slices.SortFunc(all, func(x, y parsejob.Job) int {
		return cmp.Or(y.CreatedAt.Compare(x.CreatedAt), bytes.Compare(y.ID[:], x.ID[:]))
	})
	ptr := func(v time.Time) *time.Time { return &v }
	completed := parsejob.StatusCompleted

	tests := []struct {
		name  string
		query parsejob.ListQuery
		keep  func(parsejob.Job) bool
	}{
		{"no filter", parsejob.ListQuery{}, func(parsejob.Job) bool { return true }},
		{"one status", parsejob.ListQuery{Status: &completed}, func(j parsejob.Job) bool { return j.Status == completed }},
		{"created after (inclusive) and before (exclusive)",
			parsejob.ListQuery{CreatedAfter: ptr(base.Add(20 * time.Second)), CreatedBefore: ptr(base.Add(60 * time.Second))},
			func(j parsejob.Job) bool {
				return !j.CreatedAt.Before(base.Add(20*time.Second)) && j.CreatedAt.Before(base.Add(60*time.Second))
			}},
		{"a status in a window",
			parsejob.ListQuery{Status: &completed, CreatedAfter: ptr(base.Add(10*time.Second + time.Microsecond)), CreatedBefore: ptr(base.Add(70 * time.Second))},
			func(j parsejob.Job) bool {
				return j.Status == completed && !j.CreatedAt.Before(base.Add(10*time.Second+time.Microsecond)) && j.CreatedAt.Before(base.Add(70*time.Second))
			}},
	}
	for _, tc := range tests {
		var want []uuid.UUID
		for _, j := range all {
			if tc.keep(j) {
				want = append(want, j.ID)
			}
		}
		require.NotEmpty(t, want, tc.name)
		var got []uuid.UUID
		q := tc.query
		q.Limit = 7
		for pages := 0; ; pages++ {
			require.Less(t, pages, 100, "%s: paging ends", tc.name)
			page, err := b.store.List(ctx, b.account.ID, q)
			require.NoError(t, err, tc.name)
			require.LessOrEqual(t, len(page), 7, tc.name)
			for _, j := range page {
				require.Equal(t, b.account.ID, j.AccountID, tc.name)
				got = append(got, j.ID)
			}
			if len(page) < q.Limit {
				break
			}
			last := page[len(page)-1]
			q.After = &parsejob.Mark{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		require.Equal(t, want, got, "%s: every job once, newest first", tc.name)
	}

	page, err := b.store.List(ctx, b.account.ID, parsejob.ListQuery{Limit: 3})
	require.NoError(t, err)
	require.Len(t, page, 3)
	require.Equal(t, all[0].ID, page[0].ID)
	require.Equal(t, all[0].Status, page[0].Status, "listed jobs carry their fields")
	require.True(t, all[0].CreatedAt.Equal(page[0].CreatedAt))
	none, err := b.store.List(ctx, uuid.New(), parsejob.ListQuery{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, none)
}

func TestParseJobStoreOnlyTheLatestAttemptFinishesAJob(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	j := b.create(t)
	done := b.now.Add(time.Minute)
	claim := func(attempt int) func() error {
		return func() error {
			got, err := b.store.Claim(ctx, j.ID, attempt)
			if err == nil {
				require.Equal(t, j.ID, got.ID)
				require.Equal(t, parsejob.StatusProcessing, got.Status)
				require.Equal(t, j.RequestID, got.RequestID)
			}
			return err
		}
	}
	complete := func(attempt int, n int) func() error {
		return func() error {
			return b.store.Complete(ctx, j.ID, attempt, parsejob.Job{Status: parsejob.StatusCompleted, TransactionsCount: n, CompletedAt: &done},
				held(manyTransactions(n)))
		}
	}
	fail := func(attempt int) func() error {
		return func() error {
			return b.store.Fail(ctx, j.ID, attempt, parsejob.Failure{Code: parsejob.CodeInternalError, Message: "late"}, done)
		}
	}
	steps := []struct {
		name       string
		do         func() error
		want       error
		wantStatus parsejob.Status
		wantRows   int
	}{
		{"attempt 1 claims the queued job", claim(1), nil, parsejob.StatusProcessing, 0},
		{"attempt 1 cannot claim it again", claim(1), attempt.ErrStale, parsejob.StatusProcessing, 0},
		{"attempt 2 takes it over", claim(2), nil, parsejob.StatusProcessing, 0},
		{"attempt 1 cannot claim it back", claim(1), attempt.ErrStale, parsejob.StatusProcessing, 0},
		{"attempt 1 can no longer complete it, and writes nothing", complete(1, 5), attempt.ErrStale, parsejob.StatusProcessing, 0},
		{"attempt 1 can no longer fail it", fail(1), attempt.ErrStale, parsejob.StatusProcessing, 0},
		{"attempt 2 completes it", complete(2, 3), nil, parsejob.StatusCompleted, 3},
		{"attempt 2 cannot complete it twice", complete(2, 4), attempt.ErrStale, parsejob.StatusCompleted, 3},
		{"attempt 2 cannot fail it once completed", fail(2), attempt.ErrStale, parsejob.StatusCompleted, 3},
		{"attempt 3 cannot claim a finished job", claim(3), attempt.ErrStale, parsejob.StatusCompleted, 3},
	}
	for _, s := range steps {
		err := s.do()
		if s.want == nil {
			require.NoError(t, err, s.name)
		} else {
			require.ErrorIs(t, err, s.want, s.name)
		}
		got, err := b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, s.wantStatus, got.Status, "after: %s", s.name)
		require.Equal(t, s.wantRows, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, j.ID), "after: %s", s.name)
	}
	got, err := b.store.Get(ctx, b.account.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, 3, got.TransactionsCount)
	require.NotNil(t, got.CompletedAt)
	require.True(t, got.CompletedAt.Equal(done))

	_, err = b.store.Claim(ctx, uuid.New(), 1)
	require.ErrorIs(t, err, attempt.ErrStale, "an unknown job cannot be claimed")
}

func TestParseJobStoreCompleteStoresTheStatementExactly(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	j := b.create(t)
	_, err := b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	done := b.now.Add(90 * time.Second)
	march := func(d int) statement.Date { return statement.MustDate(2024, time.March, d) }

	txs := []statement.Transaction{
		{Date: march(1), ValueDate: march(2), Amount: dec("1250.50"), Currency: "EUR", Description: "SEPA CREDIT ACME GMBH",
			Reference: "INV-2024-001", CounterpartyName: "ACME GmbH", CounterpartyAccount: "DE89370400440532013000",
			Balance: decp("1250.50"), Type: statement.Credit, Raw: "2024-03-01,SEPA CREDIT ACME GMBH,1250.50,1250.50",
			Pos: statement.Position{Line: 2}},
		{Date: march(3), Amount: dec("-0.10"), Currency: "EUR", Description: "FEE", Balance: decp("1250.40"), Type: statement.Debit,
			Raw: "2024-03-03,FEE,-0.10,1250.40"},
		{Date: march(4), Amount: dec("1000"), Currency: "JPY", Description: "ATM 東京", Type: statement.Credit, Raw: "04.03.2024;ATM 東京;1000",
			Pos: statement.Position{Sheet: "Umsätze März", Line: 7}},
		{Date: march(5), Amount: decimal.Zero, Description: "", Type: statement.Debit, Raw: ""},
		{Date: march(6), Amount: decimal.New(15, 1), Description: "a positive exponent", Type: statement.Credit, Raw: "150",
			Pos: statement.Position{Page: 3, Line: 41, Box: &statement.Box{Left: 0.0524, Top: 0.2118, Right: 0.9, Bottom: 0.2231}}},
		{Date: march(6), Amount: dec("-7.25"), Description: "a row askew on a scan", Type: statement.Debit, Raw: "-7.25",
			Pos: statement.Position{Page: 1, Box: &statement.Box{Left: 0.05, Top: 0.3, Right: 0.9, Bottom: 0.33,
				Corners: &[4][2]float64{{0.05, 0.3}, {0.9, 0.315}, {0.9, 0.33}, {0.05, 0.3149}}}}},
		{Date: march(7), Amount: dec("0.005"), Description: "tab\there, line\nbreak, back\\slash", Type: statement.Credit,
			Raw: "\\.\r\nend of copy marker", Pos: statement.Position{Record: 9, Path: "/Document/Stmt[1]/Ntry[7]\t"}},
		{Date: march(8), Amount: dec("-12.34"), Currency: "EU\x00R", Description: "nul\x00byte", Reference: "caf\xe9",
			CounterpartyName: "\xff\xfe", CounterpartyAccount: "\x00", Type: statement.Debit, Raw: "bad\xc3(utf8\x00"},
	}
	out := parsejob.Job{Status: parsejob.StatusReview, BankName: "Deutsche Bank", Account: "DE89370400440532013000", Currency: "EUR",
		PeriodStart: march(1), PeriodEnd: march(31), OpeningBalance: decp("0.00"), ClosingBalance: decp("1250.40"),
		TransactionsCount: len(txs), CompletedAt: &done,
		ReviewReasons: []statement.ReviewReason{
			{Code: statement.ReviewBalanceMismatch, Message: "opening 0.00 + transactions ≠ closing 1250.40"},
			{Code: statement.ReviewUnreadableRows, Message: "row with a nul\x00 and caf\xe9", Line: 12},
		}}
	require.NoError(t, b.store.Complete(ctx, j.ID, 1, out, held(txs)))

	got, err := b.store.Get(ctx, b.account.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.StatusReview, got.Status)
	require.Equal(t, "Deutsche Bank", got.BankName)
	require.Equal(t, "DE89370400440532013000", got.Account)
	require.Equal(t, "EUR", got.Currency)
	require.Equal(t, march(1), got.PeriodStart)
	require.Equal(t, march(31), got.PeriodEnd)
	require.Equal(t, "0e-2", exact(*got.OpeningBalance), "0.00 keeps its scale")
	require.Equal(t, "125040e-2", exact(*got.ClosingBalance))
	require.Equal(t, len(txs), got.TransactionsCount)
	require.Equal(t, []statement.ReviewReason{
		{Code: statement.ReviewBalanceMismatch, Message: "opening 0.00 + transactions ≠ closing 1250.40"},
		{Code: statement.ReviewUnreadableRows, Message: "row with a nul\uFFFD and caf\uFFFD", Line: 12},
	}, got.ReviewReasons)
	require.NotNil(t, got.CompletedAt)
	require.True(t, got.CompletedAt.Equal(done))
	require.Nil(t, got.Error)
	require.Equal(t, j.FileName, got.FileName, "the upload's fields stay")
	require.Equal(t, j.RequestID, got.RequestID)

	stored, err := b.store.Transactions(ctx, j.ID, -1, 100)
	require.NoError(t, err)
	require.Len(t, stored, len(txs))
	ids := map[uuid.UUID]bool{}
	for i, s := range stored {
		require.Equal(t, i, s.Seq, "transactions come back in statement order")
		require.NotEqual(t, uuid.Nil, s.ID)
		ids[s.ID] = true
	}
	require.Len(t, ids, len(txs), "every transaction has its own id")

	// Results reads the same job and transactions, to the scale of every number, in one round trip.
	again, page, err := b.store.Results(ctx, b.account.ID, j.ID, -1, 100)
	require.NoError(t, err)
	require.Equal(t, got, again)
	require.Equal(t, stored, page)

	tests := []struct {
		name string
		seq  int
		want statement.Transaction
		// amount and balance are the stored numerics as PostgreSQL shows them ("" for NULL).
		amount, balance string
	}{
		{"every field set; 1250.50 stays 1250.50", 0, txs[0], "1250.50", "1250.50"},
		{"empty optional fields read back empty; -0.10 stays -0.10", 1, txs[1], "-0.10", "1250.40"},
		{"a yen amount has no decimals", 2, txs[2], "1000", ""},
		{"empty description and raw are stored empty, not NULL", 3, txs[3], "0", ""},
		{"a decimal with a positive exponent reads back with scale 0", 4, func() statement.Transaction {
			t := txs[4]
			t.Amount = dec("150")
			return t
		}(), "150", ""},
		{"the corners of a row askew are kept", 5, txs[5], "-7.25", ""},
		{"COPY's special characters are escaped", 6, txs[6], "0.005", ""},
		{"NUL bytes and invalid UTF-8 are replaced", 7, statement.Transaction{Date: march(8), Amount: dec("-12.34"), Currency: "EU\uFFFDR",
			Description: "nul\uFFFDbyte", Reference: "caf\uFFFD", CounterpartyName: "\uFFFD", CounterpartyAccount: "\uFFFD",
			Type: statement.Debit, Raw: "bad\uFFFD(utf8\uFFFD"}, "-12.34", ""},
	}
	for _, tc := range tests {
		s := stored[tc.seq]
		want := tc.want
		require.Equal(t, exact(want.Amount), exact(s.Amount), tc.name)
		require.Equal(t, want.Balance == nil, s.Balance == nil, tc.name)
		if want.Balance != nil {
			require.Equal(t, exact(*want.Balance), exact(*s.Balance), tc.name)
		}
		// The decimals compared, the rest must be equal field for field.
		want.Amount, want.Balance = s.Amount, s.Balance
		require.Equal(t, want, s.Transaction, tc.name)

		var amount string
		var balance *string
		require.NoError(t, b.db.QueryRowContext(ctx, `SELECT amount::text, balance::text FROM parse_transactions WHERE job_id = $1 AND seq = $2`,
			j.ID, tc.seq).Scan(&amount, &balance), tc.name)
		require.Equal(t, tc.amount, amount, tc.name)
		if tc.balance == "" {
			require.Nil(t, balance, tc.name)
		} else {
			require.Equal(t, tc.balance, *balance, tc.name)
		}
	}
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parse_transactions
 WHERE job_id = $1 AND seq = 1 AND value_date IS NULL AND reference IS NULL AND counterparty_name IS NULL AND counterparty_account IS NULL`, j.ID),
		"empty optional fields are stored as NULL")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1 AND seq = 3 AND currency IS NULL AND description = '' AND raw = ''`, j.ID))
}

// TestParseJobStoreCompleteFinishesTheJobAfterItsTransactions: a job whose statement is
// finished as its transactions are read gets its fields from Finish, called once every
// transaction has been read, and stored with them; a Finish that leaves no status with results
// stores nothing.
func TestParseJobStoreCompleteFinishesTheJobAfterItsTransactions(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	done := b.now.Add(time.Minute)
	read := 0
	txs := held(manyTransactions(40))
	each := txs.Each
	txs.Each = func(yield func(*statement.Transaction) bool) error {
		return each(func(tx *statement.Transaction) bool { read++; return yield(tx) })
	}
	reasons := []statement.ReviewReason{{Code: statement.ReviewBalanceMismatch, Message: "found by the last line"}}
	txs.Finish = func(out *parsejob.Job) {
		require.Equal(t, 40, read, "Finish comes after the last transaction")
		out.Status, out.ReviewReasons, out.Account = parsejob.StatusReview, reasons, "DE89370400440532013000"
	}
	j := b.create(t)
	_, err := b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	require.NoError(t, b.store.Complete(ctx, j.ID, 1, parsejob.Job{CompletedAt: &done}, txs))
	got, err := b.store.Get(ctx, b.account.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.StatusReview, got.Status)
	require.Equal(t, reasons, got.ReviewReasons)
	require.Equal(t, "DE89370400440532013000", got.Account)
	require.Equal(t, 40, got.TransactionsCount)

	k := b.create(t)
	_, err = b.store.Claim(ctx, k.ID, 1)
	require.NoError(t, err)
	none := held(manyTransactions(3))
	none.Finish = func(*parsejob.Job) {}
	require.ErrorContains(t, b.store.Complete(ctx, k.ID, 1, parsejob.Job{CompletedAt: &done}, none), "has no results")
	require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions WHERE job_id = $1`, k.ID), "nothing is written")
}

func TestParseJobStoreCompleteRefusesWhatItCannotStore(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	j := b.create(t)
	_, err := b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	done := b.now.Add(time.Minute)
	undated := manyTransactions(3)
	undated[2].Date = statement.Date{}
	untyped := manyTransactions(3)
	untyped[1].Type = ""
	// A reading of the transactions (from the statement file, for a stream) that yields other
	// than it counted, or fails part-way, ends the COPY.
	counted := func(n int, txs []statement.Transaction) parsejob.Transactions {
		return parsejob.Transactions{Count: n, Each: held(txs).Each}
	}
	failing := parsejob.Transactions{Count: 3, Each: func(yield func(*statement.Transaction) bool) error {
		for _, tx := range manyTransactions(2) {
			if !yield(&tx) {
				return nil
			}
		}
		return errors.New("the file could not be read again")
	}}
	completed := parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}
	tests := []struct {
		name string
		out  parsejob.Job
		txs  parsejob.Transactions
	}{
		{"a transaction without a booking date", completed, held(undated)},
		{"a transaction without a type (the table's check, mid-COPY)", completed, held(untyped)},
		{"fewer transactions than counted", completed, counted(3, manyTransactions(2))},
		{"more transactions than counted", completed, counted(2, manyTransactions(3))},
		{"a reading that fails part-way", completed, failing},
		{"a status without results", parsejob.Job{Status: parsejob.StatusFailed, CompletedAt: &done}, held(manyTransactions(1))},
		{"no completion time", parsejob.Job{Status: parsejob.StatusCompleted}, held(manyTransactions(1))},
	}
	for _, tc := range tests {
		err := b.store.Complete(ctx, j.ID, 1, tc.out, tc.txs)
		require.Error(t, err, tc.name)
		require.NotErrorIs(t, err, attempt.ErrStale, tc.name)
		got, err := b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, parsejob.StatusProcessing, got.Status, "%s: the job is left as it was", tc.name)
		require.Zero(t, b.count(t, `SELECT count(*) FROM parse_transactions`), "%s: nothing is written", tc.name)
	}
	require.NoError(t, b.store.Complete(ctx, j.ID, 1, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}, held(manyTransactions(2))),
		"the attempt still holds the job")
}

func TestParseJobStoreTransactionsPagesBySeq(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	j := b.create(t)
	b.finish(t, j.ID, parsejob.StatusCompleted, 25)
	other := b.create(t)
	b.finish(t, other.ID, parsejob.StatusCompleted, 30)

	tests := []struct {
		after, limit int
		wantFirst    int
		wantLen      int
	}{
		{-1, 10, 0, 10},
		{9, 10, 10, 10},
		{19, 10, 20, 5},
		{24, 10, 0, 0},
		{-1, 1000, 0, 25},
		{3, 1, 4, 1},
		{-1, 0, 0, 0},
	}
	all := manyTransactions(25)
	for _, tc := range tests {
		name := fmt.Sprintf("after %d, limit %d", tc.after, tc.limit)
		page, err := b.store.Transactions(ctx, j.ID, tc.after, tc.limit)
		require.NoError(t, err, name)
		require.Len(t, page, tc.wantLen, name)
		for i, tx := range page {
			require.Equal(t, tc.wantFirst+i, tx.Seq, name)
			require.Equal(t, all[tx.Seq].Description, tx.Description, "%s: the job's own transactions", name)
		}
		// Results reads the same page, with the job, in one round trip.
		job, same, err := b.store.Results(ctx, b.account.ID, j.ID, tc.after, tc.limit)
		require.NoError(t, err, name)
		require.Equal(t, j.ID, job.ID, name)
		require.Equal(t, parsejob.StatusCompleted, job.Status, name)
		require.Equal(t, len(page), len(same), name)
		for i := range page {
			require.Equal(t, page[i], same[i], "%s: Results reads as Transactions does", name)
		}
	}
	none, err := b.store.Transactions(ctx, uuid.New(), -1, 10)
	require.NoError(t, err)
	require.Empty(t, none)
}

// TestParseJobStoreResultsReadsOnlyTheAccountsJob: Results answers ErrNotFound, and reads no
// page, for an unknown job or another account's; a job without results yet has an empty page;
// a tombstone is answered as Get answers it.
func TestParseJobStoreResultsReadsOnlyTheAccountsJob(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	done := b.create(t)
	b.finish(t, done.ID, parsejob.StatusCompleted, 3)
	queued := b.create(t)
	other := b.otherAccount(t)

	for _, tc := range []struct {
		name    string
		account uuid.UUID
		id      uuid.UUID
	}{
		{"an unknown job", b.account.ID, uuid.New()},
		{"another account's job", other.ID, done.ID},
	} {
		j, page, err := b.store.Results(ctx, tc.account, tc.id, -1, 10)
		require.ErrorIs(t, err, parsejob.ErrNotFound, tc.name)
		require.Zero(t, j, tc.name)
		require.Empty(t, page, tc.name)
	}

	j, page, err := b.store.Results(ctx, b.account.ID, queued.ID, -1, 10)
	require.NoError(t, err)
	require.Equal(t, parsejob.StatusQueued, j.Status)
	require.Empty(t, page, "a queued job has no transactions")

	require.NoError(t, b.store.Delete(ctx, b.account.ID, done.ID, time.Now()))
	got, err := b.store.Get(ctx, b.account.ID, done.ID)
	require.NoError(t, err)
	j, page, err = b.store.Results(ctx, b.account.ID, done.ID, -1, 10)
	require.NoError(t, err)
	require.Equal(t, got, j, "a tombstone reads as Get reads it")
	require.NotNil(t, j.DeletedAt)
	require.Empty(t, page, "its transactions are deleted")
}

func TestParseJobStoreTransactionsParsedSumsThePeriod(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	from, to := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)
	other := b.otherAccount(t)
	for _, tc := range []struct {
		acc account.Account
		at  time.Time
		n   int
	}{
		{b.account, from.Add(-time.Microsecond), 1}, // February
		{b.account, from, 2},
		{b.account, from.Add(14 * 24 * time.Hour), 3},
		{b.account, to.Add(-time.Microsecond), 4},
		{b.account, to, 5}, // April
		{other, from.Add(time.Hour), 6},
	} {
		j := b.createAt(t, tc.acc, tc.at)
		b.finish(t, j.ID, parsejob.StatusCompleted, tc.n)
	}
	b.createAt(t, b.account, from.Add(time.Hour)) // queued: no transactions yet

	for _, tc := range []struct {
		name     string
		acc      uuid.UUID
		from, to time.Time
		want     int64
	}{
		{"March", b.account.ID, from, to, 2 + 3 + 4},
		{"April", b.account.ID, to, to.AddDate(0, 1, 0), 5},
		{"another account's March", other.ID, from, to, 6},
		{"a month with no jobs", b.account.ID, to.AddDate(0, 1, 0), to.AddDate(0, 2, 0), 0},
	} {
		got, err := b.store.TransactionsParsed(ctx, tc.acc, tc.from, tc.to)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

func TestParseJobStoreOldestQueued(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	oldest := func() (time.Time, bool) {
		t.Helper()
		at, ok, err := b.store.OldestQueued(ctx)
		require.NoError(t, err)
		return at, ok
	}
	_, ok := oldest()
	require.False(t, ok, "no job waits")

	processing := b.createAt(t, b.account, b.now.Add(-2*time.Hour))
	_, err := b.store.Claim(ctx, processing.ID, 1)
	require.NoError(t, err)
	other := b.createAt(t, b.otherAccount(t), b.now.Add(-time.Hour))
	last := b.create(t)

	at, ok := oldest()
	require.True(t, ok)
	require.True(t, at.Equal(b.now.Add(-time.Hour)), "the oldest queued job of any account, not a processing one: %s", at)
	_, err = b.store.Claim(ctx, other.ID, 1)
	require.NoError(t, err)
	at, ok = oldest()
	require.True(t, ok)
	require.True(t, at.Equal(b.now), "%s", at)
	require.NoError(t, b.store.Fail(ctx, last.ID, 0, parsejob.Failure{Code: parsejob.CodeInternalError, Message: "gone"}, b.now))
	_, ok = oldest()
	require.False(t, ok)
}

func TestParseJobStoreFailStoresWhyTheJobFailed(t *testing.T) {
	t.Parallel()
	b := setupParseStore(t)
	ctx := t.Context()
	done := b.now.Add(time.Minute)

	t.Run("a processing job, by its attempt", func(t *testing.T) {
		j := b.create(t)
		_, err := b.store.Claim(ctx, j.ID, 1)
		require.NoError(t, err)
		f := parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "line 3: amount \"abc\" is not a number\x00"}
		require.NoError(t, b.store.Fail(ctx, j.ID, 1, f, done))

		got, err := b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, parsejob.StatusFailed, got.Status)
		require.Equal(t, &parsejob.Failure{Code: parsejob.CodeFileCorrupt, Message: "line 3: amount \"abc\" is not a number\uFFFD"}, got.Error)
		require.NotNil(t, got.CompletedAt)
		require.True(t, got.CompletedAt.Equal(done))

		for _, tc := range []struct {
			name string
			err  error
		}{
			{"it cannot be failed again", b.store.Fail(ctx, j.ID, 1, parsejob.Failure{Code: parsejob.CodeTimeout, Message: "x"}, done)},
			{"it cannot be completed", b.store.Complete(ctx, j.ID, 1, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}, parsejob.Transactions{})},
			{"a newer attempt cannot claim it", func() error { _, err := b.store.Claim(ctx, j.ID, 2); return err }()},
		} {
			require.ErrorIs(t, tc.err, attempt.ErrStale, tc.name)
		}
		got, err = b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, parsejob.CodeFileCorrupt, got.Error.Code, "the first failure stays")
	})

	t.Run("a queued job no attempt claimed, by a final attempt that could not claim it", func(t *testing.T) {
		j := b.create(t)
		require.NoError(t, b.store.Fail(ctx, j.ID, 1, parsejob.Failure{Code: parsejob.CodeInternalError, Message: "x"}, done))
		got, err := b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, parsejob.StatusFailed, got.Status)
	})

	t.Run("not by an attempt older than the one that claimed it", func(t *testing.T) {
		j := b.create(t)
		_, err := b.store.Claim(ctx, j.ID, 3)
		require.NoError(t, err)
		require.ErrorIs(t, b.store.Fail(ctx, j.ID, 2, parsejob.Failure{Code: parsejob.CodeInternalError, Message: "x"}, done), attempt.ErrStale)
		got, err := b.store.Get(ctx, b.account.ID, j.ID)
		require.NoError(t, err)
		require.Equal(t, parsejob.StatusProcessing, got.Status)
	})

	require.ErrorIs(t, b.store.Fail(ctx, uuid.New(), 1, parsejob.Failure{Code: parsejob.CodeInternalError, Message: "x"}, done), attempt.ErrStale)
}

func TestQueueSweepFailsTheParseJobsTheQueueGaveUpOn(t *testing.T) {
	t.Parallel()
	qb := setupQueue(t, nil)
	b := newParseBundle(t, qb.db, qb.enqueuer)
	ctx := t.Context()
	claim := func(id uuid.UUID) error { _, err := b.store.Claim(ctx, id, 1); return err }
	tests := []struct {
		name string
		// queue sets the job's river_job row: one of the queue* statements.
		queue string
		// before, when set, changes the job before the sweep.
		before     func(id uuid.UUID) error
		wantStatus parsejob.Status
		wantCode   parsejob.ErrorCode
	}{
		{"a queued job whose work was discarded fails",
			queueDiscarded, nil,
			parsejob.StatusFailed, parsejob.CodeInternalError},
		{"a processing job whose work was discarded fails",
			queueDiscarded, claim,
			parsejob.StatusFailed, parsejob.CodeInternalError},
		{"a job whose work was cancelled fails",
			queueCancelled, nil,
			parsejob.StatusFailed, parsejob.CodeInternalError},
		{"a job whose work completed long ago without finishing it fails",
			queueCompletedLongAgo, claim,
			parsejob.StatusFailed, parsejob.CodeInternalError},
		{"a job whose work completed a moment ago is left to its newer attempt",
			queueCompletedJustNow, claim,
			parsejob.StatusProcessing, ""},
		{"a completed job whose work was discarded stays completed",
			queueDiscarded,
			func(id uuid.UUID) error {
				done := b.now
				if err := claim(id); err != nil {
					return err
				}
				return b.store.Complete(ctx, id, 1, parsejob.Job{Status: parsejob.StatusCompleted, CompletedAt: &done}, parsejob.Transactions{})
			},
			parsejob.StatusCompleted, ""},
		{"a job that failed for its file keeps its own failure",
			queueDiscarded,
			func(id uuid.UUID) error {
				return b.store.Fail(ctx, id, 0, parsejob.Failure{Code: parsejob.CodeFileEncrypted, Message: "the PDF is encrypted"}, b.now)
			},
			parsejob.StatusFailed, parsejob.CodeFileEncrypted},
	}
	ids := make([]uuid.UUID, len(tests))
	for i, tc := range tests {
		j := b.create(t)
		ids[i] = j.ID
		if tc.before != nil {
			require.NoError(t, tc.before(j.ID), tc.name)
		}
		qb.setQueueState(t, "parse_jobs", j.ID, tc.queue)
	}

	qb.sweep(t)

	for i, tc := range tests {
		got, err := b.store.Get(ctx, b.account.ID, ids[i])
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantStatus, got.Status, tc.name)
		if tc.wantCode == "" {
			require.Nil(t, got.Error, tc.name)
			continue
		}
		require.NotNil(t, got.Error, tc.name)
		require.Equal(t, tc.wantCode, got.Error.Code, tc.name)
		require.NotNil(t, got.CompletedAt, tc.name)
		if tc.wantCode == parsejob.CodeInternalError {
			require.Equal(t, "the job could not be processed; upload the file again", got.Error.Message, tc.name)
		}
	}
	select {
	case c := <-qb.parseCalls:
		t.Fatalf("no parse job was available to work, yet: %+v", c)
	default:
	}
}

// BenchmarkParseJobComplete1M measures Complete of a job with 1,000,000 transactions: the
// UPDATE and the COPY of every row, in one transaction.
func BenchmarkParseJobComplete1M(b *testing.B) {
	const n = 1_000_000
	pb := setupParseStore(b)
	ctx := b.Context()
	txs := manyTransactions(n)
	done := pb.now
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		j := pb.create(b)
		_, err := pb.store.Claim(ctx, j.ID, 1)
		require.NoError(b, err)
		b.StartTimer()
		require.NoError(b, pb.store.Complete(ctx, j.ID, 1, parsejob.Job{Status: parsejob.StatusCompleted, TransactionsCount: n, CompletedAt: &done}, held(txs)))
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
