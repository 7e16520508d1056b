package dashboard

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/parsehttp"
	"github.com/statementmatch/service/internal/parsejob"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/sheet"
	"github.com/statementmatch/service/internal/statement"
)

// jobRefusal answers what every job page and download may meet, reporting whether err was
// one: no such job (another account's included) 404, no results yet 409 (unless results is
// "", for a page that shows a job without them), and our own failure 503.
func (s *Server) jobRefusal(w http.ResponseWriter, r *http.Request, err error, what, results string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, reconjob.ErrNotFound), errors.Is(err, parsejob.ErrNotFound):
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such "+what+".")
	case errors.Is(err, reconjob.ErrGone), errors.Is(err, parsejob.ErrGone):
		s.message(w, r, http.StatusGone, "Deleted", "This job's data is no longer kept. "+sentence(err.Error()))
	case errors.Is(err, reconjob.ErrNotReady), errors.Is(err, parsejob.ErrNotReady):
		if results == "" {
			return false
		}
		s.message(w, r, http.StatusConflict, "No "+results+" yet", "The job has no "+results+": it is still running, or it failed.")
	default:
		s.unavailable(w, r, err)
	}
	return true
}

// resultsPageSize is how many rows a results table shows at a time; maxReviewRows how many rows
// to review a parsing job's page lists at most.
const (
	resultsPageSize = 100
	maxReviewRows   = 1000
)

// lineView is a bank line as a results table shows it.
type lineView struct {
	Line               int
	Date, Amount, Text string
}

// resultRow is an expected reference, or a bank line that paid nothing, as a results table
// shows it.
type resultRow struct {
	Reference, Currency, Expected, Paid string
	// Reason says in words why a partial reference is not paid; Rule which rule decided it.
	Reason, Rule string
	Lines        []lineView
	// Suggestions are lines that pay an unmatched reference's amount.
	Suggestions []lineView
	// amount sorts the rows.
	amount decimal.Decimal
}

// date is the date of the row's first bank line, which sorts it ("" when it has none).
func (r resultRow) date() string {
	if len(r.Lines) == 0 {
		return ""
	}
	return r.Lines[0].Date
}

// resultTab is one of the results tables.
type resultTab struct {
	Name, Label string
	Count       int
	Link        string
	Current     bool
}

type reconJobPage struct {
	Job jobRow
	// Expired says when the results were deleted after the retention period; "" while kept.
	Expired string
	Summary *reconjob.Summary
	// Totals are the summary's totals with the file's decimals.
	ExpectedTotal, MatchedTotal string
	Tabs                        []resultTab
	Tab, Query, Sort            string
	Rows                        []resultRow
	// Shown is the rows' range on the page, of Total; Prev and Next the neighbouring pages.
	From, To, Total int
	Prev, Next      string
	Live            bool
}

func (s *Server) reconJobPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	env := account.Environment(r.PathValue("env"))
	id, ok := jobID(r)
	if !ok || (env != account.Production && env != account.Sandbox) {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such job.")
		return
	}
	j, res, err := s.cfg.Recon.Results(r.Context(), req.user.AccountID, env, id)
	// A job whose results went after the retention period is shown without them.
	expired := errors.Is(err, reconjob.ErrGone) && j.ResultsDeletedAt != nil
	if !expired && s.jobRefusal(w, r, err, "job", "") {
		return
	}
	page := reconJobPage{Job: reconRow(j)}
	page.Live = page.Job.Live()
	if expired {
		page.Expired = j.ResultsDeletedAt.UTC().Format("2006-01-02")
	} else if j.Status == reconjob.StatusCompleted {
		s.fillResults(&page, r, res)
	}
	s.render(w, r, http.StatusOK, "recon_job", signedInView(req, "Reconciliation job", "jobs", page))
}

