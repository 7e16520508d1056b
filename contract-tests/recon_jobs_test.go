package contracttests

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// reconCaller is an API client of one environment with its token.
type reconCaller struct {
	base  string
	rc    *reconclient.ClientWithResponses
	token string
}

func (s *server) reconCaller(t testing.TB, base, clientID, secret string) reconCaller {
	return reconCaller{base: base, rc: reconClient(t, base), token: s.token(t, base, clientID, secret)}
}

// create posts a job; key may be empty.
func (c reconCaller) create(t testing.TB, key string, contentType string, body []byte) *reconclient.CreateJobResponse {
	t.Helper()
	var params *reconclient.CreateJobParams
	if key != "" {
		params = &reconclient.CreateJobParams{IdempotencyKey: &key}
	}
	r, err := c.rc.CreateJobWithBodyWithResponse(context.Background(), params, contentType, bytes.NewReader(body), bearer(c.token))
	require.NoError(t, err)
	return r
}

// wait polls the job until it is no longer processing.
func (c reconCaller) wait(t testing.TB, id uuid.UUID) reconclient.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r, err := c.rc.GetJobWithResponse(context.Background(), id, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		if r.JSON200.Status != reconclient.JobStatusProcessing {
			return *r.JSON200
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s still processing after 30 s", id)
	return reconclient.Job{}
}

func (c reconCaller) results(t testing.TB, id uuid.UUID) *reconclient.GetJobResultsResponse {
	t.Helper()
	r, err := c.rc.GetJobResultsWithResponse(context.Background(), id, nil, bearer(c.token))
	require.NoError(t, err)
	return r
}

func (c reconCaller) limits(t testing.TB) reconclient.Quota {
	t.Helper()
	r, err := c.rc.GetLimitsWithResponse(context.Background(), bearer(c.token))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	return *r.JSON200
}

// TestReconciliationFlow drives the whole reference workflow through the generated client in
// both environments, with the bank statement as CSV, Excel and PDF: token, upload, poll,
// results, quota. Every answer is checked against the spec by the client's transport.
func TestReconciliationFlow(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Flow")
	clientID, secret := s.newClient(t, acct)

	statements := []struct {
		name string
		file []byte
	}{
		{"statement.csv", bankCSV(reconBankLines)},
		{"statement.xlsx", bankXLSX(t, reconBankLines)},
		{"statement.pdf", bankPDF(t, reconBankLines)},
	}
	for _, env := range []struct {
		name, base string
		limit      int
	}{{"production", s.ReconURL, 20000}, {"sandbox", s.SandboxURL, 100}} {
		c := s.reconCaller(t, env.base, clientID, secret)
		for i, st := range statements {
			t.Run(env.name+" "+st.name, func(t *testing.T) {
				ct, body := jobUpload(t, st.name, st.file, "open invoices.csv", []byte(reconExpectedCSV), "env", env.name)
				created := c.create(t, "", ct, body)
				require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
				id := created.JSON202.JobId
				require.Equal(t, reconclient.JobStatusProcessing, created.JSON202.Status)
				require.Equal(t, "/api/v1/jobs/"+id.String(), created.HTTPResponse.Header.Get("Location"))
				require.Empty(t, created.HTTPResponse.Header.Get("Idempotent-Replayed"))

				job := c.wait(t, id)
				require.Equal(t, reconclient.JobStatusCompleted, job.Status, "job error: %+v", job.Error)
				require.Equal(t, st.name, job.BankFile)
				require.Equal(t, "open invoices.csv", job.ExpectedFile)
				require.Equal(t, reconclient.Environment(env.name), job.Env)
				require.NotNil(t, job.CompletedAt)
				require.Nil(t, job.Error)

				r := c.results(t, id)
				require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
				res := r.JSON200
				require.Equal(t, id, res.JobId)

				require.Len(t, res.Matched, 2, string(r.Body))
				require.Equal(t, "INV-2024-001", res.Matched[0].Reference)
				require.Equal(t, "1250.50", res.Matched[0].Amount.String(), "amounts keep the currency's decimals")
				require.Equal(t, "SEPA CREDIT ACME GMBH INV 2024 001", res.Matched[0].BankEntry)
				require.Equal(t, reconclient.MatchRuleExact, res.Matched[0].Rule, "the rule that decided it")
				require.Equal(t, 2, res.Matched[0].BankEntries[0].Line)
				require.Equal(t, "2024-03-04", res.Matched[0].BankEntries[0].Date.String())
				require.Equal(t, "INV-2024-002", res.Matched[1].Reference, "two instalments pay it together")
				require.Len(t, res.Matched[1].BankEntries, 2)
				require.Equal(t, reconclient.MatchRuleInstalments, res.Matched[1].Rule)
				require.Equal(t, []int{3, 5}, []int{res.Matched[1].BankEntries[0].Line, res.Matched[1].BankEntries[1].Line})

				require.Len(t, res.Partial, 2, string(r.Body))
				require.Equal(t, "INV-2024-003", res.Partial[0].Reference)
				require.Equal(t, reconclient.PartialReasonAmountMismatch, res.Partial[0].Reason)
				require.Equal(t, reconclient.MatchRuleAmountMismatch, res.Partial[0].Rule)
				require.Equal(t, "500.00", res.Partial[0].ExpectedAmount.String())
				require.Equal(t, "450.00", res.Partial[0].MatchedAmount.String())
				require.Equal(t, "INV-2024-005", res.Partial[1].Reference)
				require.Equal(t, reconclient.PartialReasonDuplicatePayment, res.Partial[1].Reason)
				require.Equal(t, reconclient.MatchRuleDuplicatePayment, res.Partial[1].Rule)
				require.Equal(t, "600.00", res.Partial[1].MatchedAmount.String())

				require.Len(t, res.Unmatched, 1)
				require.Equal(t, "INV-2024-004", res.Unmatched[0].Reference)
				require.Equal(t, "75.00", res.Unmatched[0].Amount.String())
				require.NotNil(t, res.Unmatched[0].Suggestions)
				require.Empty(t, res.Unmatched[0].Suggestions, "no unused line pays 75.00")
				require.Len(t, res.UnmatchedBankEntries, 1)
				require.Equal(t, "-42.99", res.UnmatchedBankEntries[0].Amount.String())
				require.Equal(t, 1, res.UnmatchedBankEntries[0].Line)

				require.Equal(t, reconclient.ResultsSummary{ExpectedCount: 5, MatchedCount: 2, PartialCount: 2, UnmatchedCount: 1,
					UnmatchedBankEntriesCount: 1, ExpectedTotal: res.Summary.ExpectedTotal, MatchedTotal: res.Summary.MatchedTotal}, res.Summary)
				require.Equal(t, "3025.50", res.Summary.ExpectedTotal.String())
				require.Equal(t, "2150.50", res.Summary.MatchedTotal.String())

				q := c.limits(t)
				require.Equal(t, reconclient.ReconPlanPro, q.Plan)
				require.Equal(t, reconclient.Environment(env.name), q.Env)
				require.Equal(t, env.limit, q.JobsLimit)
				require.Equal(t, i+1, q.JobsUsed, "each environment counts its own jobs")
				require.Equal(t, env.limit-i-1, q.JobsRemaining)
				now := time.Now().UTC()
				require.Equal(t, time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0), q.ResetDate.UTC())
			})
		}
	}
	t.Run("a job of one environment does not exist in the other", func(t *testing.T) {
		prod := s.reconCaller(t, s.ReconURL, clientID, secret)
		sandbox := s.reconCaller(t, s.SandboxURL, clientID, secret)
		ct, body := jobUpload(t, "b.csv", bankCSV(reconBankLines), "e.csv", []byte(reconExpectedCSV))
		created := prod.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, created.StatusCode())
		r, err := sandbox.rc.GetJobWithResponse(context.Background(), created.JSON202.JobId, bearer(sandbox.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, r.StatusCode())
		require.Equal(t, reconclient.ErrorCodeNotFound, r.JSON404.Error)
	})
}

