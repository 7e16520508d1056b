package parsehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/statement"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func decPtr(s string) *decimal.Decimal {
	d := dec(s)
	return &d
}

func day(y int, m time.Month, d int) statement.Date { return statement.MustDate(y, m, d) }

// specTransactions are the two transactions of the exportJob example in openapi/parsing.yaml.
func specTransactions() []parsejob.Transaction {
	return []parsejob.Transaction{
		{ID: uuid.MustParse("6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d"), Seq: 0, Transaction: statement.Transaction{
			Date: day(2025, 3, 3), ValueDate: day(2025, 3, 3), Amount: dec("1250.50"), Currency: "EUR",
			Description: "SEPA CREDIT TRANSFER INV-2025-0042 ACME GMBH", Reference: "INV-2025-0042",
			CounterpartyName: "ACME GmbH", CounterpartyAccount: "DE02120300000000202051", Balance: decPtr("11500.50"),
			Type: statement.Credit, Raw: `<Ntry><Amt Ccy="EUR">1250.50</Amt>...</Ntry>`,
		}},
		{ID: uuid.MustParse("1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"), Seq: 1, Transaction: statement.Transaction{
			Date: day(2025, 3, 4), Amount: dec("-89.90"), Currency: "EUR", Description: "=1+2 CASH WITHDRAWAL",
			Balance: decPtr("11410.60"), Type: statement.Debit, Raw: "=1+2 CASH WITHDRAWAL",
		}},
	}
}

func eachOf(txs []parsejob.Transaction) eachFunc {
	return func(fn func(parsejob.Transaction) error) error {
		for _, t := range txs {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
}

func noFlush() error { return nil }

const csvHeader = "id,date,value_date,amount,currency,description,reference,counterparty_name,counterparty_account,balance,type,raw\r\n"

func TestWriteCSVExport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		txs  []parsejob.Transaction
		want string
	}{
		{
			name: "the spec's example, byte for byte",
			txs:  specTransactions(),
			want: csvHeader +
				"6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d,2025-03-03,2025-03-03,1250.50,EUR,SEPA CREDIT TRANSFER INV-2025-0042 ACME GMBH,INV-2025-0042,ACME GmbH,DE02120300000000202051,11500.50,credit,\"<Ntry><Amt Ccy=\"\"EUR\"\">1250.50</Amt>...</Ntry>\"\r\n" +
				"1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e,2025-03-04,,-89.90,EUR,'=1+2 CASH WITHDRAWAL,,,,11410.60,debit,'=1+2 CASH WITHDRAWAL\r\n",
		},
		{
			name: "commas and line breaks are quoted and kept as they are; amounts keep their decimals; nulls are empty",
			txs: []parsejob.Transaction{{ID: uuid.MustParse("00000000-0000-4000-8000-000000000001"), Transaction: statement.Transaction{
				Date: day(2025, 1, 31), Amount: dec("-1000"), Description: "Rent, March", Reference: "-REF",
				Type: statement.Debit, Raw: "line one\nline two",
			}}},
			want: csvHeader +
				"00000000-0000-4000-8000-000000000001,2025-01-31,,-1000,,\"Rent, March\",'-REF,,,,debit,\"line one\nline two\"\r\n",
		},
		{
			name: "a cell that starts with a carriage return keeps it after its quote; quotes are doubled",
			txs: []parsejob.Transaction{{ID: uuid.MustParse("00000000-0000-4000-8000-000000000002"), Transaction: statement.Transaction{
				Date: day(2025, 2, 1), Amount: dec("5.00"), Description: "\rcmd", Type: statement.Credit, Raw: `say "hi"`,
			}}},
			want: csvHeader +
				"00000000-0000-4000-8000-000000000002,2025-02-01,,5.00,,\"'\rcmd\",,,,,credit,\"say \"\"hi\"\"\"\r\n",
		},
		{name: "no transactions: the header row alone", want: csvHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, writeCSVExport(&buf, eachOf(tt.txs), noFlush))
			require.Equal(t, tt.want, buf.String())
		})
	}
}