// fillResults puts the page's table of results on the page: its tab, filtered by the query
// (reference or bank text, without case), sorted, a page of it.
func (s *Server) fillResults(page *reconJobPage, r *http.Request, res reconjob.Results) {
	q := r.URL.Query()
	page.Summary = &res.Summary
	// The totals have the file's currency's decimals already when it has one currency.
	exact := func(d decimal.Decimal) string { return d.StringFixed(max(0, -d.Exponent())) }
	page.ExpectedTotal, page.MatchedTotal = exact(res.Summary.ExpectedTotal), exact(res.Summary.MatchedTotal)
	page.Query, page.Sort = strings.TrimSpace(q.Get("q")), q.Get("sort")
	tables := map[string][]resultRow{
		"matched": matchedRows(res.Matched), "partial": partialRows(res.Partial),
		"unmatched": unmatchedRows(res.Unmatched), "bank": bankRows(res.UnmatchedBankEntries),
	}
	page.Tab = q.Get("tab")
	if _, ok := tables[page.Tab]; !ok {
		page.Tab = "matched"
	}
	link := func(tab string, offset int) string {
		v := url.Values{"tab": {tab}}
		if page.Query != "" {
			v.Set("q", page.Query)
		}
		if page.Sort != "" {
			v.Set("sort", page.Sort)
		}
		if offset > 0 {
			v.Set("offset", strconv.Itoa(offset))
		}
		return page.Job.Link + "?" + v.Encode()
	}
	for _, t := range []struct{ name, label string }{{"matched", "Matched"}, {"partial", "Partial"}, {"unmatched", "Unmatched"}, {"bank", "Bank lines that paid nothing"}} {
		page.Tabs = append(page.Tabs, resultTab{Name: t.name, Label: t.label, Count: len(tables[t.name]), Link: link(t.name, 0), Current: t.name == page.Tab})
	}
	rows := filterRows(tables[page.Tab], page.Query)
	sortRows(rows, page.Sort)
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(0, min(offset, len(rows)))
	page.Total, page.From, page.To = len(rows), offset+1, min(offset+resultsPageSize, len(rows))
	page.Rows = rows[offset:page.To]
	if offset > 0 {
		page.Prev = link(page.Tab, max(0, offset-resultsPageSize))
	}
	if page.To < len(rows) {
		page.Next = link(page.Tab, page.To)
	}
}

func lines(entries []reconjob.BankEntry) []lineView {
	out := make([]lineView, len(entries))
	for i, e := range entries {
		out[i] = lineView{Line: e.Line, Date: e.Date.String(), Amount: money(e.Amount, e.Currency), Text: httpkit.DisplayText(e.Text)}
	}
	return out
}

// money is an amount with at least its currency's decimals (never rounded: more stay), and its
// currency when known; whatever decimal.TrimTrailingZeros says.
func money(d decimal.Decimal, currency string) string {
	s := d.StringFixed(max(int32(statement.MinorUnits(currency)), -d.Exponent()))
	if currency != "" {
		s += " " + currency
	}
	return s
}

func matchedRows(ms []reconjob.MatchedReference) []resultRow {
	out := make([]resultRow, len(ms))
	for i, m := range ms {
		out[i] = resultRow{Reference: m.Reference, Currency: m.Currency, Expected: money(m.Amount, m.Currency),
			Paid: money(m.Amount, m.Currency), Rule: ruleWords(m.DecidingRule(), len(m.BankEntries)), Lines: lines(m.BankEntries), amount: m.Amount}
	}
	return out
}

func partialRows(ps []reconjob.PartialReference) []resultRow {
	out := make([]resultRow, len(ps))
	for i, p := range ps {
		out[i] = resultRow{Reference: p.Reference, Currency: p.Currency, Expected: money(p.ExpectedAmount, p.Currency),
			Paid: money(p.MatchedAmount, p.Currency), Reason: reasonWords(p), Rule: ruleWords(p.DecidingRule(), len(p.BankEntries)),
			Lines: lines(p.BankEntries), amount: p.ExpectedAmount}
	}
	return out
}

func unmatchedRows(us []reconjob.UnmatchedReference) []resultRow {
	out := make([]resultRow, len(us))
	for i, u := range us {
		out[i] = resultRow{Reference: u.Reference, Currency: u.Currency, Expected: money(u.Amount, u.Currency),
			Suggestions: lines(u.Suggestions), amount: u.Amount}
	}
	return out
}