// TestJobRequestErrors covers every refusal of POST /api/v1/jobs and of reading a job.
// completedJob creates an account and a client named name, uploads bank and expected as one
// job and waits until it is completed: the caller and the job's id.
func (s *server) completedJob(t *testing.T, name string, bank []bankLine, expected string) (reconCaller, uuid.UUID) {
	t.Helper()
	acct := s.newAccount(t, name)
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	ct, body := jobUpload(t, "bank.csv", bankCSV(bank), "expected.csv", []byte(expected))
	created := c.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	job := c.wait(t, created.JSON202.JobId)
	require.Equal(t, reconclient.JobStatusCompleted, job.Status, "job error: %+v", job.Error)
	return c, created.JSON202.JobId
}

// TestCombinedPayments checks through the API that one transfer paying two invoices matches
// both, each listing the shared line, while a transfer a cent short, or naming a reference
// that another line also names, matches nothing.
func TestCombinedPayments(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	bank := []bankLine{
		{"2024-04-02", "SEPA CREDIT OMEGA BV PAYMENT INV-2024-011 INV-2024-012", "1100.50"},
		{"2024-04-03", "SEPA CREDIT SIGMA LTD INV-2024-021 / INV-2024-022", "799.99"},
		{"2024-04-04", "SEPA CREDIT TAU AG INV-2024-031 INV-2024-032", "150.00"},
		{"2024-04-05", "SEPA CREDIT TAU AG INV-2024-032", "100.00"},
	}
	expected := "reference,amount,currency\n" +
		"INV-2024-011,500.00,EUR\n" + "INV-2024-012,600.50,EUR\n" +
		"INV-2024-021,300.00,EUR\n" + "INV-2024-022,500.00,EUR\n" +
		"INV-2024-031,50.00,EUR\n" + "INV-2024-032,100.00,EUR\n"
	c, id := s.completedJob(t, "Combined", bank, expected)
	r := c.results(t, id)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	res := r.JSON200

	type outcome struct {
		Reference, Rule, Amount string
		Lines                   []int
	}
	var matched, partial []outcome
	lines := func(es []reconclient.BankEntry) []int {
		var out []int
		for _, e := range es {
			out = append(out, e.Line)
		}
		return out
	}
	for _, m := range res.Matched {
		require.Equal(t, m.BankEntries[0].Text, m.BankEntry)
		matched = append(matched, outcome{m.Reference, string(m.Rule), m.Amount.String(), lines(m.BankEntries)})
	}
	for _, p := range res.Partial {
		partial = append(partial, outcome{p.Reference, string(p.Rule), p.MatchedAmount.String(), lines(p.BankEntries)})
	}
	require.Equal(t, []outcome{
		{"INV-2024-011", "combined_payment", "500.00", []int{1}},
		{"INV-2024-012", "combined_payment", "600.50", []int{1}},
		{"INV-2024-032", "exact", "100.00", []int{4}},
	}, matched, string(r.Body))
	require.Equal(t, []outcome{
		{"INV-2024-021", "amount_mismatch", "799.99", []int{2}},
		{"INV-2024-022", "amount_mismatch", "799.99", []int{2}},
		{"INV-2024-031", "amount_mismatch", "150.00", []int{3}},
	}, partial, string(r.Body))
	require.Equal(t, "1100.50", res.Matched[0].BankEntries[0].Amount.String(), "the shared line shows its full amount")
	require.Empty(t, res.Unmatched)
	require.Empty(t, res.UnmatchedBankEntries)
	require.Equal(t, 3, res.Summary.MatchedCount)
	require.Equal(t, "1200.50", res.Summary.MatchedTotal.String())
}