// specJob is the job of the exportJob example.
func specJob() parsejob.Job {
	completed := time.Date(2025, 4, 1, 8, 15, 34, 0, time.UTC)
	return parsejob.Job{ID: uuid.MustParse("3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f"), AccountID: testAccount,
		Status: parsejob.StatusCompleted, FileName: "statement-2025-03.xml", Format: statement.FormatCAMT053,
		BankName: "Deutsche Bank", Account: "DE89370400440532013000", Currency: "EUR",
		PeriodStart: day(2025, 3, 1), PeriodEnd: day(2025, 3, 31),
		OpeningBalance: decPtr("10250.00"), ClosingBalance: decPtr("12418.35"), TransactionsCount: 2,
		CreatedAt: time.Date(2025, 4, 1, 8, 15, 30, 0, time.UTC), CompletedAt: &completed, RequestID: "req-upload"}
}

func TestWriteJSONExport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		txs  []parsejob.Transaction
	}{
		{name: "transactions", txs: specTransactions()},
		{name: "no transactions: an empty array", txs: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, writeJSONExport(&buf, specJob(), eachOf(tt.txs), noFlush))

			var doc any
			require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
			require.NoError(t, specSchema(t, "TransactionExport").VisitJSON(doc))

			var got parseapi.TransactionExport
			require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
			require.Equal(t, apiJob(specJob()).JobId, got.Job.JobId)
			require.NotNil(t, got.Transactions)
			require.Len(t, got.Transactions, len(tt.txs))
			for i, tx := range tt.txs {
				require.Equal(t, tx.ID, got.Transactions[i].Id)
				require.Equal(t, tx.Amount.String(), got.Transactions[i].Amount.String())
			}

			// The same document the generated type would give, transaction by transaction.
			want := parseapi.TransactionExport{Job: apiJob(specJob()), Transactions: []parseapi.Transaction{}}
			for _, tx := range tt.txs {
				want.Transactions = append(want.Transactions, apiTransaction(tx))
			}
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON)+"\n", buf.String())
		})
	}
	t.Run("amounts are written as stored", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		require.NoError(t, writeJSONExport(&buf, specJob(), eachOf(specTransactions()), noFlush))
		for _, s := range []string{`"amount":1250.50`, `"amount":-89.90`, `"balance":11410.60`, `"opening_balance":10250.00`, `"value_date":null`} {
			require.Contains(t, buf.String(), s)
		}
	})
}

// manyTransactions returns n transactions with distinct ids.
func manyTransactions(n int) []parsejob.Transaction {
	out := make([]parsejob.Transaction, n)
	for i := range out {
		out[i] = parsejob.Transaction{ID: uuid.New(), Seq: i, Transaction: statement.Transaction{
			Date: day(2025, 3, 1), Amount: dec("-1.50"), Currency: "EUR", Description: fmt.Sprintf("line %d", i),
			Type: statement.Debit, Raw: strings.Repeat("x", 40)}}
	}
	return out
}

func exportJobs(job parsejob.Job, each func(ctx context.Context, jobID uuid.UUID, fn func(parsejob.Transaction) error) error) *fakeJobs {
	return &fakeJobs{
		export: func(accountID, id uuid.UUID) (parsejob.Job, error) {
			if accountID != testAccount || id != job.ID {
				return parsejob.Job{}, parsejob.ErrNotFound
			}
			if !job.Status.HasResults() {
				return job, parsejob.ErrNotReady
			}
			return job, nil
		},
		each: each,
	}
}

