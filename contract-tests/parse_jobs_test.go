package contracttests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// allScopes are the scopes of the Parsing API's keys.
var allScopes = []string{"jobs:read", "jobs:write", "webhooks:manage", "export:read", "usage:read"}

// parseCaller is a Parsing API client with one key of one account.
type parseCaller struct {
	pc  *parseclient.ClientWithResponses
	key string
}

// parseCaller creates a key of the account with the scopes given (all when none).
func (s *server) parseCaller(t testing.TB, accountID string, scopes ...string) parseCaller {
	t.Helper()
	_, key := s.newKey(t, accountID, scopes...)
	return parseCaller{pc: parseClient(t, s.ParseURL), key: key}
}

// post sends an upload body; idempotencyKey may be empty.
func (c parseCaller) post(t testing.TB, idempotencyKey, contentType string, body []byte) *parseclient.CreateJobResponse {
	t.Helper()
	var params *parseclient.CreateJobParams
	if idempotencyKey != "" {
		params = &parseclient.CreateJobParams{IdempotencyKey: &idempotencyKey}
	}
	r, err := c.pc.CreateJobWithBodyWithResponse(context.Background(), params, contentType, bytes.NewReader(body), bearer(c.key))
	require.NoError(t, err)
	return r
}

// upload sends one statement file.
func (c parseCaller) upload(t testing.TB, idempotencyKey, name string, content []byte) *parseclient.CreateJobResponse {
	t.Helper()
	ct, body := fileUpload(t, name, content)
	return c.post(t, idempotencyKey, ct, body)
}

// create uploads a statement and requires it accepted.
func (c parseCaller) create(t testing.TB, name string, content []byte) parseclient.Job {
	t.Helper()
	r := c.upload(t, "", name, content)
	require.Equal(t, http.StatusAccepted, r.StatusCode(), "upload of %s: %s", name, r.Body)
	return r.JSON202.Data
}

func (c parseCaller) getJob(t testing.TB, id uuid.UUID) *parseclient.GetJobResponse {
	t.Helper()
	r, err := c.pc.GetJobWithResponse(context.Background(), id, bearer(c.key))
	require.NoError(t, err)
	return r
}

// job reads a job of the caller's account.
func (c parseCaller) job(t testing.TB, id uuid.UUID) parseclient.Job {
	t.Helper()
	r := c.getJob(t, id)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return r.JSON200.Data
}

// wait polls the job until it reaches a final status.
func (c parseCaller) wait(t testing.TB, id uuid.UUID) parseclient.Job {
	t.Helper()
	return c.waitFor(t, id, 30*time.Second)
}

// waitFor polls the job until it is finished, for at most timeout.
func (c parseCaller) waitFor(t testing.TB, id uuid.UUID, timeout time.Duration) parseclient.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		j := c.job(t, id)
		if j.Status != parseclient.JobStatusQueued && j.Status != parseclient.JobStatusProcessing {
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s not finished after %s", id, timeout)
	return parseclient.Job{}
}

func (c parseCaller) results(t testing.TB, id uuid.UUID, params *parseclient.GetJobResultsParams) *parseclient.GetJobResultsResponse {
	t.Helper()
	r, err := c.pc.GetJobResultsWithResponse(context.Background(), id, params, bearer(c.key))
	require.NoError(t, err)
	return r
}

// allResults reads every page of a job's transactions, limit at a time, and checks the pages:
// full pages with a cursor, then a last page with next_cursor null.
func (c parseCaller) allResults(t testing.TB, id uuid.UUID, limit int) []parseclient.Transaction {
	t.Helper()
	var all []parseclient.Transaction
	params := &parseclient.GetJobResultsParams{Limit: &limit}
	for page := 1; ; page++ {
		r := c.results(t, id, params)
		require.Equal(t, http.StatusOK, r.StatusCode(), "page %d: %s", page, r.Body)
		require.Equal(t, id, r.JSON200.Data.JobId)
		all = append(all, r.JSON200.Data.Transactions...)
		if r.JSON200.Data.NextCursor == nil {
			require.LessOrEqual(t, len(r.JSON200.Data.Transactions), limit)
			return all
		}
		require.Len(t, r.JSON200.Data.Transactions, limit, "page %d is full since another follows", page)
		params = &parseclient.GetJobResultsParams{Limit: &limit, Cursor: r.JSON200.Data.NextCursor}
		require.Less(t, page, 10000, "the pages never end")
	}
}

func (c parseCaller) export(t testing.TB, id uuid.UUID, format parseclient.ExportFormat) *parseclient.ExportJobResponse {
	t.Helper()
	r, err := c.pc.ExportJobWithResponse(context.Background(), id, &parseclient.ExportJobParams{Format: &format}, bearer(c.key))
	require.NoError(t, err)
	return r
}

func (c parseCaller) list(t testing.TB, params *parseclient.ListJobsParams) *parseclient.ListJobsResponse {
	t.Helper()
	r, err := c.pc.ListJobsWithResponse(context.Background(), params, bearer(c.key))
	require.NoError(t, err)
	return r
}

// listed returns the jobs of one page, requiring 200.
func (c parseCaller) listed(t testing.TB, params *parseclient.ListJobsParams) parseclient.JobList {
	t.Helper()
	r := c.list(t, params)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return r.JSON200.Data
}

func (c parseCaller) usage(t testing.TB) parseclient.Usage {
	t.Helper()
	r, err := c.pc.GetUsageWithResponse(context.Background(), bearer(c.key))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return r.JSON200.Data
}

func (c parseCaller) status(t testing.TB) parseclient.ServiceStatus {
	t.Helper()
	r, err := c.pc.GetStatusWithResponse(context.Background(), bearer(c.key))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return r.JSON200.Data
}

// requireParseError checks an error answer of the Parsing API: its status, and in the envelope
// the code, a detail for a person without internals, and the answer's request id.
func requireParseError(t testing.TB, resp *http.Response, body []byte, status int, code parseclient.ErrorCode) parseclient.ErrorEnvelope {
	t.Helper()
	require.Equal(t, status, resp.StatusCode, "body: %s", body)
	var e parseclient.ErrorEnvelope
	require.NoError(t, json.Unmarshal(body, &e), "body: %s", body)
	require.False(t, bool(e.Ok))
	require.Equal(t, code, e.Error, "detail: %s", e.Detail)
	require.NotEmpty(t, e.Detail)
	require.Equal(t, resp.Header.Get("X-Request-Id"), e.Meta.RequestId)
	for _, leak := range []string{"goroutine", ".go:", "pq:", "SQLSTATE", "panic", "Schema:"} {
		require.NotContains(t, e.Detail, leak, "the detail shows no internals")
	}
	return e
}

// txView is a transaction in comparable form: amounts as their decimal text, so that the scale
// counts (1250.50 is not 1250.5), and nullable fields as pointers.
type txView struct {
	ID                  string
	Date                string
	ValueDate           *string
	Amount              string
	Currency            *string
	Description         string
	Reference           *string
	CounterpartyName    *string
	CounterpartyAccount *string
	Balance             *string
	Type                string
	Raw                 string
}

func ptrTo[T any](v T) *T { return &v }

func viewOf(tx parseclient.Transaction) txView {
	v := txView{ID: tx.Id.String(), Date: tx.Date.String(), Amount: tx.Amount.String(), Currency: tx.Currency,
		Description: tx.Description, Reference: tx.Reference, CounterpartyName: tx.CounterpartyName,
		CounterpartyAccount: tx.CounterpartyAccount, Type: string(tx.Type), Raw: tx.Raw}
	if tx.ValueDate != nil {
		v.ValueDate = ptrTo(tx.ValueDate.String())
	}
	if tx.Balance != nil {
		v.Balance = ptrTo(tx.Balance.String())
	}
	return v
}

func viewsOf(txs []parseclient.Transaction) []txView {
	vs := make([]txView, len(txs))
	for i, tx := range txs {
		vs[i] = viewOf(tx)
	}
	return vs
}

// csvExportColumns are the columns of a CSV export, in the spec's order.
var csvExportColumns = []string{"id", "date", "value_date", "amount", "currency", "description", "reference",
	"counterparty_name", "counterparty_account", "balance", "type", "raw"}

// formulaStarts are the first characters of a text cell that a spreadsheet would take for a
// formula: a CSV export prefixes such a cell with a quote.
const formulaStarts = "=+-@\t\r"

// csvExportViews reads a CSV export back: one leading ' comes off each text cell (the spec's
// promise), empty cells are nulls. It requires that no text cell starts a formula.
func csvExportViews(t testing.TB, body []byte) []txView {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	require.NoError(t, err, "the export is RFC 4180 CSV")
	require.NotEmpty(t, records)
	require.Equal(t, csvExportColumns, records[0], "the header row names the columns in order")
	nullable := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	text := func(cell string) string {
		if cell != "" {
			require.False(t, strings.ContainsRune(formulaStarts, rune(cell[0])), "text cell %q would start a spreadsheet formula", cell)
		}
		return strings.TrimPrefix(cell, "'")
	}
	views := make([]txView, 0, len(records)-1)
	for _, r := range records[1:] {
		require.Len(t, r, len(csvExportColumns))
		views = append(views, txView{ID: r[0], Date: r[1], ValueDate: nullable(r[2]), Amount: r[3], Currency: nullable(r[4]),
			Description: text(r[5]), Reference: nullable(text(r[6])), CounterpartyName: nullable(text(r[7])),
			CounterpartyAccount: nullable(text(r[8])), Balance: nullable(r[9]), Type: r[10], Raw: text(r[11])})
	}
	return views
}

