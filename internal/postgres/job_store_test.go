package postgres_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/attempt"
	"github.com/statementmatch/service/internal/idempotency"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/queue"
	"github.com/statementmatch/service/internal/quota"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/upload"
)

// jobBundle is a job store over a fresh database, with an insert-only queue and one account.
type jobBundle struct {
	db      *sqlx.DB
	url     string // db's
	store   *postgres.JobStore
	account account.Account
	now     time.Time
}

func setupJobStore(t *testing.T) *jobBundle {
	t.Helper()
	db, url := pgtest.NewURL(t)
	q, err := queue.NewEnqueuer(db.DB)
	require.NoError(t, err)
	acc, err := postgres.NewAccountStore(db).CreateAccount(t.Context(), account.Account{Name: "Acme"})
	require.NoError(t, err)
	return &jobBundle{
		db:      db,
		url:     url,
		store:   postgres.NewJobStore(db, q),
		account: acc,
		now:     time.Date(2024, 3, 15, 10, 30, 0, 0, time.UTC),
	}
}

// otherAccount creates a second account.
func (b *jobBundle) otherAccount(t *testing.T) account.Account {
	t.Helper()
	acc, err := postgres.NewAccountStore(b.db).CreateAccount(t.Context(), account.Account{Name: "Other"})
	require.NoError(t, err)
	return acc
}

// newJob is a new processing job of acc in env.
func (b *jobBundle) newJob(acc account.Account, env account.Environment) reconjob.Job {
	return reconjob.Job{ID: uuid.New(), AccountID: acc.ID, Env: env, Status: reconjob.StatusProcessing,
		BankFile: "bank.csv", ExpectedFile: "expected.csv", CreatedAt: b.now}
}

// charge is the quota charge of the production scope in the bundle's month.
func (b *jobBundle) charge(limit int) quota.Charge {
	start, reset := quota.Period(b.now)
	return quota.Charge{Scope: reconjob.QuotaScope(account.Production), Period: start, Limit: limit, ResetAt: reset}
}

// create stores a small job of the bundle's account in production and returns it.
func (b *jobBundle) create(t *testing.T) reconjob.Job {
	t.Helper()
	j := b.newJob(b.account, account.Production)
	require.NoError(t, b.store.Create(t.Context(), j, fileOf("bank.csv", []byte("Date,Description,Amount\n")),
		fileOf("expected.csv", []byte("reference,amount\n")), b.charge(1000), idempotency.Key{}))
	return j
}

// count returns the rows of a query such as SELECT count(*) FROM ...
func (b *jobBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.GetContext(t.Context(), &n, query, args...))
	return n
}

// fileOf is an upload of data, read from memory.
func fileOf(name string, data []byte) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), SHA256: sha256.Sum256(data),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