func TestExportJob(t *testing.T) {
	t.Parallel()
	job := specJob()
	stream := func(_ context.Context, jobID uuid.UUID, fn func(parsejob.Transaction) error) error {
		if jobID != job.ID {
			return errors.New("wrong job")
		}
		return eachOf(specTransactions())(fn)
	}
	h := newHarness(t, exportJobs(job, stream), true)
	path := "/api/v1/jobs/" + job.ID.String() + "/export"

	t.Run("csv is the default", func(t *testing.T) {
		t.Parallel()
		rec := h.do(t, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "text/csv; charset=utf-8", rec.Header().Get("Content-Type"))
		require.Equal(t, `attachment; filename="`+job.ID.String()+`.csv"`, rec.Header().Get("Content-Disposition"))
		require.Equal(t, "60", rec.Header().Get("X-RateLimit-Limit"))
		require.True(t, strings.HasPrefix(rec.Body.String(), csvHeader))
		require.Contains(t, rec.Body.String(), ",-89.90,EUR,'=1+2 CASH WITHDRAWAL,")
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		rec := h.do(t, httptest.NewRequest(http.MethodGet, path+"?format=json", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		require.Equal(t, `attachment; filename="`+job.ID.String()+`.json"`, rec.Header().Get("Content-Disposition"))
		var doc parseapi.TransactionExport
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
		require.Len(t, doc.Transactions, 2)
	})
	t.Run("another account's job is not found, as an envelope", func(t *testing.T) {
		t.Parallel()
		rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs/"+uuid.NewString()+"/export", nil))
		require.Equal(t, http.StatusNotFound, rec.Code)
		require.Empty(t, rec.Header().Get("Content-Disposition"))
		require.Contains(t, rec.Body.String(), `"error":"NOT_FOUND"`)
	})
	t.Run("an unknown format is the validator's 400", func(t *testing.T) {
		t.Parallel()
		rec := h.do(t, httptest.NewRequest(http.MethodGet, path+"?format=xml", nil))
		require.Equal(t, http.StatusBadRequest, rec.Code)
	})
}

func TestExportJobNotReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status parsejob.Status
		want   string
	}{
		{status: parsejob.StatusQueued, want: "is queued; poll GET /api/v1/jobs/"},
		{status: parsejob.StatusProcessing, want: "is processing; poll GET /api/v1/jobs/"},
		{status: parsejob.StatusFailed, want: "failed and has no results; see the job's error"},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			t.Parallel()
			job := parsejob.Job{ID: uuid.New(), AccountID: testAccount, Status: tt.status, Format: statement.FormatCSV,
				CreatedAt: time.Now().UTC()}
			h := newHarness(t, exportJobs(job, nil), true)
			rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs/"+job.ID.String()+"/export", nil))
			require.Equal(t, http.StatusConflict, rec.Code)
			require.Empty(t, rec.Header().Get("Content-Disposition"))
			var body parseapi.ErrorEnvelope
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			require.Equal(t, parseapi.ErrorCodeJobNotReady, body.Error)
			require.Contains(t, body.Detail, tt.want)
		})
	}
}

func TestExportJobStoreFailsBeforeTheFirstByte(t *testing.T) {
	t.Parallel()
	job := specJob()
	h := newHarness(t, exportJobs(job, func(context.Context, uuid.UUID, func(parsejob.Transaction) error) error {
		return errors.New("connection refused")
	}), true)
	rec := h.do(t, httptest.NewRequest(http.MethodGet, "/api/v1/jobs/"+job.ID.String()+"/export", nil))
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	require.Empty(t, rec.Header().Get("Content-Disposition"))
	require.Contains(t, rec.Body.String(), `"error":"SERVER_ERROR"`)
	require.NotContains(t, rec.Body.String(), "connection refused")
}

func TestExportJobAbortsWhenTheStoreFailsMidStream(t *testing.T) {
	t.Parallel()
	job := specJob()
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			// More than a flush's worth, so the download has started when the store fails.
			txs := manyTransactions(exportFlushEvery + 10)
			h := newHarness(t, exportJobs(job, func(_ context.Context, _ uuid.UUID, fn func(parsejob.Transaction) error) error {
				if err := eachOf(txs)(fn); err != nil {
					return err
				}
				return errors.New("read transactions: connection reset")
			}), true)
			srv := httptest.NewServer(h.handler)
			t.Cleanup(srv.Close)

			req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/jobs/"+job.ID.String()+"/export?format="+format, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("X-Request-Id", "req-export-"+format)
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			body, err := io.ReadAll(res.Body)
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the client must see a broken download")
			require.NotEmpty(t, body)
			require.Contains(t, h.log.String(), "download failed after it started")
			require.Contains(t, h.log.String(), "req-export-"+format)
		})
	}
}

func TestExportJobFlushesAsItGoes(t *testing.T) {
	t.Parallel()
	job := specJob()
	txs := manyTransactions(3*exportFlushEvery + 1)
	flushes := 0
	var buf bytes.Buffer
	require.NoError(t, writeCSVExport(&buf, eachOf(txs), func() error { flushes++; return nil }))
	require.Equal(t, 3, flushes)
	require.Equal(t, len(txs)+1, strings.Count(buf.String(), "\r\n"))

	flushes = 0
	buf.Reset()
	require.NoError(t, writeJSONExport(&buf, job, eachOf(txs), func() error { flushes++; return nil }))
	require.Equal(t, 3, flushes)
	require.True(t, json.Valid(buf.Bytes()))
}