// TestSuggestions checks through the API that an unmatched reference lists the unused lines
// paying exactly its amount, nearest to its due date first, and stays unmatched.
func TestSuggestions(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	bank := []bankLine{
		{"2024-04-10", "SEPA CREDIT EPSILON SRL RECHNUNG APRIL", "75.00"},
		{"2024-04-12", "SEPA CREDIT INV-2024-042", "30.00"},
		{"2024-04-20", "SEPA CREDIT EPSILON SRL", "75"},
		{"2024-04-21", "CARD REFUND", "-75.00"},
		{"2024-04-22", "SEPA CREDIT ZETA GMBH", "75.01"},
		{"2024-04-30", "SEPA CREDIT INV-2024-043", "75.00"},
	}
	expected := "reference,amount,currency,due_date\n" +
		"INV-2024-041,75.00,EUR,2024-04-18\n" + // unmatched: three lines pay 75.00
		"INV-2024-042,30.00,EUR,2024-04-15\n" + // matched: suggests nothing
		"INV-2024-043,75.00,EUR,2024-04-30\n" + // matched by line 6, which is never suggested
		"INV-2024-044,0.00,EUR,2024-04-01\n" // nothing pays zero
	c, id := s.completedJob(t, "Suggestions", bank, expected)
	r := c.results(t, id)
	require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
	res := r.JSON200

	require.Len(t, res.Unmatched, 2, string(r.Body))
	u := res.Unmatched[0]
	require.Equal(t, "INV-2024-041", u.Reference)
	var got []string
	for _, e := range u.Suggestions {
		got = append(got, fmt.Sprintf("%d %s %s", e.Line, e.Date, e.Amount))
	}
	require.Equal(t, []string{"3 2024-04-20 75.00", "4 2024-04-21 -75.00", "1 2024-04-10 75.00"}, got,
		"nearest to the due date first, whatever the sign")
	require.Equal(t, "INV-2024-044", res.Unmatched[1].Reference)
	require.Empty(t, res.Unmatched[1].Suggestions)
	require.Equal(t, 2, res.Summary.MatchedCount)
	require.Equal(t, 2, res.Summary.UnmatchedCount, "a suggestion changes no outcome")
	require.Equal(t, 4, res.Summary.UnmatchedBankEntriesCount, "suggested lines stay unmatched bank entries")
}

