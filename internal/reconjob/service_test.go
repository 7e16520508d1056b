package reconjob_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
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
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
	"github.com/statementmatch/service/internal/upload"
)

// bankCSV pays INV-2024-001 exactly, INV-2024-002 in two instalments and INV-2024-003 short;
// its last line, a card payment, pays nothing.
const bankCSV = `Date,Description,Amount
2024-03-01,SEPA CREDIT ACME INV 2024 001,1250.50
2024-03-02,SEPA CREDIT BETA INV-2024-002 PART ONE,400.00
2024-03-05,SEPA CREDIT BETA inv/2024/002 PART TWO,600.00
2024-03-06,SEPA CREDIT GAMMA INV2024003,90.00
2024-03-07,CARD PAYMENT OFFICE SUPPLIES,-45.99
`

// expectedCSV lists four invoices; INV-2024-004 is paid by no line.
const expectedCSV = `invoice_number,amount,currency
INV-2024-001,1250.50,EUR
INV-2024-002,1000.00,EUR
INV-2024-003,100.00,EUR
INV-2024-004,75.00,EUR
`

// wantResults is the outcome of bankCSV (or the same lines in a workbook) against expectedCSV,
// as brief writes it.
var wantResults = []string{
	"matched INV-2024-001 1250.50 EUR: line 1 2024-03-01 1250.50 \"SEPA CREDIT ACME INV 2024 001\"",
	"matched INV-2024-002 1000.00 EUR: line 2 2024-03-02 400.00 \"SEPA CREDIT BETA INV-2024-002 PART ONE\"; line 3 2024-03-05 600.00 \"SEPA CREDIT BETA inv/2024/002 PART TWO\"",
	"partial INV-2024-003 100.00 EUR paid 90.00 (amount_mismatch): line 4 2024-03-06 90.00 \"SEPA CREDIT GAMMA INV2024003\"",
	"unmatched INV-2024-004 75.00 EUR",
	"unused: line 5 2024-03-07 -45.99 \"CARD PAYMENT OFFICE SUPPLIES\"",
	"summary: expected=4 matched=2 partial=1 unmatched=1 unused=1 expected_total=2425.50 matched_total=2250.50",
}

// brief writes results one line per reference, then the unused bank lines and the summary,
// so that a test compares them whole and a failure shows what differs.
func brief(r reconjob.Results) []string {
	entries := func(es []reconjob.BankEntry) string {
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = fmt.Sprintf("line %d %s %s%s %q", e.Line, e.Date, e.Amount.String(), prefixed(" ", e.Currency), e.Text)
		}
		return strings.Join(parts, "; ")
	}
	var out []string
	for _, m := range r.Matched {
		out = append(out, fmt.Sprintf("matched %s %s%s: %s", m.Reference, m.Amount.String(), prefixed(" ", m.Currency), entries(m.BankEntries)))
	}
	for _, p := range r.Partial {
		out = append(out, fmt.Sprintf("partial %s %s%s paid %s (%s): %s", p.Reference, p.ExpectedAmount.String(), prefixed(" ", p.Currency),
			p.MatchedAmount.String(), p.Reason, entries(p.BankEntries)))
	}
	for _, u := range r.Unmatched {
		out = append(out, fmt.Sprintf("unmatched %s %s%s", u.Reference, u.Amount.String(), prefixed(" ", u.Currency)))
	}
	out = append(out, "unused: "+entries(r.UnmatchedBankEntries))
	s := r.Summary
	out = append(out, fmt.Sprintf("summary: expected=%d matched=%d partial=%d unmatched=%d unused=%d expected_total=%s matched_total=%s",
		s.ExpectedCount, s.MatchedCount, s.PartialCount, s.UnmatchedCount, s.UnmatchedBankEntriesCount, s.ExpectedTotal.String(), s.MatchedTotal.String()))
	return out
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// serviceBundle is a job service over a fresh database: the real job store with an insert-only
// queue, the real account store, one standard account and a clock the test sets.
type serviceBundle struct {
	db      *sqlx.DB
	store   *postgres.JobStore
	svc     *reconjob.Service
	account account.Account
	now     time.Time
}

