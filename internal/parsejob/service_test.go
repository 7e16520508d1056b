package parsejob_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

// bundle is a parsing job service over a fresh database: the real store with an insert-only
// queue (the test calls Process itself), the real account store, one account and a clock the
// test sets.
type bundle struct {
	db      *sqlx.DB
	svc     *parsejob.Service
	account account.Account
	now     time.Time
	// attempt is the last worker attempt number used by process.
	attempt int
}

func setup(t *testing.T, plan account.ParsePlan) *bundle {
	t.Helper()
	db := pgtest.New(t)
	q, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	accounts := postgres.NewAccountStore(db)
	acc, err := accounts.CreateAccount(t.Context(), account.Account{Name: "Acme", ReconPlan: account.ReconStandard, ParsePlan: plan})
	require.NoError(t, err)
	b := &bundle{db: db, account: acc, now: time.Date(2024, 3, 15, 10, 30, 0, 123456789, time.UTC)}
	b.svc = &parsejob.Service{Store: postgres.NewParseJobStore(db, q), Accounts: accounts,
		Now: func() time.Time { return b.now }, Logger: slog.New(slog.DiscardHandler)}
	return b
}

func fileOf(name string, data []byte) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), SHA256: sha256.Sum256(data),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func (b *bundle) create(t *testing.T, f upload.File) parsejob.Job {
	t.Helper()
	acc, err := b.svc.Create(t.Context(), parsejob.NewJob{AccountID: b.account.ID, File: f, RequestID: "req-" + f.Name})
	require.NoError(t, err)
	return acc.Job
}

// process works the job as the queue would, with a new attempt number each time.
func (b *bundle) process(t *testing.T, id uuid.UUID) parsejob.Job {
	t.Helper()
	b.attempt++
	require.NoError(t, b.svc.Process(t.Context(), id, b.attempt, false))
	j, err := b.svc.Get(t.Context(), b.account.ID, id)
	require.NoError(t, err)
	return j
}

// statementCSV has a running balance that follows from line to line, and one debit.
const statementCSV = `Date,Description,Amount,Balance
2024-03-01,SEPA CREDIT ACME GMBH INV 2024 001,1250.50,1250.50
2024-03-02,=HYPERLINK("x") CARD PAYMENT,-42.99,1207.51
2024-03-05,TRANSFER FROM BETA LTD,100.00,1307.51
`

func TestAnUploadIsQueuedThenParsedIntoTransactions(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	j := b.create(t, fileOf("march.csv", []byte(statementCSV)))
	require.Equal(t, parsejob.StatusQueued, j.Status)
	require.Equal(t, statement.FormatCSV, j.Format)
	require.Equal(t, "march.csv", j.FileName)

	_, _, _, err := b.svc.Results(t.Context(), b.account.ID, j.ID, "", 0)
	require.ErrorIs(t, err, parsejob.ErrNotReady, "no results while queued")

	done := b.process(t, j.ID)
	require.Equal(t, parsejob.StatusCompleted, done.Status, "review reasons: %+v", done.ReviewReasons)
	require.Equal(t, 3, done.TransactionsCount)
	require.NotNil(t, done.CompletedAt)
	require.Empty(t, done.ReviewReasons)

	_, txs, next, err := b.svc.Results(t.Context(), b.account.ID, j.ID, "", 2)
	require.NoError(t, err)
	require.Len(t, txs, 2)
	require.NotEmpty(t, next)
	require.Equal(t, "1250.50", txs[0].Amount.String())
	require.Equal(t, statement.Credit, txs[0].Type)
	require.Equal(t, "-42.99", txs[1].Amount.String())
	require.Equal(t, statement.Debit, txs[1].Type)
	require.Equal(t, "1207.51", txs[1].Balance.String())
	require.Equal(t, `=HYPERLINK("x") CARD PAYMENT`, txs[1].Description, "stored as the statement says; only the CSV export neutralises it")

	_, rest, next, err := b.svc.Results(t.Context(), b.account.ID, j.ID, next, 2)
	require.NoError(t, err)
	require.Empty(t, next, "the last page has no cursor")
	require.Len(t, rest, 1)
	require.Equal(t, "TRANSFER FROM BETA LTD", rest[0].Description)

	again := b.process(t, j.ID)
	require.Equal(t, done, again, "a finished job is left alone by a later attempt")
}