// TestResultsAsSpreadsheets downloads a job's results as CSV and as XLSX and checks every row:
// the statuses and rules, the shared line of a combined payment, a suggestion, amounts and
// dates typed in the workbook, texts that look like formulas neutralised in the CSV and kept
// as text in the workbook.
func TestResultsAsSpreadsheets(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	bank := []bankLine{
		{"2024-03-01", "CARD PAYMENT OFFICE SUPPLIES", "-42.99"},
		{"2024-03-04", "SEPA CREDIT ACME GMBH INV 2024 001", "1250.50"},
		{"2024-03-06", "BETA LTD INV-2024-002 1/2", "450.00"},
		{"2024-03-20", "BETA LTD INV-2024-002 2/2", "450.00"},
		{"2024-03-21", "=HYPERLINK(X) INV-2024-003", "100.00"},
		{"2024-03-22", "DELTA INV-2024-005 INV-2024-006", "500.00"},
		{"2024-03-25", "EPSILON SRL", "75.00"},
	}
	expected := "reference,amount,currency,due_date\n" +
		"INV-2024-001,1250.50,EUR,2024-03-01\n" + "INV-2024-002,900.00,EUR,2024-03-01\n" +
		"INV-2024-003,500.00,EUR,2024-03-01\n" + "INV-2024-004,75.00,EUR,2024-03-24\n" +
		"INV-2024-005,300.00,EUR,2024-03-01\n" + "INV-2024-006,200.00,EUR,2024-03-01\n" +
		"@SUM(A1),10.00,EUR,2024-03-01\n"
	c, id := s.completedJob(t, "Sheets", bank, expected)

	download := func(t *testing.T, format reconclient.ResultsFormat) (*http.Response, []byte) {
		t.Helper()
		resp, err := c.rc.GetJobResults(context.Background(), id, &reconclient.GetJobResultsParams{Format: &format}, bearer(c.token))
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
		return resp, data
	}
	header := []string{"status", "reference", "currency", "expected_amount", "matched_amount", "reason", "rule",
		"bank_lines", "bank_date", "bank_amount", "bank_text", "suggested_lines"}
	// The rows as the CSV has them: matched, partial, unmatched, then the lines that paid nothing.
	want := [][]string{
		header,
		{"matched", "INV-2024-001", "EUR", "1250.50", "1250.50", "", "exact", "2", "2024-03-04", "1250.50", "SEPA CREDIT ACME GMBH INV 2024 001", ""},
		{"matched", "INV-2024-002", "EUR", "900.00", "900.00", "", "instalments", "3, 4", "2024-03-06", "900.00",
			"BETA LTD INV-2024-002 1/2 | BETA LTD INV-2024-002 2/2", ""},
		{"matched", "INV-2024-005", "EUR", "300.00", "300.00", "", "combined_payment", "6", "2024-03-22", "500.00", "DELTA INV-2024-005 INV-2024-006", ""},
		{"matched", "INV-2024-006", "EUR", "200.00", "200.00", "", "combined_payment", "6", "2024-03-22", "500.00", "DELTA INV-2024-005 INV-2024-006", ""},
		{"partial", "INV-2024-003", "EUR", "500.00", "100.00", "amount_mismatch", "amount_mismatch", "5", "2024-03-21", "100.00", "'=HYPERLINK(X) INV-2024-003", ""},
		{"unmatched", "INV-2024-004", "EUR", "75.00", "", "", "", "", "", "", "", "7"},
		{"unmatched", "'@SUM(A1)", "EUR", "10.00", "", "", "", "", "", "", "", ""},
		{"unmatched_bank_entry", "", "", "", "", "", "", "1", "2024-03-01", "-42.99", "CARD PAYMENT OFFICE SUPPLIES", ""},
		{"unmatched_bank_entry", "", "", "", "", "", "", "7", "2024-03-25", "75.00", "EPSILON SRL", ""},
	}

	t.Run("csv", func(t *testing.T) {
		resp, data := download(t, reconclient.ResultsFormatCsv)
		require.Equal(t, "text/csv; charset=utf-8", resp.Header.Get("Content-Type"))
		require.Equal(t, `attachment; filename="results-`+id.String()+`.csv"`, resp.Header.Get("Content-Disposition"))
		require.NotEmpty(t, resp.Header.Get("X-Request-Id"))
		require.True(t, bytes.HasSuffix(data, []byte("\r\n")), "CRLF line ends")
		got, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, want, got, string(data))
	})

	t.Run("xlsx", func(t *testing.T) {
		resp, data := download(t, reconclient.ResultsFormatXlsx)
		require.Equal(t, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", resp.Header.Get("Content-Type"))
		require.Equal(t, `attachment; filename="results-`+id.String()+`.xlsx"`, resp.Header.Get("Content-Disposition"))
		f, err := excelize.OpenReader(bytes.NewReader(data))
		require.NoError(t, err)
		defer f.Close()
		require.Equal(t, []string{"Results"}, f.GetSheetList())
		rows, err := f.GetRows("Results")
		require.NoError(t, err)
		require.Len(t, rows, len(want))
		// The workbook shows what the CSV says, amounts with thousands separators, and texts
		// as they are: a cell that looks like a formula is plain text, not neutralised.
		for r, w := range want {
			w = slices.Clone(w)
			for c := range w {
				switch {
				case r > 0 && slices.Contains([]int{3, 4, 9}, c) && w[c] != "":
					w[c] = strings.Replace(w[c], "1250.50", "1,250.50", 1)
				case strings.HasPrefix(w[c], "'"):
					w[c] = w[c][1:]
				}
			}
			got := rows[r]
			for len(got) < len(w) {
				got = append(got, "")
			}
			require.Equal(t, w, got, "row %d", r+1)
		}
		raw, err := f.GetRows("Results", excelize.Options{RawCellValue: true})
		require.NoError(t, err)
		require.Equal(t, "1250.50", raw[1][3], "amounts are numbers, written exactly")
		require.Equal(t, "-42.99", raw[8][9])
		require.Equal(t, "45355", raw[1][8], "dates are dates: 4 March 2024")
		formula, err := f.GetCellFormula("Results", "K6")
		require.NoError(t, err)
		require.Empty(t, formula)
		panes, err := f.GetPanes("Results")
		require.NoError(t, err)
		require.True(t, panes.Freeze, "the header row is frozen")
		require.Equal(t, 1, panes.YSplit)
	})

	t.Run("json stays the default", func(t *testing.T) {
		format := reconclient.ResultsFormatJson
		r, err := c.rc.GetJobResultsWithResponse(context.Background(), id, &reconclient.GetJobResultsParams{Format: &format}, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.StatusCode(), string(r.Body))
		require.Len(t, r.JSON200.Matched, 4)
		require.Equal(t, c.results(t, id).Body, r.Body)
	})

	t.Run("errors are JSON answers", func(t *testing.T) {
		format := reconclient.ResultsFormatXlsx
		r, err := c.rc.GetJobResultsWithResponse(context.Background(), uuid.New(), &reconclient.GetJobResultsParams{Format: &format}, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, r.StatusCode())
		require.Equal(t, "application/json", r.HTTPResponse.Header.Get("Content-Type"))
		req, err := http.NewRequest(http.MethodGet, s.ReconURL+"/api/v1/jobs/"+id.String()+"/results?format=ods", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(msg))
		require.Contains(t, string(msg), "INVALID_REQUEST")
	})
}

func TestJobRequestErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t, "STATEMENTD_MAX_UPLOAD_BYTES=4096")
	acct := s.newAccount(t, "Errors")
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	bank, expected := bankCSV(reconBankLines), []byte(reconExpectedCSV)

	refusals := []struct {
		name       string
		body       func() (string, []byte)
		status     int
		code       reconclient.ErrorCode
		msg        string
		errorField func(r *reconclient.CreateJobResponse) *reconclient.Error
	}{
		{name: "a bank file that is no statement is 400 FILE_INVALID naming the field",
			body: func() (string, []byte) {
				return jobUpload(t, "b.pdf", []byte("%PDF-1.4 not really"), "e.csv", expected)
			},
			status: 400, code: reconclient.ErrorCodeFileInvalid, msg: "bank: "},
		{name: "an expected file without an amount column is 400 FILE_INVALID naming the field",
			body: func() (string, []byte) {
				return jobUpload(t, "b.csv", bank, "e.csv", []byte("reference,name\nINV-1,Acme\n"))
			},
			status: 400, code: reconclient.ErrorCodeFileInvalid, msg: "expected: no amount column"},
		{name: "an empty expected file is 400 FILE_INVALID",
			body:   func() (string, []byte) { return jobUpload(t, "b.csv", bank, "e.csv", []byte{}) },
			status: 400, code: reconclient.ErrorCodeFileInvalid, msg: "expected: "},
		{name: "a missing expected file is 400 INVALID_REQUEST",
			body:   func() (string, []byte) { return jobUpload(t, "b.csv", bank, "", nil) },
			status: 400, code: reconclient.ErrorCodeInvalidRequest, msg: "expected: required file is missing"},
		{name: "an unknown part is 400 INVALID_REQUEST",
			body:   func() (string, []byte) { return jobUpload(t, "b.csv", bank, "e.csv", expected, "colour", "blue") },
			status: 400, code: reconclient.ErrorCodeInvalidRequest, msg: "colour: unknown field"},
		{name: "env naming the other environment is 400 INVALID_REQUEST",
			body:   func() (string, []byte) { return jobUpload(t, "b.csv", bank, "e.csv", expected, "env", "sandbox") },
			status: 400, code: reconclient.ErrorCodeInvalidRequest, msg: "env: this is the production environment"},
		{name: "an unknown env is 400 INVALID_REQUEST",
			body:   func() (string, []byte) { return jobUpload(t, "b.csv", bank, "e.csv", expected, "env", "staging") },
			status: 400, code: reconclient.ErrorCodeInvalidRequest, msg: "env: must be production or sandbox"},
		{name: "a file over the upload limit is 413 FILE_TOO_LARGE naming the field",
			body: func() (string, []byte) {
				return jobUpload(t, "b.csv", bank, "e.csv", append(append([]byte{}, expected...), bytes.Repeat([]byte("INV-9;1,00;EUR;x\n"), 300)...))
			},
			status: 413, code: reconclient.ErrorCodeFileTooLarge, msg: "expected: file exceeds the limit of 4096 bytes"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := tt.body()
			r := c.create(t, "", ct, body)
			require.Equal(t, tt.status, r.StatusCode(), string(r.Body))
			code, msg := errorOf(t, false, r.Body)
			require.Equal(t, string(tt.code), code)
			require.Contains(t, msg, tt.msg)
		})
	}
	require.Equal(t, 0, c.limits(t).JobsUsed, "refused requests use no quota")

	t.Run("a file that fails while processing fails the job, and its results are 409", func(t *testing.T) {
		ct, body := jobUpload(t, "b.csv", bank, "e.csv", []byte("reference,amount\nINV-1,10.00\nINV-2,abc\n"))
		created := c.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		job := c.wait(t, created.JSON202.JobId)
		require.Equal(t, reconclient.JobStatusFailed, job.Status)
		require.NotNil(t, job.Error)
		require.Equal(t, reconclient.JobErrorCodeFileInvalid, job.Error.Code)
		require.Contains(t, job.Error.Message, "expected: row 3")
		require.NotNil(t, job.CompletedAt)

		r := c.results(t, created.JSON202.JobId)
		require.Equal(t, http.StatusConflict, r.StatusCode())
		require.Equal(t, reconclient.ErrorCodeJobNotReady, r.JSON409.Error)
		require.Contains(t, r.JSON409.Detail.Message, "failed")
		require.Equal(t, 1, c.limits(t).JobsUsed, "an accepted job counts whatever its outcome")
	})
	t.Run("an unknown job is 404 NOT_FOUND, for the job and its results", func(t *testing.T) {
		id := uuid.New()
		r, err := c.rc.GetJobWithResponse(context.Background(), id, bearer(c.token))
		require.NoError(t, err)
		require.Equal(t, http.StatusNotFound, r.StatusCode())
		require.Contains(t, r.JSON404.Detail.Message, id.String())
		rr := c.results(t, id)
		require.Equal(t, http.StatusNotFound, rr.StatusCode())
	})
}