func setupService(t *testing.T) *serviceBundle {
	t.Helper()
	db := pgtest.New(t)
	q, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	accounts := postgres.NewAccountStore(db)
	acc, err := accounts.CreateAccount(t.Context(), account.Account{Name: "Acme"})
	require.NoError(t, err)
	b := &serviceBundle{db: db, store: postgres.NewJobStore(db, q), account: acc,
		now: time.Date(2024, 3, 15, 10, 30, 0, 123456789, time.UTC)}
	b.svc = &reconjob.Service{Store: b.store, Accounts: accounts, Now: func() time.Time { return b.now },
		Logger: slog.New(slog.DiscardHandler)}
	return b
}

// request is a production request of the bundle's account with these files.
func (b *serviceBundle) request(bank, expected upload.File, key string) reconjob.NewJob {
	return reconjob.NewJob{AccountID: b.account.ID, Env: account.Production, Bank: bank, Expected: expected, IdempotencyKey: key}
}

// create accepts a job with these files and returns it.
func (b *serviceBundle) create(t *testing.T, bank, expected upload.File) reconjob.Job {
	t.Helper()
	acc, err := b.svc.Create(t.Context(), b.request(bank, expected, ""))
	require.NoError(t, err)
	return acc.Job
}

func (b *serviceBundle) get(t *testing.T, id uuid.UUID) reconjob.Job {
	t.Helper()
	j, err := b.svc.Get(t.Context(), b.account.ID, account.Production, id)
	require.NoError(t, err)
	return j
}

func (b *serviceBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.GetContext(t.Context(), &n, query, args...))
	return n
}