func TestAStatementThatDoesNotAddUpIsInReviewWithReadableResults(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	broken := strings.Replace(statementCSV, "1307.51", "1317.51", 1)
	j := b.process(t, b.create(t, fileOf("broken.csv", []byte(broken))).ID)
	require.Equal(t, parsejob.StatusReview, j.Status)
	var codes []statement.ReviewCode
	for _, r := range j.ReviewReasons {
		codes = append(codes, r.Code)
	}
	// The last balance no longer follows from the one before it, and the statement's closing
	// balance (its last running balance) is not its opening balance plus its lines.
	require.Equal(t, []statement.ReviewCode{statement.ReviewBalanceMismatch, statement.ReviewRunningBalanceBreak}, codes)
	_, txs, _, err := b.svc.Results(t.Context(), b.account.ID, j.ID, "", 0)
	require.NoError(t, err)
	require.Len(t, txs, 3)
}

func TestAFileThatCannotBeParsedFailsTheJob(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	// Larger than the head the upload check parses, and cut short past it: only the worker,
	// which reads the whole file, sees the truncation.
	camt := `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId>
<CreDtTm>2024-03-31T10:00:00</CreDtTm></GrpHdr><Stmt><Id>1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
` + strings.Repeat(`<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-03-05</Dt></BookgDt></Ntry>`+"\n", 1000) +
		`<Ntry><Amt Ccy="EUR">12`
	j := b.create(t, fileOf("cut.xml", []byte(camt)))
	require.Equal(t, statement.FormatCAMT053, j.Format)
	j = b.process(t, j.ID)
	require.Equal(t, parsejob.StatusFailed, j.Status)
	require.NotNil(t, j.Error)
	require.Equal(t, parsejob.CodeFileCorrupt, j.Error.Code, j.Error.Message)
	require.Zero(t, j.TransactionsCount)
	_, _, _, err := b.svc.Results(t.Context(), b.account.ID, j.ID, "", 0)
	require.ErrorIs(t, err, parsejob.ErrNotReady)
	_, err = b.svc.Export(t.Context(), b.account.ID, j.ID)
	require.ErrorIs(t, err, parsejob.ErrNotReady)
}

func TestAnUploadThatIsNoStatementIsRefusedAndNotCharged(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseFree)
	_, err := b.svc.Create(t.Context(), parsejob.NewJob{AccountID: b.account.ID, File: fileOf("x.bin", []byte{0, 1, 2, 3, 4, 5, 6, 7})})
	var ferr *parsejob.FileError
	require.ErrorAs(t, err, &ferr)
	u, err := b.svc.Usage(t.Context(), b.account.ID)
	require.NoError(t, err)
	require.Zero(t, u.JobsCreated)
}

func TestEachTransactionReadsEveryTransactionInOrderInBatches(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	const n = 4500 // more than two export batches
	var csv strings.Builder
	csv.WriteString("Date,Description,Amount\n")
	for i := range n {
		fmt.Fprintf(&csv, "2024-03-%02d,LINE %d,%d.01\n", i%28+1, i, i)
	}
	j := b.process(t, b.create(t, fileOf("big.csv", []byte(csv.String()))).ID)
	require.Equal(t, n, j.TransactionsCount)
	seen := 0
	require.NoError(t, b.svc.EachTransaction(t.Context(), j.ID, func(tx parsejob.Transaction) error {
		require.Equal(t, seen, tx.Seq)
		require.Equal(t, fmt.Sprintf("LINE %d", seen), tx.Description)
		seen++
		return nil
	}))
	require.Equal(t, n, seen)
}

func TestIdempotentUploads(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	ctx := t.Context()
	req := parsejob.NewJob{AccountID: b.account.ID, File: fileOf("march.csv", []byte(statementCSV)), IdempotencyKey: "k-1", RequestID: "first"}
	first, err := b.svc.Create(ctx, req)
	require.NoError(t, err)
	b.process(t, first.Job.ID)

	req.RequestID = "second"
	again, err := b.svc.Create(ctx, req)
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, first.Job, again.Job, "the first answer, status queued and request id included")

	other := req
	other.File = fileOf("april.csv", []byte(statementCSV))
	_, err = b.svc.Create(ctx, other)
	require.ErrorIs(t, err, idempotency.ErrKeyReused)

	u, err := b.svc.Usage(ctx, b.account.ID)
	require.NoError(t, err)
	require.Equal(t, 1, u.JobsCreated, "a replay charges nothing")
}