func bankRows(bs []reconjob.BankEntry) []resultRow {
	out := make([]resultRow, len(bs))
	for i, b := range bs {
		out[i] = resultRow{Lines: lines([]reconjob.BankEntry{b}), Paid: money(b.Amount, b.Currency), amount: b.Amount}
	}
	return out
}

// reasonWords says why a partial reference is not paid: under-paid by 12.00, paid twice,
// paid in another currency.
func reasonWords(p reconjob.PartialReference) string {
	switch p.Reason {
	case match.ReasonAmountMismatch:
		diff := p.ExpectedAmount.Sub(p.MatchedAmount)
		if diff.IsPositive() {
			return "under-paid by " + money(diff, p.Currency)
		}
		return "over-paid by " + money(diff.Neg(), p.Currency)
	case match.ReasonDuplicatePayment:
		if n := len(p.BankEntries); n > 2 {
			return fmt.Sprintf("paid %d times", n)
		}
		return "paid twice"
	case match.ReasonCurrencyMismatch:
		var other []string
		for _, e := range p.BankEntries {
			if e.Currency != "" && e.Currency != p.Currency && !slices.Contains(other, e.Currency) {
				other = append(other, e.Currency)
			}
		}
		if len(other) > 0 {
			return "paid in another currency (" + strings.Join(other, ", ") + ")"
		}
		return "paid in another currency"
	}
	return string(p.Reason)
}

// ruleWords names the rule that decided a reference.
func ruleWords(rule match.Rule, lines int) string {
	switch rule {
	case match.RuleExact:
		return "exact: one line pays the amount"
	case match.RuleCombinedPayment:
		return "combined payment: one line pays several references"
	case match.RuleInstalments:
		return fmt.Sprintf("instalments: %d lines together pay the amount", lines)
	case match.RuleAmountMismatch:
		return "amount differs"
	case match.RuleDuplicatePayment:
		return "duplicate payment"
	case match.RuleCurrencyMismatch:
		return "currency differs"
	}
	return string(rule)
}

// filterRows keeps the rows whose reference or bank text contains q, without case.
func filterRows(rows []resultRow, q string) []resultRow {
	if q == "" {
		return rows
	}
	q = strings.ToLower(q)
	var out []resultRow
	for _, row := range rows {
		hit := strings.Contains(strings.ToLower(row.Reference), q)
		for _, l := range append(slices.Clone(row.Lines), row.Suggestions...) {
			hit = hit || strings.Contains(strings.ToLower(l.Text), q)
		}
		if hit {
			out = append(out, row)
		}
	}
	return out
}

// sortRows orders rows by reference, amount (largest first) or date; unknown keeps the
// results' order.
func sortRows(rows []resultRow, by string) {
	switch by {
	case "reference":
		slices.SortStableFunc(rows, func(a, b resultRow) int { return strings.Compare(a.Reference, b.Reference) })
	case "amount":
		slices.SortStableFunc(rows, func(a, b resultRow) int { return b.amount.Abs().Cmp(a.amount.Abs()) })
	case "date":
		slices.SortStableFunc(rows, func(a, b resultRow) int { return strings.Compare(a.date(), b.date()) })
	}
}

// reconDownload streams a completed job's results as CSV or XLSX, the rows of the API's
// GET /api/v1/jobs/{job_id}/results?format=csv|xlsx (reconjob.WriteResults).
func (s *Server) reconDownload(format string) func(http.ResponseWriter, *http.Request, signedInRequest) {
	return func(w http.ResponseWriter, r *http.Request, req signedInRequest) {
		s.serveReconDownload(w, r, req, format)
	}
}