// crlfAsLF replaces CRLF by LF in the text of the views: encoding/csv (like most CSV readers)
// gives a quoted field's line breaks back as LF, so a raw record with CRLF line ends cannot
// survive a CSV round trip byte for byte.
func crlfAsLF(vs []txView) []txView {
	out := slices.Clone(vs)
	for i := range out {
		out[i].Raw = strings.ReplaceAll(out[i].Raw, "\r\n", "\n")
		out[i].Description = strings.ReplaceAll(out[i].Description, "\r\n", "\n")
	}
	return out
}

// requireExportsMatchResults downloads the job's CSV and JSON exports and requires both to hold
// exactly the transactions of its results, and the JSON export the job as GET /jobs/{id} has it.
// It returns the CSV export's body.
func requireExportsMatchResults(t *testing.T, c parseCaller, job parseclient.Job, results []parseclient.Transaction) []byte {
	t.Helper()
	id := job.JobId
	csvExport := c.export(t, id, parseclient.ExportFormatCsv)
	require.Equal(t, http.StatusOK, csvExport.StatusCode(), string(csvExport.Body))
	requireDownload(t, csvExport.HTTPResponse, "text/csv", id.String()+".csv")
	body := csvExport.Body
	require.False(t, bytes.HasPrefix(body, []byte("\xef\xbb\xbf")), "no byte order mark")
	require.True(t, bytes.HasSuffix(body, []byte("\r\n")), "CRLF line ends")
	require.Equal(t, crlfAsLF(viewsOf(results)), crlfAsLF(csvExportViews(t, body)), "the CSV export holds the results")

	jsonExport := c.export(t, id, parseclient.ExportFormatJson)
	require.Equal(t, http.StatusOK, jsonExport.StatusCode(), string(jsonExport.Body))
	requireDownload(t, jsonExport.HTTPResponse, "application/json", id.String()+".json")
	require.NotNil(t, jsonExport.JSON200)
	var envelope map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(jsonExport.Body, &envelope))
	require.NotContains(t, envelope, "ok", "the JSON export is a document, not an envelope")
	require.Equal(t, viewsOf(results), viewsOf(jsonExport.JSON200.Transactions), "the JSON export holds the results")
	require.Equal(t, c.job(t, id), jsonExport.JSON200.Job, "the JSON export carries the job")
	return body
}

// requireDownload checks a file download's media type, charset and Content-Disposition.
func requireDownload(t testing.TB, resp *http.Response, mediaType, fileName string) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, mediaType, mt)
	if mediaType == "text/csv" {
		require.True(t, strings.EqualFold("utf-8", params["charset"]), "Content-Type: %s", resp.Header.Get("Content-Type"))
	}
	disp, dparams, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	require.NoError(t, err, "Content-Disposition: %s", resp.Header.Get("Content-Disposition"))
	require.Equal(t, "attachment", disp)
	require.Equal(t, fileName, dparams["filename"])
}

// expectedFromCSV is what a generated CSV statement's lines must come back as (ids aside).
func expectedFromCSV(t testing.TB, s csvStatement) []txView {
	t.Helper()
	raws := s.rawLines(t)
	nullable := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	vs := make([]txView, len(s.Lines))
	for i, l := range s.Lines {
		typ := "credit"
		if strings.HasPrefix(l.Amount, "-") {
			typ = "debit"
		}
		vs[i] = txView{Date: l.Date, ValueDate: nullable(l.ValueDate), Amount: l.Amount, Currency: nullable(s.Currency),
			Description: l.Description, Reference: nullable(l.Reference), CounterpartyName: nullable(l.Counterparty),
			CounterpartyAccount: nullable(l.CounterpartyAccount), Balance: nullable(l.Balance), Type: typ, Raw: raws[i]}
	}
	return vs
}

// withoutIDs blanks the ids of the views after checking they are distinct UUIDs.
func withoutIDs(t testing.TB, vs []txView) []txView {
	t.Helper()
	seen := map[string]bool{}
	out := slices.Clone(vs)
	for i := range out {
		_, err := uuid.Parse(out[i].ID)
		require.NoError(t, err, "transaction ids are UUIDs")
		require.False(t, seen[out[i].ID], "transaction ids are unique")
		seen[out[i].ID] = true
		out[i].ID = ""
	}
	return out
}

// jsonNumbers returns the literal text of the numbers at key in each object of the array at
// path in body (a JSON document), so a test can see the scale the server wrote.
func jsonNumbers(t testing.TB, body []byte, arrayPath []string, key string) []string {
	t.Helper()
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&doc))
	for _, p := range arrayPath {
		obj, ok := doc.(map[string]any)
		require.True(t, ok, "%s is an object", p)
		doc = obj[p]
	}
	items, ok := doc.([]any)
	if !ok {
		items = []any{doc} // a single object
	}
	out := make([]string, len(items))
	for i, it := range items {
		obj, ok := it.(map[string]any)
		require.True(t, ok)
		switch v := obj[key].(type) {
		case json.Number:
			out[i] = v.String()
		case nil:
			out[i] = "null"
		default:
			t.Fatalf("%s is %T, not a JSON number", key, v)
		}
	}
	return out
}

// requireAmount checks a decimal's value and the scale it was written with.
func requireAmount(t testing.TB, want string, got *decimal.Decimal) {
	t.Helper()
	require.NotNil(t, got, "amount %s", want)
	require.True(t, decimal.RequireFromString(want).Equal(*got), "%s, got %s", want, got)
	require.Equal(t, want, got.String(), "the amount keeps the currency's decimals")
}