// cutCAMT is a CAMT.053 statement larger than the head the upload check parses, cut short in
// its last entry: only reading it whole shows it is truncated.
func cutCAMT() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>` +
		"<GrpHdr><MsgId>1</MsgId><CreDtTm>2024-03-31T10:00:00</CreDtTm></GrpHdr><Stmt><Id>1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>\n")
	for b.Len() < 100<<10 {
		b.WriteString(`<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-03-05</Dt></BookgDt></Ntry>` + "\n")
	}
	b.WriteString(`<Ntry><Amt Ccy="EUR">12`)
	return b.String()
}

// fileOf is an upload of data, read from memory.
func fileOf(name string, data []byte) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), SHA256: sha256.Sum256(data),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// bankXLSX is bankCSV as a workbook: dates as date cells, amounts as numeric cells.
func bankXLSX(t *testing.T) []byte {
	t.Helper()
	day := func(d int) time.Time { return time.Date(2024, 3, d, 0, 0, 0, 0, time.UTC) }
	rows := [][]any{
		{"Date", "Description", "Amount"},
		{day(1), "SEPA CREDIT ACME INV 2024 001", 1250.5},
		{day(2), "SEPA CREDIT BETA INV-2024-002 PART ONE", 400},
		{day(5), "SEPA CREDIT BETA inv/2024/002 PART TWO", 600},
		{day(6), "SEPA CREDIT GAMMA INV2024003", 90},
		{day(7), "CARD PAYMENT OFFICE SUPPLIES", -45.99},
	}
	book, err := exceltest.XLSX(rows)
	require.NoError(t, err)
	return book
}

func TestServiceCreatesAJobAndProcessingItStoresItsResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		bank func(t *testing.T) upload.File
	}{
		{"a CSV bank statement", func(*testing.T) upload.File { return fileOf("march.csv", []byte(bankCSV)) }},
		{"an Excel bank statement with date and numeric cells", func(t *testing.T) upload.File { return fileOf("march.xlsx", bankXLSX(t)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupService(t)
			ctx := t.Context()
			bank := tc.bank(t)
			acc, err := b.svc.Create(ctx, b.request(bank, fileOf("invoices.csv", []byte(expectedCSV)), ""))
			require.NoError(t, err)
			require.False(t, acc.Replayed)
			j := acc.Job
			require.NotEqual(t, uuid.Nil, j.ID)
			require.Equal(t, reconjob.StatusProcessing, j.Status)
			require.Equal(t, bank.Name, j.BankFile)
			require.Equal(t, "invoices.csv", j.ExpectedFile)
			require.True(t, j.CreatedAt.Equal(b.now.Truncate(time.Microsecond)), "created at %s", j.CreatedAt)

			_, _, err = b.svc.Results(ctx, b.account.ID, account.Production, j.ID)
			require.ErrorIs(t, err, reconjob.ErrNotReady, "no results before the job is processed")

			b.now = b.now.Add(time.Minute)
			require.NoError(t, b.svc.Process(ctx, j.ID, 1, false))

			got, res, err := b.svc.Results(ctx, b.account.ID, account.Production, j.ID)
			require.NoError(t, err)
			require.Equal(t, reconjob.StatusCompleted, got.Status)
			require.NotNil(t, got.CompletedAt)
			require.WithinDuration(t, b.now, *got.CompletedAt, time.Microsecond, "PostgreSQL keeps microseconds")
			require.Nil(t, got.Error)
			require.Equal(t, wantResults, brief(res))
			require.Equal(t, "1250.50", res.Matched[0].Amount.String(), "amounts keep the currency's decimals")
			require.Equal(t, reconjob.StatusCompleted, b.get(t, j.ID).Status)

			require.NoError(t, b.svc.Process(ctx, j.ID, 2, false), "a later attempt of a finished job does nothing")
			_, again, err := b.svc.Results(ctx, b.account.ID, account.Production, j.ID)
			require.NoError(t, err)
			require.Equal(t, res, again)
		})
	}
}

// TestServiceOpenResultsReadsTheDocumentInParts checks that the results document read part by
// part from PostgreSQL, and decoded an item at a time, is the document Results returns: with
// parts of a few bytes, every item spans several reads.
func TestServiceOpenResultsReadsTheDocumentInParts(t *testing.T) {
	// Not parallel: it changes the part size of the package.
	defer reconjob.SetResultsPartBytes(7)()
	b := setupService(t)
	ctx := t.Context()
	acc, err := b.svc.Create(ctx, b.request(fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte(expectedCSV)), ""))
	require.NoError(t, err)
	id := acc.Job.ID

	_, _, err = b.svc.OpenResults(ctx, b.account.ID, account.Production, id)
	require.ErrorIs(t, err, reconjob.ErrNotReady)
	_, _, err = b.svc.OpenResults(ctx, b.account.ID, account.Sandbox, id)
	require.ErrorIs(t, err, reconjob.ErrNotFound, "another environment's job")
	require.NoError(t, b.svc.Process(ctx, id, 1, false))

	_, want, err := b.svc.Results(ctx, b.account.ID, account.Production, id)
	require.NoError(t, err)
	j, doc, err := b.svc.OpenResults(ctx, b.account.ID, account.Production, id)
	require.NoError(t, err)
	require.Equal(t, id, j.ID)
	got := reconjob.Results{Matched: []reconjob.MatchedReference{}, Partial: []reconjob.PartialReference{},
		Unmatched: []reconjob.UnmatchedReference{}, UnmatchedBankEntries: []reconjob.BankEntry{}}
	require.NoError(t, reconjob.VisitResults(doc, reconjob.ResultsVisitor{
		Matched:   func(m reconjob.MatchedReference) error { got.Matched = append(got.Matched, m); return nil },
		Partial:   func(p reconjob.PartialReference) error { got.Partial = append(got.Partial, p); return nil },
		Unmatched: func(u reconjob.UnmatchedReference) error { got.Unmatched = append(got.Unmatched, u); return nil },
		BankEntry: func(e reconjob.BankEntry) error {
			got.UnmatchedBankEntries = append(got.UnmatchedBankEntries, e)
			return nil
		},
		Summary: func(s reconjob.Summary) error { got.Summary = s; return nil },
	}))
	require.Equal(t, want, got)
	require.NotEmpty(t, got.Matched)
}

func TestVisitResultsRefusesWhatIsNoResultsDocument(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"", "[]", `{"matched": {}}`, `{"matched": [1]}`, `{"matched": [`, `{"summary": {}`} {
		err := reconjob.VisitResults(strings.NewReader(doc), reconjob.ResultsVisitor{
			Matched: func(reconjob.MatchedReference) error { return nil },
		})
		require.Error(t, err, "%q", doc)
	}
	stop := errors.New("stop")
	err := reconjob.VisitResults(strings.NewReader(`{"other": [1, {"a": 2}], "unmatched": [{"reference": "A", "amount": 1}]}`),
		reconjob.ResultsVisitor{Unmatched: func(reconjob.UnmatchedReference) error { return stop }})
	require.ErrorIs(t, err, stop, "unknown keys are skipped; the visitor's error ends the walk")
}

func TestServiceCreateRefusesAFileOfTheWrongKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bank     upload.File
		expected upload.File
		field    string
	}{
		{"a bank file that starts like a PDF but is not one",
			fileOf("statement.pdf", []byte("%PDF-1.7\n\x00\x01\x02 this is not a PDF at all \xff\xfe")), fileOf("invoices.csv", []byte(expectedCSV)), "bank"},
		{"a bank file of binary data",
			fileOf("statement.bin", []byte{0x00, 0x01, 0x02, 0x03, 0xfe, 0xff, 0x00, 0x10}), fileOf("invoices.csv", []byte(expectedCSV)), "bank"},
		{"an expected file without an amount column",
			fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte("invoice_number,currency\nINV-1,EUR\n")), "expected"},
		{"an expected file that is a PDF",
			fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.pdf", []byte("%PDF-1.7\nnot really\n")), "expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupService(t)
			_, err := b.svc.Create(t.Context(), b.request(tc.bank, tc.expected, "key-1"))
			var fe *reconjob.FileError
			require.ErrorAs(t, err, &fe)
			require.ErrorIs(t, err, reconjob.ErrFileInvalid)
			require.Equal(t, tc.field, fe.Field)
			require.NotEmpty(t, fe.Msg)
			require.True(t, strings.HasPrefix(err.Error(), tc.field+": "), err.Error())
			for _, table := range []string{"recon_jobs", "uploads", "job_quota", "river_job", "idempotency_keys"} {
				require.Zero(t, b.count(t, `SELECT count(*) FROM `+table), "nothing is stored in %s", table)
			}
		})
	}
}

func TestServiceProcessFailsAJobWhoseFilesCannotBeRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bank     string
		expected string
		limits   statement.Options
		code     reconjob.ErrorCode
		// message is checked with check.
		check func(t *testing.T, message string)
	}{
		{"a large bank file cut after the head the upload check reads passes the check and fails the job",
			cutCAMT(), expectedCSV, statement.Options{}, reconjob.CodeFileInvalid,
			func(t *testing.T, message string) { require.True(t, strings.HasPrefix(message, "bank: "), message) }},
		{"an expected file with a bad amount in row 3 passes the upload check and fails the job",
			bankCSV, "invoice_number,amount\nINV-2024-001,1250.50\nINV-2024-002,abc\n", statement.Options{}, reconjob.CodeFileInvalid,
			func(t *testing.T, message string) {
				require.True(t, strings.HasPrefix(message, "expected: row 3: "), message)
				require.Contains(t, message, `"abc"`)
			}},
		{"a bank file with more rows than allowed fails the job as too large",
			bankCSV, expectedCSV, statement.Options{MaxRows: 2}, reconjob.CodeFileTooLarge,
			func(t *testing.T, message string) { require.True(t, strings.HasPrefix(message, "bank: "), message) }},
		{"an expected file with more rows than allowed fails the job as too large",
			"Date,Description,Amount\n2024-03-01,INV-2024-001,1250.50\n", expectedCSV, statement.Options{MaxRows: 2}, reconjob.CodeFileTooLarge,
			func(t *testing.T, message string) { require.True(t, strings.HasPrefix(message, "expected: "), message) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupService(t)
			ctx := t.Context()
			b.svc.Limits = tc.limits
			j := b.create(t, fileOf("bank.csv", []byte(tc.bank)), fileOf("expected.csv", []byte(tc.expected)))

			require.NoError(t, b.svc.Process(ctx, j.ID, 1, false), "a problem with the files is not retried")

			got, _, err := b.svc.Results(ctx, b.account.ID, account.Production, j.ID)
			require.ErrorIs(t, err, reconjob.ErrNotReady, "a failed job has no results")
			require.Equal(t, reconjob.StatusFailed, got.Status)
			require.NotNil(t, got.CompletedAt)
			require.NotNil(t, got.Error)
			require.Equal(t, tc.code, got.Error.Code)
			tc.check(t, got.Error.Message)
			require.Zero(t, b.count(t, `SELECT count(*) FROM recon_results`))
		})
	}
}

func TestServiceCreateHonoursTheIdempotencyKey(t *testing.T) {
	t.Parallel()
	bank := fileOf("march.csv", []byte(bankCSV))
	exp := fileOf("invoices.csv", []byte(expectedCSV))

	t.Run("the same key with the same files replays the first job and charges once", func(t *testing.T) {
		t.Parallel()
		b := setupService(t)
		ctx := t.Context()
		first, err := b.svc.Create(ctx, b.request(bank, exp, "key-1"))
		require.NoError(t, err)
		require.False(t, first.Replayed)
		// The first job finishes in between: the replay still answers as the first time.
		require.NoError(t, b.svc.Process(ctx, first.Job.ID, 1, false))

		b.now = b.now.Add(time.Hour)
		again, err := b.svc.Create(ctx, b.request(bank, exp, "key-1"))
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, first.Job.ID, again.Job.ID)
		require.Equal(t, reconjob.StatusProcessing, again.Job.Status)
		require.Nil(t, again.Job.CompletedAt)

		q, err := b.svc.Quota(ctx, b.account.ID, account.Production)
		require.NoError(t, err)
		require.Equal(t, 1, q.Used)
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM recon_jobs`))
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job`))
	})

	t.Run("the same key with other files is refused", func(t *testing.T) {
		t.Parallel()
		b := setupService(t)
		ctx := t.Context()
		_, err := b.svc.Create(ctx, b.request(bank, exp, "key-1"))
		require.NoError(t, err)
		for _, tc := range []struct {
			name string
			req  reconjob.NewJob
		}{
			{"other content", b.request(fileOf("march.csv", []byte(bankCSV+"2024-03-08,MORE,1.00\n")), exp, "key-1")},
			{"another file name", b.request(fileOf("april.csv", []byte(bankCSV)), exp, "key-1")},
			{"the files swapped", b.request(exp, bank, "key-1")},
		} {
			_, err := b.svc.Create(ctx, tc.req)
			require.ErrorIs(t, err, idempotency.ErrKeyReused, tc.name)
		}
		sandbox := b.request(bank, exp, "key-1")
		sandbox.Env = account.Sandbox
		acc, err := b.svc.Create(ctx, sandbox)
		require.NoError(t, err, "the sandbox keeps its own keys")
		require.False(t, acc.Replayed)
	})

	t.Run("a refused request releases its key, so that the corrected retry is accepted", func(t *testing.T) {
		t.Parallel()
		b := setupService(t)
		ctx := t.Context()
		bad := fileOf("invoices.csv", []byte("invoice_number\nINV-1\n"))
		_, err := b.svc.Create(ctx, b.request(bank, bad, "key-1"))
		require.ErrorIs(t, err, reconjob.ErrFileInvalid)
		require.Zero(t, b.count(t, `SELECT count(*) FROM idempotency_keys`))

		acc, err := b.svc.Create(ctx, b.request(bank, exp, "key-1"))
		require.NoError(t, err)
		require.False(t, acc.Replayed)
		again, err := b.svc.Create(ctx, b.request(bank, exp, "key-1"))
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, acc.Job.ID, again.Job.ID)
	})

	t.Run("a request while the key is held by one in progress is a conflict", func(t *testing.T) {
		t.Parallel()
		b := setupService(t)
		ctx := t.Context()
		req := b.request(bank, exp, "key-1")
		// Another process holds the key for the same request, not yet done.
		_, err := b.svc.Create(ctx, req)
		require.NoError(t, err)
		_, err = b.db.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'pending', resource_id = NULL`)
		require.NoError(t, err)
		_, err = b.svc.Create(ctx, req)
		require.ErrorIs(t, err, idempotency.ErrConflict)

		b.now = b.now.Add(idempotency.PendingTTL)
		acc, err := b.svc.Create(ctx, req)
		require.NoError(t, err, "a key pending past PendingTTL is taken over")
		require.False(t, acc.Replayed)
	})
}