func TestTheMonthlyLimitRefusesTheJobPastIt(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseFree)
	for i := range parsejob.LimitFree {
		b.create(t, fileOf(fmt.Sprintf("s%d.csv", i), []byte(statementCSV)))
	}
	_, err := b.svc.Create(t.Context(), parsejob.NewJob{AccountID: b.account.ID, File: fileOf("one-more.csv", []byte(statementCSV))})
	var qerr *quota.Error
	require.ErrorAs(t, err, &qerr)
	require.Equal(t, parsejob.LimitFree, qerr.Limit)
	require.Equal(t, time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC), qerr.ResetAt)

	u, err := b.svc.Usage(t.Context(), b.account.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.Usage{PeriodStart: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: qerr.ResetAt,
		Plan: account.ParseFree, JobsCreated: 50, JobsLimit: 50}, u)
	require.Equal(t, 100.0, u.PercentUsed())

	b.now = qerr.ResetAt
	b.create(t, fileOf("april.csv", []byte(statementCSV)))
}

func TestUsageCountsTheTransactionsOfThePeriod(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseStarter)
	b.process(t, b.create(t, fileOf("a.csv", []byte(statementCSV))).ID)
	b.process(t, b.create(t, fileOf("b.csv", []byte(statementCSV))).ID)
	b.create(t, fileOf("c.csv", []byte(statementCSV))) // still queued: nothing parsed yet
	u, err := b.svc.Usage(t.Context(), b.account.ID)
	require.NoError(t, err)
	require.Equal(t, 3, u.JobsCreated)
	require.EqualValues(t, 6, u.TransactionsParsed)
	require.Equal(t, 1000, u.JobsLimit)
	require.Equal(t, 997, u.JobsRemaining())
	require.Equal(t, 0.3, u.PercentUsed())
}

func TestStatusIsDegradedWhenAJobWaitsTooLong(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParsePro)
	st, err := b.svc.Status(t.Context(), b.account.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.AccountStatus{Health: parsejob.HealthOK, Plan: account.ParsePro, RateLimit: 200, MonthlyLimit: 10000}, st)

	b.create(t, fileOf("waiting.csv", []byte(statementCSV)))
	b.now = b.now.Add(parsejob.DegradedAfter + time.Second)
	st, err = b.svc.Status(t.Context(), b.account.ID)
	require.NoError(t, err)
	require.Equal(t, parsejob.HealthDegraded, st.Health)
}

func TestListPagesNewestFirstWithFilters(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	var ids []uuid.UUID // oldest first
	for i := range 7 {
		ids = append(ids, b.create(t, fileOf(fmt.Sprintf("s%d.csv", i), []byte(statementCSV))).ID)
		if i%2 == 0 {
			b.now = b.now.Add(time.Second) // some jobs share a creation time
		}
	}
	b.process(t, ids[3])

	var got []uuid.UUID
	after := ""
	for {
		page, next, err := b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Cursor: after, Limit: 3})
		require.NoError(t, err)
		for _, j := range page {
			got = append(got, j.ID)
		}
		if next == "" {
			break
		}
		after = next
	}
	require.Len(t, got, 7)
	for i := 1; i < len(got); i++ {
		require.NotEqual(t, got[i-1], got[i])
	}
	require.ElementsMatch(t, ids, got)

	completed := parsejob.StatusCompleted
	page, next, err := b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Status: &completed})
	require.NoError(t, err)
	require.Empty(t, next)
	require.Len(t, page, 1)
	require.Equal(t, ids[3], page[0].ID)

	page, _, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{FileName: "S4.CSV"})
	require.NoError(t, err)
	require.Len(t, page, 1, "a file name, compared without case")
	require.Equal(t, ids[4], page[0].ID)
	page, _, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{FileName: "s_"})
	require.NoError(t, err)
	require.Empty(t, page, "a LIKE wildcard is only text")

	_, next, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Limit: 2})
	require.NoError(t, err)
	_, _, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Limit: 2, Cursor: next, Status: &completed})
	require.ErrorIs(t, err, cursor.ErrBad, "a cursor is only good with its own filters")
	_, _, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Limit: 2, Cursor: next, FileName: "s"})
	require.ErrorIs(t, err, cursor.ErrBad, "nor with another file name")
	_, _, err = b.svc.List(t.Context(), b.account.ID, parsejob.ListRequest{Limit: 2, Cursor: next})
	require.NoError(t, err)
}

func TestAnotherAccountsJobIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t, account.ParseBusiness)
	j := b.create(t, fileOf("march.csv", []byte(statementCSV)))
	_, err := b.svc.Get(t.Context(), uuid.New(), j.ID)
	require.ErrorIs(t, err, parsejob.ErrNotFound)
	_, _, _, err = b.svc.Results(t.Context(), uuid.New(), j.ID, "", 0)
	require.ErrorIs(t, err, parsejob.ErrNotFound)
}