func TestJobStoreCreateStoresTheJobItsFilesAndItsQueuedWork(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	bank := randomBytes(t, 5<<19) // 2.5 MiB: two full chunks and a half one
	exp := []byte("invoice_number,amount\nINV-1,10.00\n")
	j := b.newJob(b.account, account.Production)
	j.BankFile, j.ExpectedFile = "März.xlsx", "expected.csv"
	require.NoError(t, b.store.Create(ctx, j, fileOf("März.xlsx", bank), fileOf("expected.csv", exp), b.charge(1000), idempotency.Key{}))

	got, err := b.store.Get(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, j.ID, got.ID)
	require.Equal(t, b.account.ID, got.AccountID)
	require.Equal(t, account.Production, got.Env)
	require.Equal(t, reconjob.StatusProcessing, got.Status)
	require.Equal(t, "März.xlsx", got.BankFile)
	require.Equal(t, "expected.csv", got.ExpectedFile)
	require.True(t, got.CreatedAt.Equal(b.now), "created at %s", got.CreatedAt)
	require.Nil(t, got.CompletedAt)
	require.Nil(t, got.Error)

	for _, tc := range []struct {
		field  string
		want   []byte
		chunks int
	}{
		{"bank", bank, 10},
		{"expected", exp, 1},
	} {
		data, err := b.store.ReadFile(ctx, j.ID, tc.field)
		require.NoError(t, err, tc.field)
		require.Equal(t, len(tc.want), len(data), tc.field)
		require.True(t, bytes.Equal(tc.want, data), "the %s file comes back byte for byte", tc.field)
		require.Equal(t, sha256.Sum256(tc.want), sha256.Sum256(data), tc.field)
		column := tc.field + "_upload"
		require.Equal(t, tc.chunks, b.count(t, `SELECT count(*) FROM upload_chunks c JOIN recon_jobs j ON c.upload_id = j.`+column+` WHERE j.id = $1`, j.ID),
			"the %s file is stored in pieces of at most 256 KiB", tc.field)
	}
	var digest []byte
	require.NoError(t, b.db.GetContext(ctx, &digest, `SELECT u.sha256 FROM uploads u JOIN recon_jobs j ON u.id = j.bank_upload WHERE j.id = $1`, j.ID))
	want := sha256.Sum256(bank)
	require.Equal(t, want[:], digest)

	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'reconcile'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job r JOIN recon_jobs j ON j.queue_job_id = r.id WHERE j.id = $1 AND r.args->>'job_id' = $2`,
		j.ID, j.ID.String()), "the queued work names the job and the job row names it")

	_, err = b.store.ReadFile(ctx, uuid.New(), "bank")
	require.ErrorIs(t, err, reconjob.ErrNotFound)
}

func TestJobStoreCreateLeavesNothingBehindWhenItFails(t *testing.T) {
	t.Parallel()
	good := []byte("Date,Description,Amount\n2024-03-01,INV-1,10.00\n")
	tests := []struct {
		name     string
		bank     upload.File
		expected upload.File
	}{
		{"a bank file shorter than its stated size", func() upload.File {
			f := fileOf("bank.csv", good)
			f.Size++
			return f
		}(), fileOf("expected.csv", good)},
		{"an expected file whose digest is not its content's (after the bank file is stored)", fileOf("bank.csv", good), func() upload.File {
			f := fileOf("expected.csv", good)
			f.SHA256[0] ^= 0xff
			return f
		}()},
		{"an expected file that cannot be opened", fileOf("bank.csv", good), upload.File{Name: "expected.csv", Size: 1,
			Open: func() (io.ReadCloser, error) { return nil, errors.New("spool file gone") }}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupJobStore(t)
			ctx := t.Context()
			k := idempotency.Key{AccountID: b.account.ID, Scope: reconjob.QuotaScope(account.Production), Key: "k-1", Hash: []byte("request")}
			_, claimed, err := b.store.ClaimKey(ctx, k, b.now)
			require.NoError(t, err)
			require.True(t, claimed)
			j := b.newJob(b.account, account.Production)
			k.ResourceID = j.ID

			require.Error(t, b.store.Create(ctx, j, tc.bank, tc.expected, b.charge(1000), k))

			for _, table := range []string{"recon_jobs", "uploads", "upload_chunks", "job_quota", "river_job"} {
				require.Zero(t, b.count(t, `SELECT count(*) FROM `+table), "no row is left in %s", table)
			}
			used, err := b.store.QuotaUsed(ctx, b.account.ID, reconjob.QuotaScope(account.Production), b.charge(0).Period)
			require.NoError(t, err)
			require.Zero(t, used)
			rec, claimed, err := b.store.ClaimKey(ctx, k, b.now)
			require.NoError(t, err)
			require.False(t, claimed)
			require.False(t, rec.Done, "the key is still pending, not done")
		})
	}
}

func TestJobStoreQuotaRefusesTheJobPastTheLimit(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	charge := b.charge(3)
	for i := range 3 {
		require.NoError(t, b.store.Create(ctx, b.newJob(b.account, account.Production), fileOf("b", []byte("b")), fileOf("e", []byte("e")), charge, idempotency.Key{}), "job %d", i+1)
	}
	refused := b.newJob(b.account, account.Production)
	err := b.store.Create(ctx, refused, fileOf("b", []byte("b")), fileOf("e", []byte("e")), charge, idempotency.Key{})
	var qe *quota.Error
	require.ErrorAs(t, err, &qe)
	require.ErrorIs(t, err, quota.ErrExceeded)
	require.Equal(t, 3, qe.Limit)
	require.True(t, qe.ResetAt.Equal(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)), "resets at %s", qe.ResetAt)
	_, err = b.store.Get(ctx, b.account.ID, account.Production, refused.ID)
	require.ErrorIs(t, err, reconjob.ErrNotFound, "the refused job is not stored")
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM river_job`), "the refused job is not queued")
	require.Equal(t, 6, b.count(t, `SELECT count(*) FROM uploads`), "the refused job's files are not stored")

	other := b.otherAccount(t)
	nextMonth, nextReset := quota.Period(charge.ResetAt)
	tests := []struct {
		name    string
		account uuid.UUID
		scope   string
		period  time.Time
		want    int
	}{
		{"the charged scope and month count the accepted jobs only", b.account.ID, charge.Scope, charge.Period, 3},
		{"the sandbox scope counts apart", b.account.ID, reconjob.QuotaScope(account.Sandbox), charge.Period, 1},
		{"the next month counts apart", b.account.ID, charge.Scope, nextMonth, 1},
		{"another account counts apart", other.ID, charge.Scope, charge.Period, 1},
	}
	// One more job in each other count: none of them is full.
	sandbox := b.newJob(b.account, account.Sandbox)
	require.NoError(t, b.store.Create(ctx, sandbox, fileOf("b", []byte("b")), fileOf("e", []byte("e")),
		quota.Charge{Scope: reconjob.QuotaScope(account.Sandbox), Period: charge.Period, Limit: 3, ResetAt: charge.ResetAt}, idempotency.Key{}))
	require.NoError(t, b.store.Create(ctx, b.newJob(b.account, account.Production), fileOf("b", []byte("b")), fileOf("e", []byte("e")),
		quota.Charge{Scope: charge.Scope, Period: nextMonth, Limit: 3, ResetAt: nextReset}, idempotency.Key{}))
	require.NoError(t, b.store.Create(ctx, b.newJob(other, account.Production), fileOf("b", []byte("b")), fileOf("e", []byte("e")), charge, idempotency.Key{}))
	for _, tc := range tests {
		used, err := b.store.QuotaUsed(ctx, tc.account, tc.scope, tc.period)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, used, tc.name)
	}

	used, err := b.store.QuotaUsed(ctx, uuid.New(), charge.Scope, charge.Period)
	require.NoError(t, err)
	require.Zero(t, used, "an account with no jobs has used nothing")
}

func TestJobStoreQuotaIsExactUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	const tries, limit = 20, 10
	charge := b.charge(limit)
	errs := make([]error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			errs[i] = b.store.Create(ctx, b.newJob(b.account, account.Production), fileOf("b", []byte("b")), fileOf("e", []byte("e")), charge, idempotency.Key{})
		})
	}
	wg.Wait()
	var accepted, refused int
	for _, err := range errs {
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, quota.ErrExceeded):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	require.Equal(t, limit, accepted)
	require.Equal(t, tries-limit, refused)
	used, err := b.store.QuotaUsed(ctx, b.account.ID, charge.Scope, charge.Period)
	require.NoError(t, err)
	require.Equal(t, limit, used)
	require.Equal(t, limit, b.count(t, `SELECT count(*) FROM recon_jobs`))
	require.Equal(t, limit, b.count(t, `SELECT count(*) FROM river_job`))
}

func TestJobStoreShowsAJobOnlyToItsAccountInItsEnvironment(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	j := b.create(t)
	other := b.otherAccount(t)

	tests := []struct {
		name    string
		account uuid.UUID
		env     account.Environment
		id      uuid.UUID
		want    error
	}{
		{"its account in its environment finds it", b.account.ID, account.Production, j.ID, nil},
		{"its account in the other environment does not", b.account.ID, account.Sandbox, j.ID, reconjob.ErrNotFound},
		{"another account does not", other.ID, account.Production, j.ID, reconjob.ErrNotFound},
		{"an unknown id is not found", b.account.ID, account.Production, uuid.New(), reconjob.ErrNotFound},
	}
	for _, tc := range tests {
		got, err := b.store.Get(ctx, tc.account, tc.env, tc.id)
		require.ErrorIs(t, err, tc.want, "Get: %s", tc.name)
		gotR, body, errR := b.store.Results(ctx, tc.account, tc.env, tc.id)
		require.ErrorIs(t, errR, tc.want, "Results: %s", tc.name)
		if tc.want == nil {
			require.Equal(t, j.ID, got.ID)
			require.Equal(t, j.ID, gotR.ID)
			require.Equal(t, reconjob.StatusProcessing, gotR.Status, "a processing job has no results yet")
			require.Empty(t, body)
		}
	}
}