// TestJobsWaitForAWorker runs an API-only process and a worker-only process on one database:
// the job the API accepts is processing (its results 409 JOB_NOT_READY) until a worker, on
// another process, takes it from the database and completes it.
func TestJobsWaitForAWorker(t *testing.T) {
	t.Parallel()
	api := startServer(t, "STATEMENTD_ROLE=api")
	acct := api.newAccount(t, "Split")
	clientID, secret := api.newClient(t, acct)
	c := api.reconCaller(t, api.ReconURL, clientID, secret)

	ct, body := jobUpload(t, "b.csv", bankCSV(reconBankLines), "e.csv", []byte(reconExpectedCSV))
	created := c.create(t, "", ct, body)
	require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
	id := created.JSON202.JobId
	time.Sleep(300 * time.Millisecond) // an API-only process works no jobs, however long it has
	r := c.results(t, id)
	require.Equal(t, http.StatusConflict, r.StatusCode())
	require.Equal(t, reconclient.ErrorCodeJobNotReady, r.JSON409.Error)
	require.Contains(t, r.JSON409.Detail.Message, "still processing")

	startServer(t, "STATEMENTD_ROLE=worker", "DATABASE_URL="+api.DatabaseURL, "STATEMENTD_DATA_DIR="+api.DataDir)
	job := c.wait(t, id)
	require.Equal(t, reconclient.JobStatusCompleted, job.Status)
	require.Equal(t, http.StatusOK, c.results(t, id).StatusCode())
}