// TestParseJobFlow drives the Parsing API's reference workflow through the generated client:
// upload, poll, read the transactions page by page, export them as CSV and JSON; with a
// generated CSV statement and real MT940 and CAMT.053 files, and the jobs that end in review or
// fail. Every answer is checked against the spec by the client's transport.
func TestParseJobFlow(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Flow")
	c := s.parseCaller(t, acct)
	ctx := context.Background()

	var flowJob parseclient.Job
	var flowResults []parseclient.Transaction
	t.Run("a CSV statement is parsed, its transactions read back page by page with exact amounts", func(t *testing.T) {
		file := flowStatement.bytes(t)
		r := c.upload(t, "", "../../exports/march 2024.csv", file)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		accepted := r.JSON202.Data
		id := accepted.JobId
		require.Equal(t, "/api/v1/jobs/"+id.String(), r.HTTPResponse.Header.Get("Location"))
		require.Empty(t, r.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.Equal(t, r.HTTPResponse.Header.Get("X-Request-Id"), r.JSON202.Meta.RequestId)
		require.Equal(t, parseclient.JobStatusQueued, accepted.Status)
		require.Equal(t, "march 2024.csv", accepted.FileName, "the file name is the base name")
		require.Equal(t, parseclient.StatementFormatCsv, accepted.Format, "the format is known on upload")
		require.Zero(t, accepted.TransactionsCount)
		require.Empty(t, accepted.ReviewReasons)
		require.Nil(t, accepted.Error)
		require.Nil(t, accepted.CompletedAt)
		require.WithinDuration(t, time.Now(), accepted.CreatedAt, time.Minute)

		job := c.wait(t, id)
		require.Equal(t, parseclient.JobStatusCompleted, job.Status, "error %+v, review %+v", job.Error, job.ReviewReasons)
		require.Equal(t, parseclient.StatementFormatCsv, job.Format)
		require.Equal(t, "march 2024.csv", job.FileName)
		require.Nil(t, job.BankName, "the file names no bank, and banks are never guessed")
		require.Equal(t, ptrTo("DE89370400440532013000"), job.Account)
		require.Equal(t, ptrTo("EUR"), job.Currency)
		require.NotNil(t, job.PeriodStart)
		require.NotNil(t, job.PeriodEnd)
		require.Equal(t, "2024-03-01", job.PeriodStart.String())
		require.Equal(t, "2024-03-31", job.PeriodEnd.String())
		requireAmount(t, "1000.00", job.OpeningBalance)
		requireAmount(t, "2365.51", job.ClosingBalance)
		require.Equal(t, 5, job.TransactionsCount)
		require.Empty(t, job.ReviewReasons)
		require.Nil(t, job.Error)
		require.Equal(t, accepted.CreatedAt, job.CreatedAt)
		require.NotNil(t, job.CompletedAt)
		require.False(t, job.CompletedAt.Before(job.CreatedAt))
		raw := c.getJob(t, id).Body
		require.Equal(t, []string{"1000.00"}, jsonNumbers(t, raw, []string{"data"}, "opening_balance"), "JSON numbers with the currency's decimals")
		require.Equal(t, []string{"2365.51"}, jsonNumbers(t, raw, []string{"data"}, "closing_balance"))

		txs := c.allResults(t, id, 2)
		require.Len(t, txs, 5, "three pages of 2, 2 and 1")
		require.Equal(t, expectedFromCSV(t, flowStatement), withoutIDs(t, viewsOf(txs)), "the transactions in statement order")
		for _, tx := range txs {
			if tx.Amount.IsNegative() {
				require.Equal(t, parseclient.TransactionTypeDebit, tx.Type, "debits are negative")
			} else {
				require.Equal(t, parseclient.TransactionTypeCredit, tx.Type, "credits are positive")
			}
		}
		require.True(t, decimal.RequireFromString("1250.50").Equal(txs[1].Amount))
		require.Equal(t, "1250.50", txs[1].Amount.String(), "1250.50 stays 1250.50")

		page := c.results(t, id, nil)
		require.Equal(t, http.StatusOK, page.StatusCode())
		require.Nil(t, page.JSON200.Data.NextCursor, "the default page holds all five")
		require.Equal(t, []string{"-42.99", "1250.50", "-100.00", "450.00", "-192.00"},
			jsonNumbers(t, page.Body, []string{"data", "transactions"}, "amount"), "amounts as the file gives them, as JSON numbers")
		require.Equal(t, []string{"957.01", "2207.51", "2107.51", "2557.51", "2365.51"},
			jsonNumbers(t, page.Body, []string{"data", "transactions"}, "balance"))
		require.Equal(t, txs, page.JSON200.Data.Transactions, "pages of 2 and one page give the same transactions")
		flowJob, flowResults = job, txs
	})

	t.Run("the CSV and JSON exports hold exactly the results, formula texts neutralised in the CSV only", func(t *testing.T) {
		require.NotEmpty(t, flowResults)
		body := requireExportsMatchResults(t, c, flowJob, flowResults)
		lines := strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n")
		require.Len(t, lines, 6, "a header row and five rows, each ending in CRLF")
		for _, l := range lines {
			require.NotContains(t, l, "\n", "CRLF line ends only")
		}
		rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
		require.NoError(t, err)
		cells := func(col string) []string {
			i := slices.Index(csvExportColumns, col)
			var out []string
			for _, r := range rows[1:] {
				out = append(out, r[i])
			}
			return out
		}
		require.Equal(t, []string{"CARD PAYMENT OFFICE SUPPLIES", `SEPA CREDIT ACME GMBH, "INV 2024 001"`, "'=1+2 CASH WITHDRAWAL",
			"'@SUM(A1:A2) TRANSFER", "'-FEE ACCOUNT MAINTENANCE"}, cells("description"))
		require.Equal(t, []string{"", "INV-2024-001", "", "INV2024003", "'+FEE-03"}, cells("reference"))
		require.Equal(t, []string{"", "ACME GmbH", "", "''t Hoekje BV", ""}, cells("counterparty_name"))
		require.Equal(t, []string{"-42.99", "1250.50", "-100.00", "450.00", "-192.00"}, cells("amount"), "amounts are never altered")
		require.Equal(t, []string{"957.01", "2207.51", "2107.51", "2557.51", "2365.51"}, cells("balance"))
		require.Equal(t, []string{"2024-03-01", "2024-03-05", "", "2024-03-12", "2024-03-20"}, cells("value_date"), "null is an empty cell")
		require.Equal(t, "=1+2 CASH WITHDRAWAL", flowResults[2].Description, "the results keep the original text")
		require.Equal(t, "'t Hoekje BV", *flowResults[3].CounterpartyName)
	})

	t.Run("another account's key finds neither the job, its results nor its export", func(t *testing.T) {
		require.NotEmpty(t, flowResults)
		other := s.parseCaller(t, s.newAccount(t, "Other"))
		id := flowJob.JobId
		g := other.getJob(t, id)
		requireParseError(t, g.HTTPResponse, g.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		r := other.results(t, id, nil)
		requireParseError(t, r.HTTPResponse, r.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		for _, f := range []parseclient.ExportFormat{parseclient.ExportFormatCsv, parseclient.ExportFormatJson} {
			e := other.export(t, id, f)
			requireParseError(t, e.HTTPResponse, e.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		}
		require.Empty(t, other.listed(t, nil).Jobs, "the other account lists none of this account's jobs")
		unknown := c.getJob(t, uuid.New())
		requireParseError(t, unknown.HTTPResponse, unknown.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		require.Equal(t, http.StatusOK, c.getJob(t, id).StatusCode(), "the owner still reads it")
	})

	realFiles := []struct {
		name, format, file string
		wantFormat         parseclient.StatementFormat
		bank, account      *string
		currency           string
		from, to           string
		opening, closing   string
		amounts            []string
		dates              []string
		check              func(t *testing.T, txs []parseclient.Transaction)
	}{
		{name: "an MT940 statement of Rabobank", format: "mt940", file: "sandermarechal__jejik-mt940__rabobank-iban.txt",
			wantFormat: parseclient.StatementFormatMt940, bank: ptrTo("Rabobank"), account: ptrTo("NL71RABO0123456789"), currency: "EUR",
			from: "2013-01-01", to: "2013-01-15", opening: "1000.00", closing: "930.00",
			amounts: []string{"-25.00", "-10.00", "-25.00", "-10.00"}, dates: []string{"2013-01-01", "2013-01-02", "2013-01-08", "2013-01-09"},
			check: func(t *testing.T, txs []parseclient.Transaction) {
				require.Equal(t, ptrTo("NL70ABNA0987654321"), txs[0].CounterpartyAccount)
				require.Equal(t, ptrTo("CONTRA ACCOUNT HOLDER"), txs[0].CounterpartyName)
				require.Equal(t, ptrTo("JOHN DOE"), txs[1].CounterpartyName)
				require.Equal(t, "Reference 201301234", txs[1].Description)
				for _, tx := range txs {
					require.True(t, strings.HasPrefix(tx.Raw, ":61:"), "raw is the :61: record: %q", tx.Raw)
					require.Contains(t, tx.Raw, ":86:")
				}
			}},
		{name: "a CAMT.053 document of two statements", format: "camt", file: "genkgo__camt__camt053.v2.multi.statement.xml",
			wantFormat: parseclient.StatementFormatCamt053, account: ptrTo("NL26VAYB8060476890"), currency: "EUR",
			from: "2007-10-18", to: "2014-12-31", opening: "18.15", closing: "20.00",
			amounts: []string{"8.85", "-7.00"}, dates: []string{"2014-12-31", "2014-12-31"},
			check: func(t *testing.T, txs []parseclient.Transaction) {
				require.Equal(t, "Transaction Description 1", txs[0].Description)
				require.Equal(t, ptrTo("000000001"), txs[0].Reference)
				require.Equal(t, "Transaction Description 2", txs[1].Description)
				require.Equal(t, ptrTo("Company Name 2"), txs[1].CounterpartyName, "the creditor of a debit")
				require.Equal(t, ptrTo("NL56AGDH9619008421"), txs[1].CounterpartyAccount)
				for _, tx := range txs {
					require.NotNil(t, tx.ValueDate)
					require.Equal(t, "2015-01-02", tx.ValueDate.String())
					require.True(t, strings.HasPrefix(tx.Raw, "<Ntry"), "raw is the <Ntry> element: %q", tx.Raw)
				}
			}},
	}
	for _, rf := range realFiles {
		t.Run(rf.name+" goes through the whole flow", func(t *testing.T) {
			accepted := c.create(t, rf.file, corpusFile(t, rf.format, rf.file))
			require.Equal(t, rf.wantFormat, accepted.Format)
			job := c.wait(t, accepted.JobId)
			require.Equal(t, parseclient.JobStatusCompleted, job.Status, "error %+v, review %+v", job.Error, job.ReviewReasons)
			require.Equal(t, rf.wantFormat, job.Format)
			require.Equal(t, rf.bank, job.BankName)
			require.Equal(t, rf.account, job.Account)
			require.Equal(t, ptrTo(rf.currency), job.Currency)
			require.NotNil(t, job.PeriodStart)
			require.NotNil(t, job.PeriodEnd)
			require.Equal(t, rf.from, job.PeriodStart.String())
			require.Equal(t, rf.to, job.PeriodEnd.String())
			requireAmount(t, rf.opening, job.OpeningBalance)
			requireAmount(t, rf.closing, job.ClosingBalance)
			require.Equal(t, len(rf.amounts), job.TransactionsCount)

			txs := c.allResults(t, job.JobId, 1)
			var amounts, dates []string
			for _, tx := range txs {
				amounts = append(amounts, tx.Amount.String())
				dates = append(dates, tx.Date.String())
				require.Equal(t, ptrTo(rf.currency), tx.Currency)
				require.Equal(t, tx.Amount.IsNegative(), tx.Type == parseclient.TransactionTypeDebit, "credits positive, debits negative")
			}
			require.Equal(t, rf.amounts, amounts)
			require.Equal(t, rf.dates, dates)
			rf.check(t, txs)
			requireExportsMatchResults(t, c, job, txs)
		})
	}

	reviews := []struct {
		name, file string
		content    func(t *testing.T) []byte
		reason     parseclient.ReviewReasonCode
		count      int
	}{
		{name: "an MT940 whose closing balance is not opening balance plus lines", file: "unbalanced.sta",
			content: func(*testing.T) []byte { return unbalancedMT940() }, reason: parseclient.ReviewReasonCodeBalanceMismatch, count: 2},
		{name: "a CSV whose running balance breaks", file: "broken balance.csv",
			content: func(t *testing.T) []byte { return brokenRunningBalance.bytes(t) }, reason: parseclient.ReviewReasonCodeRunningBalanceBreak, count: 4},
		{name: "a real Triodos MT940 that does not add up", file: "triodos.txt",
			content: func(t *testing.T) []byte {
				return corpusFile(t, "mt940", "sandermarechal__jejik-mt940__triodos.txt")
			}, reason: parseclient.ReviewReasonCodeBalanceMismatch, count: 2},
	}
	for _, rv := range reviews {
		t.Run(rv.name+" ends in review with readable results and exports", func(t *testing.T) {
			job := c.wait(t, c.create(t, rv.file, rv.content(t)).JobId)
			require.Equal(t, parseclient.JobStatusReview, job.Status, "error: %+v", job.Error)
			require.Nil(t, job.Error)
			require.NotNil(t, job.CompletedAt)
			var codes []parseclient.ReviewReasonCode
			for _, r := range job.ReviewReasons {
				codes = append(codes, r.Code)
				require.NotEmpty(t, r.Message)
			}
			require.Contains(t, codes, rv.reason)
			require.Equal(t, rv.count, job.TransactionsCount)
			txs := c.allResults(t, job.JobId, 100)
			require.Len(t, txs, rv.count, "a review job's results are readable")
			requireExportsMatchResults(t, c, job, txs)
		})
	}

	t.Run("a CAMT.053 document cut off in the middle is accepted, then fails as file_corrupt", func(t *testing.T) {
		accepted := c.create(t, "cut.xml", truncatedCAMT053(t))
		require.Equal(t, parseclient.StatementFormatCamt053, accepted.Format, "recognised from its first bytes")
		job := c.wait(t, accepted.JobId)
		require.Equal(t, parseclient.JobStatusFailed, job.Status)
		require.NotNil(t, job.Error)
		require.Equal(t, parseclient.JobErrorCodeFileCorrupt, job.Error.Code, "message: %s", job.Error.Message)
		require.NotEmpty(t, job.Error.Message)
		for _, leak := range []string{"goroutine", ".go:", "panic", "\n"} {
			require.NotContains(t, job.Error.Message, leak, "a message for a person: %q", job.Error.Message)
		}
		require.NotNil(t, job.CompletedAt)
		require.Zero(t, job.TransactionsCount)
		require.Empty(t, job.ReviewReasons)

		r := c.results(t, job.JobId, nil)
		requireParseError(t, r.HTTPResponse, r.Body, http.StatusConflict, parseclient.ErrorCodeJobNotReady)
		for _, f := range []parseclient.ExportFormat{parseclient.ExportFormatCsv, parseclient.ExportFormatJson} {
			e := c.export(t, job.JobId, f)
			requireParseError(t, e.HTTPResponse, e.Body, http.StatusConflict, parseclient.ErrorCodeJobNotReady)
		}
	})

	t.Run("an export without a format is CSV", func(t *testing.T) {
		require.NotEmpty(t, flowResults)
		r, err := c.pc.ExportJobWithResponse(ctx, flowJob.JobId, nil, bearer(c.key))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode())
		requireDownload(t, r.HTTPResponse, "text/csv", flowJob.JobId.String()+".csv")
	})
}

// parseOperation is one implemented Parsing API operation, called with the request editors
// given (which carry the credentials).
type parseOperation struct {
	name  string
	scope string // the scope it needs; "" when any valid key will do
	ok    int    // its status on success
	call  func(t *testing.T, editors ...parseclient.RequestEditorFn) (*http.Response, []byte)
}

// parseOperations are the implemented operations, on job id where they need one.
func parseOperations(pc *parseclient.ClientWithResponses, id uuid.UUID) []parseOperation {
	ctx := context.Background()
	csvFormat := parseclient.ExportFormatCsv
	return []parseOperation{
		{name: "createJob", scope: "jobs:write", ok: http.StatusAccepted, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			ct, body := fileUpload(t, "one.csv", simpleCSV(1))
			r, err := pc.CreateJobWithBodyWithResponse(ctx, nil, ct, bytes.NewReader(body), e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "listJobs", scope: "jobs:read", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.ListJobsWithResponse(ctx, nil, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "getJob", scope: "jobs:read", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.GetJobWithResponse(ctx, id, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "getJobResults", scope: "jobs:read", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.GetJobResultsWithResponse(ctx, id, nil, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "exportJob", scope: "export:read", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.ExportJobWithResponse(ctx, id, &parseclient.ExportJobParams{Format: &csvFormat}, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "getUsage", scope: "usage:read", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.GetUsageWithResponse(ctx, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
		{name: "getStatus", ok: http.StatusOK, call: func(t *testing.T, e ...parseclient.RequestEditorFn) (*http.Response, []byte) {
			r, err := pc.GetStatusWithResponse(ctx, e...)
			require.NoError(t, err)
			return r.HTTPResponse, r.Body
		}},
	}
}

// parseMaxUpload and parseMaxRows are the limits of TestParseJobRequestErrors' server.
const (
	parseMaxUpload = 4096
	parseMaxRows   = 5
)

// TestParseJobRequestErrors covers every refusal the implemented operations declare: 400 for
// uploads and parameters, 401 and 403 on every operation, 404 and 413.
func TestParseJobRequestErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t, fmt.Sprintf("STATEMENTD_MAX_UPLOAD_BYTES=%d", parseMaxUpload), fmt.Sprintf("STATEMENTD_MAX_ROWS=%d", parseMaxRows))
	acct := s.newAccount(t, "Errors")
	c := s.parseCaller(t, acct)
	ctx := context.Background()
	done := c.wait(t, c.create(t, "three.csv", simpleCSV(3)).JobId)
	require.Equal(t, parseclient.JobStatusCompleted, done.Status)
	other := c.wait(t, c.create(t, "two.csv", simpleCSV(2)).JobId)
	require.Equal(t, parseclient.JobStatusCompleted, other.Status)

	t.Run("uploads that are refused", func(t *testing.T) {
		// paddedCSV is a one-line CSV statement of exactly size bytes.
		paddedCSV := func(size int) []byte {
			head, tail := "Date,Description,Amount\n2024-03-01,", ",10.00\n"
			return []byte(head + strings.Repeat("X", size-len(head)-len(tail)) + tail)
		}
		refusals := []struct {
			name   string
			key    string
			body   func() (string, []byte)
			status int
			code   parseclient.ErrorCode
		}{
			{name: "an empty file is 400 FILE_INVALID", status: 400, code: parseclient.ErrorCodeFileInvalid,
				body: func() (string, []byte) { return fileUpload(t, "empty.csv", nil) }},
			{name: "a PNG image cut off after its header is 400 FILE_INVALID, whatever its name", status: 400, code: parseclient.ErrorCodeFileInvalid,
				body: func() (string, []byte) { return fileUpload(t, "statement.csv", pngImage) }},
			{name: "random bytes are 400 FILE_INVALID", status: 400, code: parseclient.ErrorCodeFileInvalid,
				body: func() (string, []byte) { return fileUpload(t, "statement.sta", randomBytes(2000)) }},
			{name: "a body without the file part is 400 INVALID_REQUEST", status: 400, code: parseclient.ErrorCodeInvalidRequest,
				body: func() (string, []byte) {
					return multipartUpload(t, uploadPart{field: "statement", fileName: "s.csv", content: simpleCSV(1)})
				}},
			{name: "two files are 400 INVALID_REQUEST", status: 400, code: parseclient.ErrorCodeInvalidRequest,
				body: func() (string, []byte) {
					return multipartUpload(t, uploadPart{field: "file", fileName: "a.csv", content: simpleCSV(1)},
						uploadPart{field: "file", fileName: "b.csv", content: simpleCSV(2)})
				}},
			{name: "an unknown field is 400 INVALID_REQUEST", status: 400, code: parseclient.ErrorCodeInvalidRequest,
				body: func() (string, []byte) {
					return multipartUpload(t, uploadPart{field: "file", fileName: "a.csv", content: simpleCSV(1)},
						uploadPart{field: "colour", content: []byte("blue")})
				}},
			{name: "an Idempotency-Key with a space is 400 INVALID_REQUEST", key: "two words", status: 400, code: parseclient.ErrorCodeInvalidRequest,
				body: func() (string, []byte) { return fileUpload(t, "a.csv", simpleCSV(1)) }},
			{name: "an Idempotency-Key of 256 characters is 400 INVALID_REQUEST", key: strings.Repeat("k", 256), status: 400, code: parseclient.ErrorCodeInvalidRequest,
				body: func() (string, []byte) { return fileUpload(t, "a.csv", simpleCSV(1)) }},
			{name: "a file one byte over the size limit is 413 FILE_TOO_LARGE", status: 413, code: parseclient.ErrorCodeFileTooLarge,
				body: func() (string, []byte) { return fileUpload(t, "big.csv", paddedCSV(parseMaxUpload+1)) }},
			{name: "a CSV of 10 rows over a row limit of 5 is 413 FILE_TOO_LARGE", status: 413, code: parseclient.ErrorCodeFileTooLarge,
				body: func() (string, []byte) { return fileUpload(t, "ten.csv", simpleCSV(10)) }},
			{name: "a CSV of 6 rows over a row limit of 5 is 413 FILE_TOO_LARGE", status: 413, code: parseclient.ErrorCodeFileTooLarge,
				body: func() (string, []byte) { return fileUpload(t, "six.csv", simpleCSV(parseMaxRows+1)) }},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				ct, body := tt.body()
				r := c.post(t, tt.key, ct, body)
				requireParseError(t, r.HTTPResponse, r.Body, tt.status, tt.code)
				require.NotEmpty(t, r.HTTPResponse.Header.Get("X-RateLimit-Limit"), "a request with a valid key carries the rate-limit headers")
			})
		}
		require.Equal(t, 2, c.usage(t).JobsCreated, "refused uploads are not charged")

		for _, ok := range []struct {
			name string
			file []byte
		}{{"a file of exactly the size limit", paddedCSV(parseMaxUpload)}, {"a CSV of exactly the row limit", simpleCSV(parseMaxRows)}} {
			r := c.upload(t, "", "limit.csv", ok.file)
			require.Equal(t, http.StatusAccepted, r.StatusCode(), "%s is accepted: %s", ok.name, r.Body)
		}
	})

	t.Run("parameters that break the spec are 400 INVALID_REQUEST", func(t *testing.T) {
		page := c.results(t, done.JobId, &parseclient.GetJobResultsParams{Limit: ptrTo(1)})
		require.Equal(t, http.StatusOK, page.StatusCode())
		require.NotNil(t, page.JSON200.Data.NextCursor)
		otherJobsCursor := *page.JSON200.Data.NextCursor

		listing := func(p parseclient.ListJobsParams) func() (*http.Response, []byte) {
			return func() (*http.Response, []byte) {
				r := c.list(t, &p)
				return r.HTTPResponse, r.Body
			}
		}
		results := func(id uuid.UUID, p parseclient.GetJobResultsParams) func() (*http.Response, []byte) {
			return func() (*http.Response, []byte) {
				r := c.results(t, id, &p)
				return r.HTTPResponse, r.Body
			}
		}
		raw := func(path string) func() (*http.Response, []byte) {
			return func() (*http.Response, []byte) {
				req, err := http.NewRequest(http.MethodGet, s.ParseURL+path, nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+c.key)
				resp, err := parse(t).client(t).Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				var b bytes.Buffer
				_, err = b.ReadFrom(resp.Body)
				require.NoError(t, err)
				return resp, b.Bytes()
			}
		}
		bad := []struct {
			name string
			call func() (*http.Response, []byte)
		}{
			{"a list limit of 0", listing(parseclient.ListJobsParams{Limit: ptrTo(0)})},
			{"a list limit of 101", listing(parseclient.ListJobsParams{Limit: ptrTo(101)})},
			{"a list limit that is no number", raw("/api/v1/jobs?limit=ten")},
			{"a list cursor that is no cursor", listing(parseclient.ListJobsParams{Cursor: ptrTo("bm90IGEgY3Vyc29y")})},
			{"an unknown status filter", listing(parseclient.ListJobsParams{Status: ptrTo(parseclient.JobStatus("lost"))})},
			{"a created_after that is no time", raw("/api/v1/jobs?created_after=yesterday")},
			{"a created_before that is no time", raw("/api/v1/jobs?created_before=2025-13-01")},
			{"a results limit of 0", results(done.JobId, parseclient.GetJobResultsParams{Limit: ptrTo(0)})},
			{"a results limit of 1001", results(done.JobId, parseclient.GetJobResultsParams{Limit: ptrTo(1001)})},
			{"a results cursor that is no cursor", results(done.JobId, parseclient.GetJobResultsParams{Cursor: ptrTo("garbage")})},
			{"a results cursor of another job", results(other.JobId, parseclient.GetJobResultsParams{Cursor: &otherJobsCursor})},
			{"a job id that is no UUID", raw("/api/v1/jobs/not-a-uuid")},
			{"a results job id that is no UUID", raw("/api/v1/jobs/42/results")},
			{"an export job id that is no UUID", raw("/api/v1/jobs/" + strings.Repeat("f", 36) + "/export")},
			{"an unknown export format", raw("/api/v1/jobs/" + done.JobId.String() + "/export?format=xml")},
		}
		for _, tt := range bad {
			t.Run(tt.name+" is 400", func(t *testing.T) {
				resp, body := tt.call()
				requireParseError(t, resp, body, http.StatusBadRequest, parseclient.ErrorCodeInvalidRequest)
			})
		}
		ok := c.results(t, done.JobId, &parseclient.GetJobResultsParams{Limit: ptrTo(1000)})
		require.Equal(t, http.StatusOK, ok.StatusCode(), "a results limit of 1000 is allowed")
		require.Equal(t, http.StatusOK, c.list(t, &parseclient.ListJobsParams{Limit: ptrTo(100)}).StatusCode(), "a list limit of 100 is allowed")
	})

	ops := parseOperations(c.pc, done.JobId)
	t.Run("without a key every operation is 401 UNAUTHORIZED, with a bad or revoked key 401 AUTH_INVALID", func(t *testing.T) {
		revokedID, revoked := s.newKey(t, acct)
		s.admin(t, "key", "revoke", "--json", revokedID)
		for _, op := range ops {
			resp, body := op.call(t)
			requireParseError(t, resp, body, http.StatusUnauthorized, parseclient.ErrorCodeUnauthorized)
			require.Equal(t, `Bearer realm="statementd"`, resp.Header.Get("WWW-Authenticate"), op.name)
			for _, key := range []string{"smk_live_" + strings.Repeat("Z", 40), c.key + "x", revoked} {
				resp, body = op.call(t, bearer(key))
				requireParseError(t, resp, body, http.StatusUnauthorized, parseclient.ErrorCodeAuthInvalid)
				requireChallenge(t, resp, http.StatusUnauthorized, `Bearer realm="statementd", error="invalid_token"*`)
			}
		}
	})

	t.Run("a key without an operation's scope is 403 FORBIDDEN, a key with only that scope is served", func(t *testing.T) {
		for _, op := range ops {
			if op.scope == "" {
				continue
			}
			t.Run(op.name, func(t *testing.T) {
				var others []string
				for _, sc := range allScopes {
					if sc != op.scope {
						others = append(others, sc)
					}
				}
				_, lacking := s.newKey(t, acct, others...)
				resp, body := op.call(t, bearer(lacking))
				requireParseError(t, resp, body, http.StatusForbidden, parseclient.ErrorCodeForbidden)
				requireChallenge(t, resp, http.StatusForbidden, `Bearer realm="statementd", error="insufficient_scope"*`)
				require.Contains(t, resp.Header.Get("WWW-Authenticate"), `scope="`+op.scope+`"`)

				_, only := s.newKey(t, acct, op.scope)
				resp, body = op.call(t, bearer(only))
				require.Equal(t, op.ok, resp.StatusCode, "with only %s: %s", op.scope, body)
			})
		}
		for _, scope := range []string{"usage:read", "webhooks:manage"} {
			_, only := s.newKey(t, acct, scope)
			r, err := c.pc.GetStatusWithResponse(ctx, bearer(only))
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, r.StatusCode(), "GET /status answers a key with only %s", scope)
		}
	})

	t.Run("an unknown job is 404 NOT_FOUND for the job, its results and its export", func(t *testing.T) {
		id := uuid.New()
		g := c.getJob(t, id)
		requireParseError(t, g.HTTPResponse, g.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		r := c.results(t, id, nil)
		requireParseError(t, r.HTTPResponse, r.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
		e := c.export(t, id, parseclient.ExportFormatJson)
		requireParseError(t, e.HTTPResponse, e.Body, http.StatusNotFound, parseclient.ErrorCodeNotFound)
	})
}

// TestParseJobsWithoutAWorker runs an API-only process, so every job stays queued: its results
// and exports are 409 JOB_NOT_READY, and a long list can be paged while new jobs arrive.
func TestParseJobsWithoutAWorker(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_ROLE=api")

	t.Run("a queued job's results and export are 409 JOB_NOT_READY", func(t *testing.T) {
		c := s.parseCaller(t, s.newAccount(t, "Waiting"))
		accepted := c.create(t, "march.csv", flowStatement.bytes(t))
		job := c.job(t, accepted.JobId)
		require.Equal(t, parseclient.JobStatusQueued, job.Status)
		require.Nil(t, job.CompletedAt)
		require.Zero(t, job.TransactionsCount)
		require.Empty(t, job.ReviewReasons)
		require.Nil(t, job.Error)
		r := c.results(t, job.JobId, nil)
		requireParseError(t, r.HTTPResponse, r.Body, http.StatusConflict, parseclient.ErrorCodeJobNotReady)
		for _, f := range []parseclient.ExportFormat{parseclient.ExportFormatCsv, parseclient.ExportFormatJson} {
			e := c.export(t, job.JobId, f)
			requireParseError(t, e.HTTPResponse, e.Body, http.StatusConflict, parseclient.ErrorCodeJobNotReady)
		}
	})

	t.Run("pages of 20 show each of 250 jobs exactly once, newest first, while new jobs arrive", func(t *testing.T) {
		c := s.parseCaller(t, s.newAccount(t, "Paged"))
		const total, workers = 250, 10
		ct, body := fileUpload(t, "one.csv", simpleCSV(1))
		created := make([]uuid.UUID, total)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < total; i += workers {
					r, err := c.pc.CreateJobWithBodyWithResponse(context.Background(), nil, ct, bytes.NewReader(body), bearer(c.key))
					if err != nil || r.StatusCode() != http.StatusAccepted {
						t.Errorf("upload %d: %v %s", i, err, r.Body)
						return
					}
					created[i] = r.JSON202.Data.JobId
				}
			})
		}
		wg.Wait()
		require.False(t, t.Failed())

		// Another goroutine uploads all the while; each page is read only once a new job was
		// accepted since the page before it.
		var uploads atomic.Int64
		stop := make(chan struct{})
		uploaderDone := make(chan struct{})
		go func() {
			defer close(uploaderDone)
			for range 300 { // the business plan's 1,000 requests a minute leave room for these
				select {
				case <-stop:
					return
				default:
				}
				r, err := c.pc.CreateJobWithBodyWithResponse(context.Background(), nil, ct, bytes.NewReader(body), bearer(c.key))
				if err != nil || r.StatusCode() != http.StatusAccepted {
					t.Errorf("concurrent upload: %v %s", err, r.Body)
					return
				}
				uploads.Add(1)
			}
		}()
		var seen []parseclient.Job
		params := &parseclient.ListJobsParams{Limit: ptrTo(20)}
		for page := 1; ; page++ {
			require.Less(t, page, 40, "paging does not end")
			list := c.listed(t, params)
			before := uploads.Load()
			require.LessOrEqual(t, len(list.Jobs), 20)
			seen = append(seen, list.Jobs...)
			if list.NextCursor == nil {
				break
			}
			require.Len(t, list.Jobs, 20, "a page before the last is full")
			params = &parseclient.ListJobsParams{Limit: ptrTo(20), Cursor: list.NextCursor}
			// The wait is for the uploader to make progress, not a speed check: on a loaded
			// two-core machine one upload has taken more than 10 s.
			require.Eventually(t, func() bool { return uploads.Load() > before }, time.Minute, time.Millisecond,
				"a new job is accepted before page %d", page+1)
		}
		close(stop)
		<-uploaderDone
		require.Positive(t, uploads.Load())

		count := map[uuid.UUID]int{}
		for i, j := range seen {
			count[j.JobId]++
			require.Equal(t, 1, count[j.JobId], "job %s is listed twice", j.JobId)
			require.Equal(t, parseclient.JobStatusQueued, j.Status)
			if i > 0 {
				prev := seen[i-1]
				newer := prev.CreatedAt.After(j.CreatedAt) || (prev.CreatedAt.Equal(j.CreatedAt) && prev.JobId.String() > j.JobId.String())
				require.True(t, newer, "position %d: %s (%s) is listed after %s (%s)", i, j.JobId, j.CreatedAt.Format(time.RFC3339Nano),
					prev.JobId, prev.CreatedAt.Format(time.RFC3339Nano))
			}
		}
		for i, id := range created {
			require.Equal(t, 1, count[id], "job %d of the first 250 is listed exactly once", i)
		}
	})
}

// TestParseJobListing: the list is newest first; status and creation-time filters; limit and
// cursor, and a cursor used with other filters.
func TestParseJobListing(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := s.parseCaller(t, s.newAccount(t, "Lists"))
	uploads := []struct {
		name    string
		content []byte
		status  parseclient.JobStatus
	}{
		{"first.csv", simpleCSV(2), parseclient.JobStatusCompleted},
		{"second.sta", unbalancedMT940(), parseclient.JobStatusReview},
		{"third.xml", truncatedCAMT053(t), parseclient.JobStatusFailed},
		{"fourth.csv", simpleCSV(3), parseclient.JobStatusCompleted},
	}
	jobs := make([]parseclient.Job, len(uploads))
	for i, u := range uploads {
		jobs[i] = c.create(t, u.name, u.content)
	}
	for i, u := range uploads {
		jobs[i] = c.wait(t, jobs[i].JobId)
		require.Equal(t, u.status, jobs[i].Status, u.name)
	}
	ids := func(js []parseclient.Job) []uuid.UUID {
		out := []uuid.UUID{}
		for _, j := range js {
			out = append(out, j.JobId)
		}
		return out
	}
	newestFirst := func(idx ...int) []uuid.UUID {
		out := []uuid.UUID{}
		for _, i := range idx {
			out = append(out, jobs[i].JobId)
		}
		return out
	}

	t.Run("the list is newest first, each job as GET /jobs/{id} has it", func(t *testing.T) {
		list := c.listed(t, nil)
		require.Equal(t, newestFirst(3, 2, 1, 0), ids(list.Jobs))
		require.Nil(t, list.NextCursor)
		for _, j := range list.Jobs {
			require.Equal(t, c.job(t, j.JobId), j)
		}
	})

	t.Run("the status filter lists only jobs in that status", func(t *testing.T) {
		for status, want := range map[parseclient.JobStatus][]uuid.UUID{
			parseclient.JobStatusCompleted:  newestFirst(3, 0),
			parseclient.JobStatusReview:     newestFirst(1),
			parseclient.JobStatusFailed:     newestFirst(2),
			parseclient.JobStatusQueued:     {},
			parseclient.JobStatusProcessing: {},
		} {
			list := c.listed(t, &parseclient.ListJobsParams{Status: &status})
			require.Equal(t, want, ids(list.Jobs), "status %s", status)
		}
	})

	t.Run("created_after is inclusive and created_before exclusive", func(t *testing.T) {
		// Expected from the times as the server wrote them: a time stated with less precision
		// than the server keeps still selects the same jobs, as it is the kept time cut down.
		between := func(after, before *time.Time) []uuid.UUID {
			out := []uuid.UUID{}
			for i := len(jobs) - 1; i >= 0; i-- {
				at := jobs[i].CreatedAt
				if (after == nil || !at.Before(*after)) && (before == nil || at.Before(*before)) {
					out = append(out, jobs[i].JobId)
				}
			}
			return out
		}
		second, third := jobs[1].CreatedAt, jobs[2].CreatedAt
		for _, tt := range []struct {
			name          string
			after, before *time.Time
		}{
			{"after the second job's creation", &second, nil},
			{"before the third job's creation", nil, &third},
			{"from the second job's creation to the third's", &second, &third},
			{"after the third job's creation", &third, nil},
		} {
			list := c.listed(t, &parseclient.ListJobsParams{CreatedAfter: tt.after, CreatedBefore: tt.before})
			require.Equal(t, between(tt.after, tt.before), ids(list.Jobs), tt.name)
		}
		require.Contains(t, ids(c.listed(t, &parseclient.ListJobsParams{CreatedAfter: &second}).Jobs), jobs[1].JobId, "created_after is inclusive")
		require.NotContains(t, ids(c.listed(t, &parseclient.ListJobsParams{CreatedBefore: &second}).Jobs), jobs[1].JobId, "created_before is exclusive")
		later := time.Now().Add(time.Hour)
		require.Empty(t, c.listed(t, &parseclient.ListJobsParams{CreatedAfter: &later}).Jobs)
	})

	t.Run("limit bounds a page and the cursor continues it with the same filters", func(t *testing.T) {
		status := parseclient.JobStatusCompleted
		var got []uuid.UUID
		params := &parseclient.ListJobsParams{Limit: ptrTo(1), Status: &status}
		for range 3 {
			list := c.listed(t, params)
			got = append(got, ids(list.Jobs)...)
			if list.NextCursor == nil {
				break
			}
			require.Len(t, list.Jobs, 1)
			params = &parseclient.ListJobsParams{Limit: ptrTo(1), Status: &status, Cursor: list.NextCursor}
		}
		require.Equal(t, newestFirst(3, 0), got)

		var all []uuid.UUID
		params = &parseclient.ListJobsParams{Limit: ptrTo(3)}
		first := c.listed(t, params)
		require.Len(t, first.Jobs, 3)
		require.NotNil(t, first.NextCursor)
		all = append(all, ids(first.Jobs)...)
		last := c.listed(t, &parseclient.ListJobsParams{Limit: ptrTo(3), Cursor: first.NextCursor})
		require.Nil(t, last.NextCursor)
		all = append(all, ids(last.Jobs)...)
		require.Equal(t, newestFirst(3, 2, 1, 0), all)
	})

	t.Run("a cursor used with other filters is 400 INVALID_REQUEST", func(t *testing.T) {
		completed, review := parseclient.JobStatusCompleted, parseclient.JobStatusReview
		first := c.listed(t, &parseclient.ListJobsParams{Limit: ptrTo(1), Status: &completed})
		require.NotNil(t, first.NextCursor)
		since := jobs[0].CreatedAt
		for _, tt := range []struct {
			name   string
			params parseclient.ListJobsParams
		}{
			{"with another status", parseclient.ListJobsParams{Limit: ptrTo(1), Status: &review, Cursor: first.NextCursor}},
			{"without the status", parseclient.ListJobsParams{Limit: ptrTo(1), Cursor: first.NextCursor}},
			{"with an added filter", parseclient.ListJobsParams{Limit: ptrTo(1), Status: &completed, CreatedAfter: &since, Cursor: first.NextCursor}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := c.list(t, &tt.params)
				requireParseError(t, r.HTTPResponse, r.Body, http.StatusBadRequest, parseclient.ErrorCodeInvalidRequest)
			})
		}
		require.Equal(t, http.StatusOK, c.list(t, &parseclient.ListJobsParams{Limit: ptrTo(1), Status: &completed, Cursor: first.NextCursor}).StatusCode(),
			"the same filters may use it")
	})
}

// statementXLSX is an Excel statement of n lines, written as a stream: the upload check opens
// and reads every Excel file whole, so a large one keeps its request busy a while.
func statementXLSX(t testing.TB, n int) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	require.NoError(t, err)
	require.NoError(t, sw.SetRow("A1", []any{"Date", "Description", "Amount"}))
	for i := range n {
		cell, err := excelize.CoordinatesToCellName(1, i+2)
		require.NoError(t, err)
		require.NoError(t, sw.SetRow(cell, []any{fmt.Sprintf("2024-03-%02d", i%28+1), fmt.Sprintf("PAYMENT %d", i+1), fmt.Sprintf("%d.%02d", 10+i%1000, i%100)}))
	}
	require.NoError(t, sw.Flush())
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	return buf.Bytes()
}

// TestParseJobIdempotency: a retried upload with the same Idempotency-Key replays the first
// answer unchanged and charges nothing; the key with another file is 422; concurrent uploads
// with one key create one job.
func TestParseJobIdempotency(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Idem")
	c := s.parseCaller(t, acct)
	file := flowStatement.bytes(t)

	first := c.upload(t, "key-1", "march.csv", file)
	require.Equal(t, http.StatusAccepted, first.StatusCode(), string(first.Body))
	require.Empty(t, first.HTTPResponse.Header.Get("Idempotent-Replayed"))
	job := c.wait(t, first.JSON202.Data.JobId)
	require.Equal(t, parseclient.JobStatusCompleted, job.Status)

	t.Run("the same key and file replay the first answer, charging nothing", func(t *testing.T) {
		again := c.upload(t, "key-1", "march.csv", file)
		require.Equal(t, http.StatusAccepted, again.StatusCode(), string(again.Body))
		require.Equal(t, "true", again.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.JSONEq(t, string(first.Body), string(again.Body), "the first answer, unchanged")
		require.Equal(t, first.JSON202.Meta.RequestId, again.JSON202.Meta.RequestId, "with the first request's id")
		require.Equal(t, parseclient.JobStatusQueued, again.JSON202.Data.Status, "the job as it was accepted")
		require.Equal(t, first.HTTPResponse.Header.Get("Location"), again.HTTPResponse.Header.Get("Location"))
		require.Equal(t, 1, c.usage(t).JobsCreated, "a replay is not charged")
		require.Len(t, c.listed(t, nil).Jobs, 1, "nothing new was created")
	})

	t.Run("the same key with another file or another name is 422 IDEMPOTENCY_KEY_REUSED", func(t *testing.T) {
		for _, tt := range []struct {
			name, fileName string
			content        []byte
		}{
			{"another file", "march.csv", simpleCSV(2)},
			{"the same file under another name", "april.csv", file},
			{"the same name with one more byte", "march.csv", append(slices.Clone(file), '\n')},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := c.upload(t, "key-1", tt.fileName, tt.content)
				requireParseError(t, r.HTTPResponse, r.Body, http.StatusUnprocessableEntity, parseclient.ErrorCodeIdempotencyKeyReused)
			})
		}
		require.Equal(t, 1, c.usage(t).JobsCreated)
	})

	t.Run("a refused upload does not hold its key", func(t *testing.T) {
		refused := c.upload(t, "key-2", "empty.csv", nil)
		requireParseError(t, refused.HTTPResponse, refused.Body, http.StatusBadRequest, parseclient.ErrorCodeFileInvalid)
		retried := c.upload(t, "key-2", "march.csv", file)
		require.Equal(t, http.StatusAccepted, retried.StatusCode(), string(retried.Body))
		require.Empty(t, retried.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.NotEqual(t, first.JSON202.Data.JobId, retried.JSON202.Data.JobId)
		require.Equal(t, 2, c.usage(t).JobsCreated)
	})

	t.Run("keys belong to one account", func(t *testing.T) {
		other := s.parseCaller(t, s.newAccount(t, "Other"))
		r := other.upload(t, "key-1", "march.csv", file)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), string(r.Body))
		require.Empty(t, r.HTTPResponse.Header.Get("Idempotent-Replayed"))
		require.NotEqual(t, first.JSON202.Data.JobId, r.JSON202.Data.JobId)
	})

	// slow is an Excel statement that the upload check reads whole, so the first request holds
	// its key a while and the others arrive while it does.
	slow := statementXLSX(t, 20000)
	concurrently := func(t *testing.T, c parseCaller, n int, key string) (statuses []int, bodies [][]byte, replayed []string) {
		statuses, bodies, replayed = make([]int, n), make([][]byte, n), make([]string, n)
		ct, body := fileUpload(t, "statement.xlsx", slow)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				params := &parseclient.CreateJobParams{IdempotencyKey: &key}
				r, err := c.pc.CreateJobWithBodyWithResponse(context.Background(), params, ct, bytes.NewReader(body), bearer(c.key))
				if err != nil {
					t.Errorf("upload %d: %v", i, err)
					return
				}
				statuses[i], bodies[i], replayed[i] = r.StatusCode(), r.Body, r.HTTPResponse.Header.Get("Idempotent-Replayed")
			})
		}
		close(start)
		wg.Wait()
		require.False(t, t.Failed())
		return statuses, bodies, replayed
	}

	t.Run("twenty concurrent uploads with one key create exactly one job", func(t *testing.T) {
		c := s.parseCaller(t, s.newAccount(t, "Concurrent"))
		statuses, bodies, replayed := concurrently(t, c, 20, "key-3")
		jobIDs := map[uuid.UUID]bool{}
		created := 0
		for i, st := range statuses {
			switch st {
			case http.StatusAccepted:
				var e parseclient.JobEnvelope
				require.NoError(t, json.Unmarshal(bodies[i], &e))
				jobIDs[e.Data.JobId] = true
				if replayed[i] != "true" {
					created++
				}
			case http.StatusConflict:
				var e parseclient.ErrorEnvelope
				require.NoError(t, json.Unmarshal(bodies[i], &e))
				require.Equal(t, parseclient.ErrorCodeIdempotencyConflict, e.Error)
			default:
				t.Fatalf("upload %d: %d %s", i, st, bodies[i])
			}
		}
		require.Len(t, jobIDs, 1, "one key, one job: %v", statuses)
		require.Equal(t, 1, created, "one answer created it, the others replayed it or were told to retry: %v", statuses)
		list := c.listed(t, nil)
		require.Len(t, list.Jobs, 1)
		require.True(t, jobIDs[list.Jobs[0].JobId])
		require.Equal(t, parseclient.StatementFormatXlsx, list.Jobs[0].Format)
		require.Equal(t, 1, c.usage(t).JobsCreated)
	})

	t.Run("an upload while the first with its key is in progress is 409 IDEMPOTENCY_CONFLICT", func(t *testing.T) {
		// From outside, a request cannot be held inside the server while its key is pending; a
		// large Excel file, read whole before the job is stored, makes the window wide enough
		// that concurrent retries arrive in it. Should they all be too late, it is skipped.
		c := s.parseCaller(t, s.newAccount(t, "Conflict"))
		for round := range 3 {
			statuses, bodies, _ := concurrently(t, c, 6, fmt.Sprintf("conflict-%d", round))
			for i, st := range statuses {
				if st == http.StatusConflict {
					var e parseclient.ErrorEnvelope
					require.NoError(t, json.Unmarshal(bodies[i], &e))
					require.Equal(t, parseclient.ErrorCodeIdempotencyConflict, e.Error)
					require.NotEmpty(t, e.Detail)
					return
				}
			}
		}
		t.Skip("no retry arrived while the first upload held its key; 409 IDEMPOTENCY_CONFLICT not provoked")
	})
}