func TestJobStoreKeepsIdempotencyKeysPerAccountAndScopeForTheirLifetime(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	other := b.otherAccount(t)
	scope := reconjob.QuotaScope(account.Production)
	key := func(name, hash string) idempotency.Key {
		return idempotency.Key{AccountID: b.account.ID, Scope: scope, Key: name, Hash: []byte(hash)}
	}
	claim := func(k idempotency.Key, at time.Time) (idempotency.Record, bool) {
		t.Helper()
		rec, claimed, err := b.store.ClaimKey(ctx, k, at)
		require.NoError(t, err)
		return rec, claimed
	}
	createWith := func(k idempotency.Key) (reconjob.Job, error) {
		j := b.newJob(b.account, account.Production)
		k.ResourceID = j.ID
		return j, b.store.Create(ctx, j, fileOf("b", []byte("b")), fileOf("e", []byte("e")), b.charge(1000), k)
	}

	t.Run("the first request claims a key; a second one finds it pending", func(t *testing.T) {
		k := key("first", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		rec, claimed := claim(key("first", "h2"), b.now.Add(time.Second))
		require.False(t, claimed)
		require.False(t, rec.Done)
		require.Equal(t, []byte("h1"), rec.Hash, "the record keeps the first request's hash")
		require.True(t, rec.CreatedAt.Equal(b.now))
	})

	t.Run("a created job marks its key done with the job", func(t *testing.T) {
		k := key("done", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		j, err := createWith(k)
		require.NoError(t, err)
		rec, claimed := claim(k, b.now.Add(time.Hour))
		require.False(t, claimed)
		require.True(t, rec.Done)
		require.Equal(t, j.ID, rec.ResourceID)
		require.Equal(t, []byte("h1"), rec.Hash)

		require.NoError(t, b.store.ReleaseKey(ctx, k))
		rec, claimed = claim(k, b.now.Add(time.Hour))
		require.False(t, claimed, "releasing a done key does nothing")
		require.True(t, rec.Done)
	})

	t.Run("a released pending key can be claimed again, but only by its own request", func(t *testing.T) {
		k := key("released", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		require.NoError(t, b.store.ReleaseKey(ctx, key("released", "h2")))
		_, claimed = claim(k, b.now)
		require.False(t, claimed, "another request's release leaves the key alone")
		require.NoError(t, b.store.ReleaseKey(ctx, k))
		_, claimed = claim(key("released", "h3"), b.now)
		require.True(t, claimed)
	})

	t.Run("a key pending for PendingTTL is taken over, and its first request can no longer use it", func(t *testing.T) {
		k := key("abandoned", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		_, claimed = claim(key("abandoned", "h2"), b.now.Add(idempotency.PendingTTL-time.Second))
		require.False(t, claimed, "not yet")
		_, claimed = claim(key("abandoned", "h2"), b.now.Add(idempotency.PendingTTL))
		require.True(t, claimed)

		j, err := createWith(k)
		require.ErrorIs(t, err, idempotency.ErrConflict, "the first request lost its key")
		_, err = b.store.Get(ctx, b.account.ID, account.Production, j.ID)
		require.ErrorIs(t, err, reconjob.ErrNotFound, "and its job was not stored")
		rec, claimed := claim(k, b.now.Add(idempotency.PendingTTL))
		require.False(t, claimed)
		require.Equal(t, []byte("h2"), rec.Hash)
		require.False(t, rec.Done)
	})

	t.Run("a done key is remembered for KeyTTL, then taken over", func(t *testing.T) {
		k := key("expired", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		_, err := createWith(k)
		require.NoError(t, err)
		rec, claimed := claim(key("expired", "h2"), b.now.Add(idempotency.KeyTTL-time.Second))
		require.False(t, claimed, "not yet")
		require.True(t, rec.Done)
		_, claimed = claim(key("expired", "h2"), b.now.Add(idempotency.KeyTTL))
		require.True(t, claimed)
		rec, claimed = claim(key("expired", "h2"), b.now.Add(idempotency.KeyTTL))
		require.False(t, claimed)
		require.False(t, rec.Done, "the new request holds it pending")
		require.Equal(t, uuid.Nil, rec.ResourceID)
		require.Equal(t, []byte("h2"), rec.Hash)
	})

	t.Run("keys are per account and per scope", func(t *testing.T) {
		k := key("shared", "h1")
		_, claimed := claim(k, b.now)
		require.True(t, claimed)
		for _, tc := range []struct {
			name string
			k    idempotency.Key
		}{
			{"another account", idempotency.Key{AccountID: other.ID, Scope: scope, Key: "shared", Hash: []byte("h1")}},
			{"another scope", idempotency.Key{AccountID: b.account.ID, Scope: reconjob.QuotaScope(account.Sandbox), Key: "shared", Hash: []byte("h1")}},
		} {
			_, claimed := claim(tc.k, b.now)
			require.True(t, claimed, "%s claims the same key apart", tc.name)
		}
	})
}

func TestJobStoreOnlyTheLatestAttemptFinishesAJob(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	j := b.create(t)
	done := b.now.Add(time.Minute)
	claim := func(attempt int) func() error {
		return func() error {
			got, err := b.store.Claim(ctx, j.ID, attempt)
			if err == nil {
				require.Equal(t, j.ID, got.ID)
				require.Equal(t, reconjob.StatusProcessing, got.Status)
			}
			return err
		}
	}
	complete := func(attempt int, body string) func() error {
		return func() error { return b.store.Complete(ctx, j.ID, attempt, []byte(body), done) }
	}
	fail := func(attempt int) func() error {
		return func() error {
			return b.store.Fail(ctx, j.ID, attempt, reconjob.Failure{Code: reconjob.CodeServerError, Message: "late"}, done)
		}
	}
	results := func() int { return b.count(t, `SELECT count(*) FROM recon_results WHERE job_id = $1`, j.ID) }

	steps := []struct {
		name        string
		do          func() error
		want        error
		wantResults int
	}{
		{"attempt 1 claims the new job", claim(1), nil, 0},
		{"attempt 1 cannot claim it again", claim(1), attempt.ErrStale, 0},
		{"attempt 2 takes it over", claim(2), nil, 0},
		{"attempt 1 cannot claim it back", claim(1), attempt.ErrStale, 0},
		{"attempt 1 can no longer complete it", complete(1, `{"stale":true}`), attempt.ErrStale, 0},
		{"attempt 1 can no longer fail it", fail(1), attempt.ErrStale, 0},
		{"attempt 2 completes it", complete(2, `{"matched":[]}`), nil, 1},
		{"attempt 2 cannot complete it twice", complete(2, `{"again":true}`), attempt.ErrStale, 1},
		{"attempt 2 cannot fail it once completed", fail(2), attempt.ErrStale, 1},
		{"attempt 3 cannot claim a completed job", claim(3), attempt.ErrStale, 1},
	}
	for _, s := range steps {
		err := s.do()
		if s.want == nil {
			require.NoError(t, err, s.name)
		} else {
			require.ErrorIs(t, err, s.want, s.name)
		}
		require.Equal(t, s.wantResults, results(), "results rows after: %s", s.name)
	}

	got, body, err := b.store.Results(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, reconjob.StatusCompleted, got.Status)
	require.NotNil(t, got.CompletedAt)
	require.True(t, got.CompletedAt.Equal(done))
	require.Nil(t, got.Error)
	require.JSONEq(t, `{"matched":[]}`, string(body))

	_, err = b.store.Claim(ctx, uuid.New(), 1)
	require.ErrorIs(t, err, attempt.ErrStale, "an unknown job cannot be claimed")
}

// TestJobStoreResultsPartReadsAnyPartOfALargeDocument stores a results document large enough
// to be compressed and kept out of line (TOAST), and reads it back in parts of every kind:
// from the start, across chunk edges, the end, past the end.
func TestJobStoreResultsPartReadsAnyPartOfALargeDocument(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	j := b.create(t)
	_, err := b.store.ResultsPart(ctx, j.ID, 0, 10)
	require.ErrorIs(t, err, reconjob.ErrNotFound, "no results before the job completes")

	var doc strings.Builder
	doc.WriteString(`{"matched":[`)
	for i := range 50_000 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"reference":"INV-%06d","amount":%d.%02d}`, i, i*7919%100000, i%100)
	}
	doc.WriteString(`]}`)
	body := doc.String()
	_, err = b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	require.NoError(t, b.store.Complete(ctx, j.ID, 1, []byte(body), b.now))

	for _, p := range []struct{ off, n int64 }{
		{0, 10}, {0, int64(len(body))}, {1999, 4001}, {int64(len(body)) - 5, 100}, {int64(len(body)), 10}, {int64(len(body)) + 7, 10},
	} {
		part, err := b.store.ResultsPart(ctx, j.ID, p.off, p.n)
		require.NoError(t, err)
		want := body[min(p.off, int64(len(body))):min(p.off+p.n, int64(len(body)))]
		require.Equal(t, want, string(part), "part %+v", p)
	}
}

func TestJobStoreFailStoresWhyTheJobFailed(t *testing.T) {
	t.Parallel()
	b := setupJobStore(t)
	ctx := t.Context()
	j := b.create(t)
	done := b.now.Add(time.Minute)
	_, err := b.store.Claim(ctx, j.ID, 1)
	require.NoError(t, err)
	f := reconjob.Failure{Code: reconjob.CodeFileInvalid, Message: `bank: row 3: amount "abc" is not a decimal number`}
	require.NoError(t, b.store.Fail(ctx, j.ID, 1, f, done))

	got, err := b.store.Get(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, reconjob.StatusFailed, got.Status)
	require.Equal(t, &f, got.Error)
	require.NotNil(t, got.CompletedAt)
	require.True(t, got.CompletedAt.Equal(done))
	gotR, body, err := b.store.Results(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, reconjob.StatusFailed, gotR.Status)
	require.Empty(t, body)

	for _, tc := range []struct {
		name string
		err  error
	}{
		{"the failing attempt cannot fail it again", b.store.Fail(ctx, j.ID, 1, reconjob.Failure{Code: reconjob.CodeServerError, Message: "x"}, done)},
		{"the failing attempt cannot complete it", b.store.Complete(ctx, j.ID, 1, []byte(`{}`), done)},
		{"a newer attempt cannot claim it", func() error { _, err := b.store.Claim(ctx, j.ID, 2); return err }()},
	} {
		require.ErrorIs(t, tc.err, attempt.ErrStale, tc.name)
	}
	got, err = b.store.Get(ctx, b.account.ID, account.Production, j.ID)
	require.NoError(t, err)
	require.Equal(t, &f, got.Error, "the first failure stays")
	require.Zero(t, b.count(t, `SELECT count(*) FROM recon_results`))
}