// TestJobIdempotency: a retry with the same Idempotency-Key replays the first answer and charges
// nothing; the key with another request is 422; concurrent requests with one key create one job.
func TestJobIdempotency(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Idem")
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	sandbox := s.reconCaller(t, s.SandboxURL, clientID, secret)
	ct, body := jobUpload(t, "b.csv", bankCSV(reconBankLines), "e.csv", []byte(reconExpectedCSV))

	first := c.create(t, "key-1", ct, body)
	require.Equal(t, http.StatusAccepted, first.StatusCode(), string(first.Body))
	again := c.create(t, "key-1", ct, body)
	require.Equal(t, http.StatusAccepted, again.StatusCode())
	require.Equal(t, "true", again.HTTPResponse.Header.Get("Idempotent-Replayed"))
	require.Equal(t, string(first.Body), string(again.Body), "the replay is the first answer")
	require.Equal(t, 1, c.limits(t).JobsUsed, "the replay charges no quota")

	otherCT, other := jobUpload(t, "b.csv", bankCSV(reconBankLines[:3]), "e.csv", []byte(reconExpectedCSV))
	reused := c.create(t, "key-1", otherCT, other)
	require.Equal(t, http.StatusUnprocessableEntity, reused.StatusCode())
	require.Equal(t, reconclient.ErrorCodeIdempotencyKeyReused, reused.JSON422.Error)

	inSandbox := sandbox.create(t, "key-1", ct, body)
	require.Equal(t, http.StatusAccepted, inSandbox.StatusCode(), "keys belong to one environment")
	require.NotEqual(t, first.JSON202.JobId, inSandbox.JSON202.JobId)

	badCT, bad := jobUpload(t, "b.csv", []byte("%PDF-1.4 broken"), "e.csv", []byte(reconExpectedCSV))
	require.Equal(t, http.StatusBadRequest, c.create(t, "key-2", badCT, bad).StatusCode())
	retried := c.create(t, "key-2", ct, body)
	require.Equal(t, http.StatusAccepted, retried.StatusCode(), "a refused request does not hold its key")
	require.Empty(t, retried.HTTPResponse.Header.Get("Idempotent-Replayed"))

	const concurrent = 20
	ids := make([]string, concurrent)
	statuses := make([]int, concurrent)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range concurrent {
		wg.Go(func() {
			<-start
			r := c.create(t, "key-3", ct, body)
			statuses[i] = r.StatusCode()
			if r.JSON202 != nil {
				ids[i] = r.JSON202.JobId.String()
			}
		})
	}
	close(start)
	wg.Wait()
	distinct := map[string]bool{}
	for i, st := range statuses {
		require.Contains(t, []int{http.StatusAccepted, http.StatusConflict}, st, "request %d", i)
		if st == http.StatusAccepted {
			distinct[ids[i]] = true
		}
	}
	require.Len(t, distinct, 1, "one key, one job: %v", statuses)
	require.Equal(t, 3, c.limits(t).JobsUsed, "key-1, key-2 and key-3 each charged once")
}