func (s *Server) serveReconDownload(w http.ResponseWriter, r *http.Request, req signedInRequest, format string) {
	env := account.Environment(r.PathValue("env"))
	id, ok := jobID(r)
	if !ok || (env != account.Production && env != account.Sandbox) {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such job.")
		return
	}
	j, doc, err := s.cfg.Recon.OpenResults(r.Context(), req.user.AccountID, env, id)
	if s.jobRefusal(w, r, err, "job", "results") {
		return
	}
	ctx := r.Context()
	d := httpkit.Download{Ctx: ctx, Logger: s.cfg.Logger, ContentType: "text/csv; charset=utf-8",
		Filename: "results-" + j.ID.String() + ".csv", LogAttrs: []any{slog.String("job_id", j.ID.String()), slog.String("format", format)},
		Write: func(w io.Writer, flush func() error) error {
			t, err := sheet.NewCSV(w, reconjob.ResultsColumns)
			if err != nil {
				return err
			}
			return reconjob.WriteResults(doc, t, flush)
		}}
	if format == "xlsx" {
		d.ContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		d.Filename = "results-" + j.ID.String() + ".xlsx"
		d.Write = func(w io.Writer, _ func() error) error {
			t, err := sheet.NewXLSX(w, "Results", reconjob.ResultsColumns)
			if err != nil {
				return err
			}
			return reconjob.WriteResults(doc, t, func() error { return ctx.Err() })
		}
	}
	if err := d.Serve(w); err != nil {
		s.unavailable(w, r, err)
	}
}

// txView is a parsed transaction as the table shows it.
type txView struct {
	// Number is the transaction's place in the statement, from 1.
	Number                                    int
	Date, Amount, Balance, Description, Where string
	Counterparty, Reference                   string
	// Review holds the review reasons that name the transaction's line.
	Review []string
	// OnPage is the address of the transaction on its page; empty when
	// the file has no pages or the reader could not tell where the row stands.
	OnPage string
	Debit  bool
}

type parseJobPage struct {
	Job    jobRow
	Detail parsejob.Job
	Ready  bool
	// Expired says when the transactions were deleted after the retention period; "" while
	// kept.
	Expired string
	// Opening, Credits, Debits, Computed and Closing are the balance check, when the statement
	// states both balances: Opening + Credits - Debits = Computed, which should be Closing.
	Check                                       bool
	Opening, Credits, Debits, Computed, Closing string
	Balanced                                    bool
	Period                                      string
	Reviews                                     []statement.ReviewReason
	Rows                                        []txView
	OnlyReview                                  bool
	// Capped: more rows to review than the page lists (maxReviewRows); the exports have all.
	Capped                                       bool
	Next, AllLink, ReviewLink, CSVLink, JSONLink string
	Live                                         bool
}

func (s *Server) parseJobPage(w http.ResponseWriter, r *http.Request, req signedInRequest) {
	id, ok := jobID(r)
	if !ok {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such job.")
		return
	}
	ctx := r.Context()
	j, err := s.cfg.Parse.Get(ctx, req.user.AccountID, id)
	if s.jobRefusal(w, r, err, "job", "") {
		return
	}
	page := parseJobPage{Job: parseRow(j), Detail: j, Ready: j.Status.HasResults() && j.ResultsDeletedAt == nil, Reviews: j.ReviewReasons}
	if j.ResultsDeletedAt != nil {
		page.Expired = j.ResultsDeletedAt.UTC().Format("2006-01-02")
	}
	page.Live = page.Job.Live()
	base := page.Job.Link
	page.AllLink, page.ReviewLink = base, base+"?only=review"
	page.CSVLink, page.JSONLink = base+"/export.csv", base+"/export.json"
	if !j.PeriodStart.IsZero() || !j.PeriodEnd.IsZero() {
		page.Period = j.PeriodStart.String() + " to " + j.PeriodEnd.String()
	}
	if !page.Ready {
		s.render(w, r, http.StatusOK, "parse_job", signedInView(req, "Parsing job", "jobs", page))
		return
	}
	flagged := reviewsByLine(j)
	view := func(t parsejob.Transaction) txView { return txRow(t, flagged, base) }
	// One pass over every transaction for the balance check (and the rows to review): the
	// store reads them a batch at a time.
	credits, debits := decimal.Zero, decimal.Zero
	page.OnlyReview = r.URL.Query().Get("only") == "review"
	err = s.cfg.Parse.EachTransaction(ctx, j.ID, func(t parsejob.Transaction) error {
		if t.Amount.IsNegative() {
			debits = debits.Add(t.Amount.Neg())
		} else {
			credits = credits.Add(t.Amount)
		}
		if page.OnlyReview {
			if v := view(t); len(v.Review) > 0 {
				if len(page.Rows) == maxReviewRows {
					page.Capped = true
				} else {
					page.Rows = append(page.Rows, v)
				}
			}
		}
		return nil
	})
	if err != nil {
		s.unavailable(w, r, err)
		return
	}
	if j.OpeningBalance != nil && j.ClosingBalance != nil {
		computed := j.OpeningBalance.Add(credits).Sub(debits)
		page.Check, page.Balanced = true, computed.Equal(*j.ClosingBalance)
		page.Opening, page.Credits, page.Debits = money(*j.OpeningBalance, j.Currency), money(credits, j.Currency), money(debits, j.Currency)
		page.Computed, page.Closing = money(computed, j.Currency), money(*j.ClosingBalance, j.Currency)
	}
	if !page.OnlyReview {
		_, txs, next, err := s.cfg.Parse.Results(ctx, req.user.AccountID, j.ID, r.URL.Query().Get("after"), resultsPageSize)
		switch {
		case errors.Is(err, cursor.ErrBad):
			s.message(w, r, http.StatusBadRequest, "Bad page", "This page of transactions is not one the dashboard made: start from the first.")
			return
		case err != nil:
			s.unavailable(w, r, err)
			return
		}
		for _, t := range txs {
			page.Rows = append(page.Rows, view(t))
		}
		if next != "" {
			page.Next = base + "?after=" + next
		}
	}
	s.render(w, r, http.StatusOK, "parse_job", signedInView(req, "Parsing job", "jobs", page))
}