// TestParseUsageAndStatus: GET /status reports each plan's limits; GET /usage counts accepted
// jobs (not refused uploads, not replays) and the transactions parsed this month.
func TestParseUsageAndStatus(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	t.Run("status reports the service and the plan's limits", func(t *testing.T) {
		for _, p := range []struct {
			plan             parseclient.ParsePlan
			rate, monthlyJob int
		}{
			{parseclient.ParsePlanFree, 10, 50},
			{parseclient.ParsePlanStarter, 60, 1000},
			{parseclient.ParsePlanPro, 200, 10000},
			{parseclient.ParsePlanBusiness, 1000, 100000},
		} {
			c := s.parseCaller(t, s.newAccount(t, string(p.plan), "--parse-plan", string(p.plan)), "usage:read")
			st := c.status(t)
			require.Equal(t, parseclient.ServiceHealthOk, st.Status)
			require.NotEmpty(t, st.Version)
			require.Equal(t, p.plan, st.Plan)
			require.Equal(t, parseclient.RateLimitInfo{Limit: p.rate, WindowSeconds: 60}, st.RateLimit, p.plan)
			require.Equal(t, p.monthlyJob, st.MonthlyJobLimit, p.plan)
		}
	})

	t.Run("usage counts accepted jobs and the transactions they parsed", func(t *testing.T) {
		c := s.parseCaller(t, s.newAccount(t, "Usage"))
		now := time.Now().UTC()
		start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		u := c.usage(t)
		require.Equal(t, parseclient.Usage{PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0), Plan: parseclient.ParsePlanBusiness,
			JobsLimit: 100000, JobsRemaining: 100000}, normalizeUsage(u))

		completed := c.create(t, "march.csv", flowStatement.bytes(t))      // 5 transactions
		review := c.create(t, "broken.csv", brokenRunningBalance.bytes(t)) // 4, in review
		failed := c.create(t, "cut.xml", truncatedCAMT053(t))              // none
		refused := c.upload(t, "", "picture.png", pngImage)                // not accepted
		keyed := c.upload(t, "usage-key", "three.csv", simpleCSV(3))       // 3
		replay := c.upload(t, "usage-key", "three.csv", simpleCSV(3))      // a replay
		require.Equal(t, http.StatusBadRequest, refused.StatusCode())
		require.Equal(t, http.StatusAccepted, keyed.StatusCode(), string(keyed.Body))
		require.Equal(t, "true", replay.HTTPResponse.Header.Get("Idempotent-Replayed"))
		for id, want := range map[uuid.UUID]parseclient.JobStatus{
			completed.JobId: parseclient.JobStatusCompleted, review.JobId: parseclient.JobStatusReview,
			failed.JobId: parseclient.JobStatusFailed, keyed.JSON202.Data.JobId: parseclient.JobStatusCompleted,
		} {
			require.Equal(t, want, c.wait(t, id).Status)
		}
		u = c.usage(t)
		require.Equal(t, parseclient.Usage{PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0), Plan: parseclient.ParsePlanBusiness,
			JobsCreated: 4, JobsLimit: 100000, JobsRemaining: 99996, TransactionsParsed: 5 + 4 + 3}, normalizeUsage(u))
		require.InDelta(t, 0.0, u.PercentUsed, 0.05, "4 of 100,000 is 0.0 %% to one decimal")
	})
}