// TestJobQuota: the sandbox allows 100 jobs a month; the 101st is 429 LIMIT_EXCEEDED with
// Retry-After until the month ends, and production counts separately.
func TestJobQuota(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Quota")
	clientID, secret := s.newClient(t, acct)
	sandbox := s.reconCaller(t, s.SandboxURL, clientID, secret)
	prod := s.reconCaller(t, s.ReconURL, clientID, secret)
	ct, body := jobUpload(t, "b.csv", bankCSV(reconBankLines[:1]), "e.csv", []byte("reference,amount\nINV-1,1.00\n"))

	var wg sync.WaitGroup
	statuses := make([]int, 100)
	for i := range 100 {
		wg.Go(func() { statuses[i] = sandbox.create(t, "", ct, body).StatusCode() })
		if i%10 == 9 {
			wg.Wait()
		}
	}
	wg.Wait()
	for i, st := range statuses {
		require.Equal(t, http.StatusAccepted, st, "job %d", i+1)
	}
	over := sandbox.create(t, "", ct, body)
	require.Equal(t, http.StatusTooManyRequests, over.StatusCode())
	require.Equal(t, reconclient.ErrorCodeLimitExceeded, over.JSON429.Error)
	require.Contains(t, over.JSON429.Detail.Message, "monthly job quota of 100 jobs")
	retry, err := strconv.Atoi(over.HTTPResponse.Header.Get("Retry-After"))
	require.NoError(t, err)
	now := time.Now().UTC()
	reset := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
	require.InDelta(t, reset.Sub(now).Seconds(), retry, 5, "Retry-After is the time until the quota resets")

	q := sandbox.limits(t)
	require.Equal(t, 100, q.JobsUsed)
	require.Equal(t, 0, q.JobsRemaining)
	require.Equal(t, http.StatusAccepted, prod.create(t, "", ct, body).StatusCode(), "production has its own quota")
}