// reviewsByLine is the messages of a job's review reasons by the line they name.
func reviewsByLine(j parsejob.Job) map[int][]string {
	flagged := map[int][]string{}
	for _, rr := range j.ReviewReasons {
		if rr.Line > 0 {
			flagged[rr.Line] = append(flagged[rr.Line], rr.Message)
		}
	}
	return flagged
}

// txRow is a transaction as the tables show it, with the review reasons (of flagged) that name
// its line, and a link to it on its page (under base, the job's address) when the reader knows
// where it stands there.
func txRow(t parsejob.Transaction, flagged map[int][]string, base string) txView {
	v := txView{Number: t.Seq + 1, Date: t.Date.String(), Amount: money(t.Amount, t.Currency), Description: httpkit.DisplayText(t.Description),
		Where: t.Pos.String(), Counterparty: httpkit.DisplayText(t.CounterpartyName), Reference: httpkit.DisplayText(t.Reference),
		Debit: t.Amount.IsNegative()}
	if t.Balance != nil {
		v.Balance = money(*t.Balance, t.Currency)
	}
	v.Review = flagged[t.Pos.Line]
	if t.Pos.Record > 0 && t.Pos.Record != t.Pos.Line {
		v.Review = append(slices.Clone(v.Review), flagged[t.Pos.Record]...)
	}
	if t.Pos.Box != nil && t.Pos.Page > 0 {
		v.OnPage = base + "/rows/" + strconv.Itoa(t.Seq+1)
	}
	return v
}

// parseExport streams a readable job's transactions as the API's export does.
func (s *Server) parseExport(json bool) func(http.ResponseWriter, *http.Request, signedInRequest) {
	return func(w http.ResponseWriter, r *http.Request, req signedInRequest) {
		s.serveParseExport(w, r, req, json)
	}
}

func (s *Server) serveParseExport(w http.ResponseWriter, r *http.Request, req signedInRequest, json bool) {
	id, ok := jobID(r)
	if !ok {
		s.message(w, r, http.StatusNotFound, "Not found", "This account has no such job.")
		return
	}
	j, err := s.cfg.Parse.Export(r.Context(), req.user.AccountID, id)
	if s.jobRefusal(w, r, err, "job", "transactions") {
		return
	}
	if err := parsehttp.ServeExport(r.Context(), w, s.cfg.Parse, j, json, s.cfg.Logger); err != nil {
		s.unavailable(w, r, err)
	}
}