// normalizeUsage returns u in UTC and without percent_used, for comparing with require.Equal.
func normalizeUsage(u parseclient.Usage) parseclient.Usage {
	u.PeriodStart, u.PeriodEnd = u.PeriodStart.UTC(), u.PeriodEnd.UTC()
	u.PercentUsed = 0
	return u
}

// TestParseMonthlyJobLimit: a free account may create 50 jobs a month; the 51st upload is 429
// LIMIT_EXCEEDED with Retry-After until the next month and is not charged. Its 11th request in a
// minute is 429 RATE_LIMITED.
//
// The free plan allows only 10 requests a minute, so 51 uploads would take six minutes. The
// test therefore clears the account's request counts in the shared rate-limit table (the
// server's rate_limit_windows) before every ninth request: the job limit, the subject here, runs
// untouched, and the rate limit itself is checked at the end with a fresh window.
//
// The account's endpoint subscribed to usage.threshold receives exactly two events, signed: 80 %
// with the 40th job and 100 % with the 50th.
func TestParseMonthlyJobLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	acct := s.newAccount(t, "Free", "--parse-plan", "free")
	c := s.parseCaller(t, acct)
	rcv := newHookReceiver(t, answer(http.StatusNoContent))
	thresholds := []parseclient.WebhookEventType{"usage.threshold"}
	hook := webhookCaller(c).create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL, Events: &thresholds})
	require.Equal(t, http.StatusCreated, hook.StatusCode(), string(hook.Body))
	db, err := sql.Open("pgx", s.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	freshWindow := func() {
		t.Helper()
		_, err := db.Exec(`DELETE FROM rate_limit_windows WHERE account_id = $1`, acct)
		require.NoError(t, err)
	}
	file := simpleCSV(1)
	for i := 1; i <= 50; i++ {
		if i%9 == 1 {
			freshWindow()
		}
		r := c.upload(t, "", fmt.Sprintf("statement-%02d.csv", i), file)
		require.Equal(t, http.StatusAccepted, r.StatusCode(), "upload %d: %s", i, r.Body)
		if i == 40 {
			freshWindow()
			require.InDelta(t, 80.0, c.usage(t).PercentUsed, 0.001, "40 of 50 jobs is 80 %%")
		}
	}
	freshWindow()
	u := c.usage(t)
	require.Equal(t, parseclient.ParsePlanFree, u.Plan)
	require.Equal(t, 50, u.JobsCreated)
	require.Equal(t, 50, u.JobsLimit)
	require.Zero(t, u.JobsRemaining)
	require.InDelta(t, 100.0, u.PercentUsed, 0.001)

	over := c.upload(t, "", "statement-51.csv", file)
	requireParseError(t, over.HTTPResponse, over.Body, http.StatusTooManyRequests, parseclient.ErrorCodeLimitExceeded)
	retry, err := strconv.Atoi(over.HTTPResponse.Header.Get("Retry-After"))
	require.NoError(t, err)
	now := time.Now().UTC()
	reset := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
	require.InDelta(t, reset.Sub(now).Seconds(), retry, 5, "Retry-After is the time until the next period")
	require.Equal(t, "10", over.HTTPResponse.Header.Get("X-RateLimit-Limit"))
	freshWindow()
	require.Equal(t, 50, c.usage(t).JobsCreated, "the refused upload is not charged")

	got := rcv.waitFor(t, 2, 1, 20*time.Second)
	require.Len(t, got, 2, "one event at 80 %%, one at 100 %%, none for the refused upload")
	byPercent := map[float64]map[string]any{}
	for id, reqs := range got {
		ev := requireSigned(t, hook.JSON201.Data.SigningSecret, id, reqs[0])
		require.Equal(t, "usage.threshold", ev.Event)
		byPercent[ev.Data["threshold_percent"].(float64)] = ev.Data
	}
	period := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	for pct, jobs := range map[float64]float64{80: 40, 100: 50} {
		d := byPercent[pct]
		require.NotNil(t, d, "a %v %% event", pct)
		require.Equal(t, jobs, d["jobs_created"])
		require.Equal(t, 50.0, d["jobs_limit"])
		require.Equal(t, period.Format(time.RFC3339), d["period_start"])
		require.Equal(t, reset.Format(time.RFC3339), d["period_end"])
	}

	t.Run("the 11th request in a minute is 429 RATE_LIMITED", func(t *testing.T) {
		awayFromMinuteEnd(5 * time.Second)
		freshWindow()
		for i := 1; i <= 10; i++ {
			r, err := c.pc.GetStatusWithResponse(context.Background(), bearer(c.key))
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, r.StatusCode(), "request %d", i)
			require.Equal(t, strconv.Itoa(10-i), r.HTTPResponse.Header.Get("X-RateLimit-Remaining"), "request %d", i)
		}
		limited := c.upload(t, "", "statement-52.csv", file)
		requireParseError(t, limited.HTTPResponse, limited.Body, http.StatusTooManyRequests, parseclient.ErrorCodeRateLimited)
		retry, err := strconv.Atoi(limited.HTTPResponse.Header.Get("Retry-After"))
		require.NoError(t, err)
		require.GreaterOrEqual(t, retry, 1)
		require.LessOrEqual(t, retry, 60)
		require.Equal(t, "0", limited.HTTPResponse.Header.Get("X-RateLimit-Remaining"))
	})
}