func TestServiceQuotaIsThePlansMonthlyLimit(t *testing.T) {
	t.Parallel()
	lastInstant := time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)
	march := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		plan  account.ReconPlan
		env   account.Environment
		now   time.Time
		limit int
		reset time.Time
	}{
		{"a standard account has 1000 jobs a month in production", account.ReconStandard, account.Production, lastInstant, reconjob.QuotaStandard, march},
		{"a standard account has 100 jobs a month in the sandbox", account.ReconStandard, account.Sandbox, lastInstant, reconjob.QuotaSandbox, march},
		{"a pro account has 20000 jobs a month in production", account.ReconPro, account.Production, lastInstant, reconjob.QuotaPro, march},
		{"a pro account has 100 jobs a month in the sandbox", account.ReconPro, account.Sandbox, lastInstant, reconjob.QuotaSandbox, march},
		{"the quota resets at the first instant of the next month in UTC, whatever the clock's zone",
			account.ReconStandard, account.Production, time.Date(2024, 12, 31, 23, 30, 0, 0, time.FixedZone("UTC-5", -5*3600)), reconjob.QuotaStandard,
			time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupService(t)
			ctx := t.Context()
			acc, err := postgres.NewAccountStore(b.db).CreateAccount(ctx, account.Account{Name: "Planned", ReconPlan: tc.plan})
			require.NoError(t, err)
			b.now = tc.now
			q, err := b.svc.Quota(ctx, acc.ID, tc.env)
			require.NoError(t, err)
			require.Equal(t, reconjob.Quota{Plan: tc.plan, Env: tc.env, Limit: tc.limit, Used: 0, ResetAt: tc.reset}, q)
			require.Equal(t, tc.limit, q.Remaining())

			req := reconjob.NewJob{AccountID: acc.ID, Env: tc.env, Bank: fileOf("march.csv", []byte(bankCSV)), Expected: fileOf("invoices.csv", []byte(expectedCSV))}
			_, err = b.svc.Create(ctx, req)
			require.NoError(t, err)
			q, err = b.svc.Quota(ctx, acc.ID, tc.env)
			require.NoError(t, err)
			require.Equal(t, 1, q.Used)
			require.Equal(t, tc.limit-1, q.Remaining())

			b.now = tc.reset
			q, err = b.svc.Quota(ctx, acc.ID, tc.env)
			require.NoError(t, err)
			require.Zero(t, q.Used, "the next month starts at zero")
		})
	}
}

func TestServiceCreateRefusesAJobPastTheQuota(t *testing.T) {
	t.Parallel()
	b := setupService(t)
	ctx := t.Context()
	// The sandbox's 100 jobs, used up but one.
	start, reset := quota.Period(b.now)
	_, err := b.db.ExecContext(ctx, `INSERT INTO job_quota (account_id, scope, period, used) VALUES ($1, $2, $3, $4)`,
		b.account.ID, reconjob.QuotaScope(account.Sandbox), start, reconjob.QuotaSandbox-1)
	require.NoError(t, err)
	req := b.request(fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte(expectedCSV)), "")
	req.Env = account.Sandbox

	_, err = b.svc.Create(ctx, req)
	require.NoError(t, err, "the last job of the month")
	_, err = b.svc.Create(ctx, req)
	var qe *quota.Error
	require.ErrorAs(t, err, &qe)
	require.Equal(t, quota.Error{Limit: reconjob.QuotaSandbox, ResetAt: reset}, *qe)
	_, err = b.svc.Create(ctx, b.request(req.Bank, req.Expected, ""))
	require.NoError(t, err, "production counts apart")
}

func TestServiceProcessDropsTheOutcomeOfAStaleAttempt(t *testing.T) {
	t.Parallel()
	b := setupService(t)
	ctx := t.Context()
	j := b.create(t, fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte(expectedCSV)))
	require.NoError(t, b.svc.Process(ctx, j.ID, 2, false))
	_, before, err := b.store.Results(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	completed := b.get(t, j.ID)

	b.now = b.now.Add(time.Hour)
	require.NoError(t, b.svc.Process(ctx, j.ID, 1, false), "the stale attempt returns nil, so the queue does not retry it")
	require.NoError(t, b.svc.Process(ctx, j.ID, 1, true), "also as the final attempt")
	require.NoError(t, b.svc.Process(ctx, uuid.New(), 1, true), "an unknown job is skipped")

	_, after, err := b.store.Results(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, before, after)
	require.Equal(t, completed, b.get(t, j.ID))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM recon_results`))
	require.Equal(t, 2, b.count(t, `SELECT attempt FROM recon_jobs WHERE id = $1`, j.ID), "the stale attempt did not claim the job back")
}

func TestServiceProcessNeverLeavesAJobProcessingAfterItsFinalAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		final      bool
		wantStatus reconjob.Status
	}{
		{"an attempt that cannot read the files returns the error to be retried", false, reconjob.StatusProcessing},
		{"the final attempt that cannot read the files fails the job as a server error", true, reconjob.StatusFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupService(t)
			ctx := t.Context()
			j := b.create(t, fileOf("march.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte(expectedCSV)))
			// The bank file's chunks are lost: reading it reports its size does not match.
			_, err := b.db.ExecContext(ctx, `DELETE FROM upload_chunks WHERE upload_id = (SELECT bank_upload FROM recon_jobs WHERE id = $1)`, j.ID)
			require.NoError(t, err)

			err = b.svc.Process(ctx, j.ID, 1, tc.final)
			require.Error(t, err)
			require.Contains(t, err.Error(), "read bank file")

			got := b.get(t, j.ID)
			require.Equal(t, tc.wantStatus, got.Status)
			if !tc.final {
				require.Nil(t, got.Error)
				require.Nil(t, got.CompletedAt)
				return
			}
			require.Equal(t, &reconjob.Failure{Code: reconjob.CodeServerError, Message: "the job could not be processed; create it again"}, got.Error)
			require.NotNil(t, got.CompletedAt)
		})
	}
}

// TestServiceListPagesAnEnvironmentsJobsNewestFirst: the list holds one environment's jobs of
// the account, newest first, filtered by status, either file's name (without case) and creation
// time, a page at a time without skipping or repeating a job.
func TestServiceListPagesAnEnvironmentsJobsNewestFirst(t *testing.T) {
	t.Parallel()
	b := setupService(t)
	ctx := t.Context()
	start := b.now
	var created []reconjob.Job
	for i := range 5 {
		b.now = start.Add(time.Duration(i) * time.Minute)
		created = append(created, b.create(t, fileOf(fmt.Sprintf("march-%d.csv", i), []byte(bankCSV)), fileOf("Invoices.csv", []byte(expectedCSV))))
	}
	req := b.request(fileOf("sandbox.csv", []byte(bankCSV)), fileOf("invoices.csv", []byte(expectedCSV)), "")
	req.Env = account.Sandbox
	_, err := b.svc.Create(ctx, req)
	require.NoError(t, err)
	require.NoError(t, b.svc.Process(ctx, created[1].ID, 1, false))
	other, err := postgres.NewAccountStore(b.db).CreateAccount(ctx, account.Account{Name: "Other"})
	require.NoError(t, err)

	ids := func(jobs []reconjob.Job) []uuid.UUID {
		out := make([]uuid.UUID, len(jobs))
		for i, j := range jobs {
			out[i] = j.ID
		}
		return out
	}
	completed := reconjob.StatusCompleted
	at := func(i int) *time.Time {
		t := start.Add(time.Duration(i) * time.Minute).Truncate(time.Microsecond)
		return &t
	}
	for _, tc := range []struct {
		name    string
		account uuid.UUID
		q       reconjob.ListQuery
		want    []reconjob.Job
	}{
		{"everything in production", b.account.ID, reconjob.ListQuery{Env: account.Production},
			[]reconjob.Job{created[4], created[3], created[2], created[1], created[0]}},
		{"completed", b.account.ID, reconjob.ListQuery{Env: account.Production, Status: &completed}, []reconjob.Job{created[1]}},
		{"a bank file's name, any case", b.account.ID, reconjob.ListQuery{Env: account.Production, FileName: "MARCH-3"}, []reconjob.Job{created[3]}},
		{"the expected file's name", b.account.ID, reconjob.ListQuery{Env: account.Production, FileName: "invoices"},
			[]reconjob.Job{created[4], created[3], created[2], created[1], created[0]}},
		{"a name with a LIKE wildcard is text", b.account.ID, reconjob.ListQuery{Env: account.Production, FileName: "march_"}, nil},
		{"created from, and before", b.account.ID, reconjob.ListQuery{Env: account.Production, CreatedAfter: at(1), CreatedBefore: at(3)},
			[]reconjob.Job{created[2], created[1]}},
		{"another account's", other.ID, reconjob.ListQuery{Env: account.Production}, nil},
	} {
		got, next, err := b.svc.List(ctx, tc.account, tc.q)
		require.NoError(t, err, tc.name)
		require.Nil(t, next, tc.name)
		require.Equal(t, ids(tc.want), ids(got), tc.name)
	}
	sandbox, _, err := b.svc.List(ctx, b.account.ID, reconjob.ListQuery{Env: account.Sandbox})
	require.NoError(t, err)
	require.Len(t, sandbox, 1)
	require.Equal(t, "sandbox.csv", sandbox[0].BankFile)
	perDay, err := b.svc.JobsPerDay(ctx, b.account.ID, account.Production)
	require.NoError(t, err)
	require.Len(t, perDay, 15, "1 to 15 March")
	require.Equal(t, 5, perDay[14])
	perDay, err = b.svc.JobsPerDay(ctx, b.account.ID, account.Sandbox)
	require.NoError(t, err)
	require.Equal(t, 1, perDay[14], "each environment counts its own")

	var paged []reconjob.Job
	q := reconjob.ListQuery{Env: account.Production, Limit: 2}
	for {
		page, next, err := b.svc.List(ctx, b.account.ID, q)
		require.NoError(t, err)
		paged = append(paged, page...)
		if next == nil {
			break
		}
		q.After = next
	}
	require.Equal(t, []uuid.UUID{created[4].ID, created[3].ID, created[2].ID, created[1].ID, created[0].ID}, ids(paged))
}