// TestParseOperationsWithoutTheDatabase cuts statementd off from its database: every
// implemented operation, asked with a key that was valid a moment before, is 503
// SERVICE_UNAVAILABLE with Retry-After, and is served again once the database is back.
func TestParseOperationsWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := s.parseCaller(t, s.newAccount(t, "Outage"))
	job := c.wait(t, c.create(t, "two.csv", simpleCSV(2)).JobId)
	require.Equal(t, parseclient.JobStatusCompleted, job.Status)

	adminDSN, name := adminURL(t, s.DatabaseURL)
	admin, err := sql.Open("pgx", adminDSN)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() }) // registered first, so it runs after the re-enabling below
	setConnections := func(allow bool) {
		_, err := admin.Exec("ALTER DATABASE " + pgx.Identifier{name}.Sanitize() + " WITH ALLOW_CONNECTIONS " + strconv.FormatBool(allow))
		require.NoError(t, err)
		if !allow {
			_, err = admin.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name)
			require.NoError(t, err)
		}
	}
	setConnections(false)
	t.Cleanup(func() { setConnections(true) })

	for _, op := range parseOperations(c.pc, job.JobId) {
		resp, body := op.call(t, bearer(c.key))
		requireParseError(t, resp, body, http.StatusServiceUnavailable, parseclient.ErrorCodeServiceUnavailable)
		retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		require.NoError(t, err, op.name)
		require.Positive(t, retry, op.name)
	}

	setConnections(true)
	require.Eventually(t, func() bool {
		r, err := c.pc.GetJobWithResponse(context.Background(), job.JobId, bearer(c.key))
		return err == nil && r.StatusCode() == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond, "the job is served again once the database is back")
}
