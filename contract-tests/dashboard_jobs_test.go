package contracttests

import (
	"bytes"
	"encoding/csv"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// TestDashboardJobs (D6): a developer reconciles and parses statements in the browser. Jobs are
// uploaded with the New job page; with no worker running yet they wait, and their pages (and
// the list) change to completed by themselves, without a reload, once a worker starts. The
// results page shows the matched, partial (with the reason in words), unmatched and unused
// lines, filtered by reference; its CSV and XLSX downloads have the API's cells. A file that is
// not an expected-payments file is refused beside its field; a protected PDF without its
// password is refused beside the file field and read with it; the same form sent twice makes
// one job. A statement whose balances do not add up shows the sum in red and its rows to
// review. A viewer reads jobs but cannot upload; another account's jobs are not found.
func TestDashboardJobs(t *testing.T) {
	// Not parallel: see TestDashboardCredentials. No worker at first: jobs wait, so the pages
	// are seen while they run.
	c := newJobCluster(t)
	s := c.api
	acct, other := s.newAccount(t, "Jobs Ltd"), s.newAccount(t, "Other Jobs")
	const password = "a jobs passphrase"
	s.remember(password)
	dev, viewer, stranger := newBrowser(t), newBrowser(t), newBrowser(t)
	setPasswordAndSignIn(t, dev, s.invite(t, acct, "dev@jobs.example", "developer"), "dev@jobs.example", password)
	setPasswordAndSignIn(t, viewer, s.invite(t, acct, "viewer@jobs.example", "viewer"), "viewer@jobs.example", password)
	setPasswordAndSignIn(t, stranger, s.invite(t, other, "dev@other.example", "developer"), "dev@other.example", password)
	require.Equal(t, "Jobs", dev.text("h1"), "signing in lands on the jobs")

	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	bank, invoices := file("march.csv", bankCSV(reconBankLines)), file("invoices.csv", []byte(reconExpectedCSV))
	notInvoices := file("notes.csv", []byte("just,some\nwords,here\n"))
	pdfPassword := secretWord(t, "pw")
	s.remember(pdfPassword)
	protectedPDF, _ := protect(t, "us-checking-chromium", pdfPassword)
	protectedPath := file("locked.pdf", protectedPDF)
	unbalanced := file("february.csv", brokenRunningBalance.bytes(t))
	misprinted := file("misprinted.pdf", bankPDF(t, reconBankLines, 3))

	// A reconciliation: first with a file that holds no expected payments.
	dev.open(s.DashboardURL + "/jobs/new")
	dev.shot("dashboard-new-job")
	dev.upload(map[string]string{"#bank": bank, "#expected": notInvoices}, nil, "#expected-problem")
	require.Contains(t, dev.text("#expected-problem"), "No reference column")
	none, err := chromedp.Run(dev.ctx, chromedp.Evaluate[bool]("document.querySelector('#bank-problem') === null"))
	require.NoError(t, err)
	require.True(t, none, "the bank statement was fine")
	dev.shot("dashboard-new-job-refused")
	dev.upload(map[string]string{"#bank": bank, "#expected": invoices}, nil, "dl.facts")
	recon := dev.location()
	require.Contains(t, recon, "/jobs/reconciliation/production/")
	require.Equal(t, "processing", dev.text(".badge"))

	// The same form sent twice (a double click) makes one job.
	session := dev.cookie(s.DashboardURL, "sm_session")
	dev.open(s.DashboardURL + "/jobs/new?kind=parsing")
	form, err := chromedp.Run(dev.ctx, chromedp.OuterHTML("form[data-upload]"))
	require.NoError(t, err)
	fields := map[string]string{"csrf": csrfField.FindStringSubmatch(form)[1],
		"idempotency_key": regexpValue(t, form, "idempotency_key")}
	first := dashboardUpload(t, s, "/jobs/parsing", session, fields, map[string][]byte{"file": simpleCSV(3)})
	second := dashboardUpload(t, s, "/jobs/parsing", session, fields, map[string][]byte{"file": simpleCSV(3)})
	require.Equal(t, http.StatusSeeOther, first.StatusCode)
	require.Equal(t, first.Header.Get("Location"), second.Header.Get("Location"), "one job for one form")
	fields["csrf"] = "not the token"
	require.Equal(t, http.StatusForbidden, dashboardUpload(t, s, "/jobs/parsing", session, fields, map[string][]byte{"file": simpleCSV(3)}).StatusCode)

	// A protected PDF: refused beside the field without its password, read with it.
	dev.open(s.DashboardURL + "/jobs/new?kind=parsing")
	dev.upload(map[string]string{"#file": protectedPath}, nil, "#file-problem")
	require.Contains(t, dev.text("#file-problem"), "password")
	dev.upload(map[string]string{"#file": protectedPath}, map[string]string{"#password": pdfPassword}, "dl.facts")
	pdfJob := dev.location()

	// A statement that does not add up, and a PDF whose fourth line shows a wrong balance.
	dev.open(s.DashboardURL + "/jobs/new?kind=parsing")
	dev.upload(map[string]string{"#file": unbalanced}, nil, "dl.facts")
	review := dev.location()
	dev.open(s.DashboardURL + "/jobs/new?kind=parsing")
	dev.upload(map[string]string{"#file": misprinted}, nil, "dl.facts")
	pdfReview := dev.location()

	// The viewer watches the list; the developer the reconciliation. A worker starts: both
	// pages change by themselves, without a reload.
	viewer.open(s.DashboardURL + "/jobs?kind=parsing")
	require.Contains(t, viewer.text("tbody"), "locked.pdf")
	require.Contains(t, viewer.text("tbody"), "february.csv")
	require.Contains(t, viewer.text("tbody"), "misprinted.pdf")
	require.Contains(t, viewer.text("tbody"), "queued")
	html, err := chromedp.Run(viewer.ctx, chromedp.OuterHTML("main"))
	require.NoError(t, err)
	require.NotContains(t, html, "/jobs/new", "a viewer has no New job")
	viewer.shot("dashboard-jobs-running")
	dev.open(recon)
	for _, b := range []*browser{viewer, dev} {
		_, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("(window.__stayed = true)"))
		require.NoError(t, err)
	}
	c.worker(t)
	viewer.waitFor("#live:not([data-live])", "the list after the jobs finished")
	dev.waitFor("#live:not([data-live]) .badge.status-completed", "the job page after the job finished")
	for _, b := range []*browser{viewer, dev} {
		stayed, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("window.__stayed === true"))
		require.NoError(t, err)
		require.True(t, stayed, "the page changed without a reload")
	}
	require.NotContains(t, viewer.text("tbody"), "queued")
	require.Contains(t, viewer.text("tbody"), "review")
	viewer.shot("dashboard-jobs")

	// The results of the reconciliation.
	dev.open(recon)
	tabs := dev.text("nav.tabs")
	for _, want := range []string{"Matched (2)", "Partial (2)", "Unmatched (1)", "Bank lines that paid nothing (1)"} {
		require.Contains(t, tabs, want)
	}
	matched := dev.text("table.results")
	require.Contains(t, matched, "INV-2024-001")
	require.Contains(t, matched, "instalments: 2 lines together pay the amount")
	dev.shot("dashboard-recon-results")
	dev.click("nav.tabs a[href*='tab=partial']", "table.results")
	partial := dev.text("table.results")
	require.Contains(t, partial, "under-paid by 50.00 EUR")
	require.Contains(t, partial, "paid twice")
	dev.shot("dashboard-recon-partial")
	dev.submit(map[string]string{"#q": "gamma"}, "form.filters button", "table.results")
	require.Contains(t, dev.text("table.results"), "INV-2024-003")
	require.NotContains(t, dev.text("table.results"), "INV-2024-005", "filtered by the bank text")
	dev.open(recon + "?tab=unmatched") // the tabs keep the filter; this drops it
	require.Contains(t, dev.text("table.results"), "INV-2024-004")
	dev.click("nav.tabs a[href*='tab=bank']", "table.results")
	require.Contains(t, dev.text("table.results"), "CARD PAYMENT OFFICE SUPPLIES")

	// Its downloads: the API's cells.
	csvBody := dashboardGet(t, s, strings.TrimPrefix(recon, s.DashboardURL)+"/results.csv", session)
	rows, err := csv.NewReader(bytes.NewReader(csvBody)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "status", rows[0][0])
	var gamma []string
	for _, row := range rows {
		if row[1] == "INV-2024-003" {
			gamma = row
		}
	}
	require.Equal(t, []string{"partial", "INV-2024-003", "EUR", "500.00", "450.00", "amount_mismatch"}, gamma[:6])
	require.Equal(t, []string{"2024-03-12", "450.00", "TRANSFER GAMMA SARL INV2024003"}, gamma[8:11])
	book, err := excelize.OpenReader(bytes.NewReader(dashboardGet(t, s, strings.TrimPrefix(recon, s.DashboardURL)+"/results.xlsx", session)))
	require.NoError(t, err)
	sheetRows, err := book.GetRows("Results")
	require.NoError(t, err)
	require.Len(t, sheetRows, len(rows), "the workbook has the CSV's rows")
	require.Equal(t, rows[0], sheetRows[0])

	// The protected PDF was read; the unbalanced statement shows its sum in red and its rows.
	dev.open(pdfJob)
	require.Contains(t, dev.text(".badge"), "completed")
	require.Contains(t, dev.text(".balance"), "it adds up")
	dev.open(review)
	require.Equal(t, "review", dev.text(".badge"))
	require.Contains(t, dev.text(".balance"), "does not add up")
	require.Contains(t, dev.text(".balance"), "= 1890.00 GBP")
	require.Contains(t, dev.text("tr.flagged"), "CARD PAYMENT BOOKSHOP")
	dev.shot("dashboard-parse-review")
	// The PDF's doubtful row, seen on its page: the picture with the row outlined.
	dev.open(pdfReview)
	require.Equal(t, "review", dev.text(".badge"))
	require.Contains(t, dev.text("tr.flagged"), "TRANSFER GAMMA SARL INV2024003")
	dev.click("tr.flagged a[href*='/rows/']", "#page-image")
	require.Equal(t, "Transaction 4", dev.text("h1"))
	require.Contains(t, dev.text("main"), "running balance")
	drawn, err := chromedp.Run(dev.ctx, chromedp.Evaluate[bool](`new Promise(done => {
		const img = document.getElementById('page-image');
		const check = () => done(img.naturalWidth === 1000 && img.naturalHeight > 1000);
		img.complete ? check() : img.addEventListener('load', check);
	})`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.True(t, drawn, "the page is drawn, 1000 pixels wide")
	box, err := chromedp.Run(dev.ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('.page-frame rect');
		return [+r.getAttribute('x'), +r.getAttribute('y'), +r.getAttribute('width'), +r.getAttribute('height')]; })()`))
	require.NoError(t, err)
	require.Greater(t, box[1], 0.2, "the fourth row stands below the preamble: %v", box)
	require.Less(t, box[1], 0.5, "and in the page's upper half: %v", box)
	require.Less(t, box[3], 0.03, "one line high: %v", box)
	require.Greater(t, box[2], 0.5, "across the table: %v", box)
	dev.shot("dashboard-row-on-page")
	pageImage := strings.TrimPrefix(pdfReview, s.DashboardURL) + "/pages/1"
	require.True(t, bytes.HasPrefix(dashboardGet(t, s, pageImage, session), []byte("\x89PNG")), "a PNG")

	exported := dashboardGet(t, s, strings.TrimPrefix(review, s.DashboardURL)+"/export.csv", session)
	require.Equal(t, len(brokenRunningBalance.Lines)+1, bytes.Count(exported, []byte("\r\n")), "the CSV export: a header and a row per line")

	// Usage: this month's jobs against the plans, per day.
	viewer.open(s.DashboardURL + "/usage")
	usage := viewer.text("main")
	require.Contains(t, usage, "Reconciliation · production")
	require.Contains(t, usage, "1 of 20000 jobs (pro plan)")
	require.Contains(t, usage, "0 of 100 jobs", "the sandbox's own quota")
	require.Contains(t, usage, "4 of ", "four parsing jobs: the double click made one")
	require.Contains(t, usage, "transactions parsed")
	bars, err := chromedp.Run(viewer.ctx, chromedp.Evaluate[int]("document.querySelectorAll('svg.chart rect.bar').length"))
	require.NoError(t, err)
	require.Equal(t, 3*time.Now().UTC().Day(), bars, "a bar a day so far, in each of the three charts")
	viewer.shot("dashboard-usage")

	// A viewer cannot upload; another account's jobs are not found.
	viewerSession := viewer.cookie(s.DashboardURL, "sm_session")
	page, err := chromedp.Run(viewer.ctx, chromedp.OuterHTML("body"))
	require.NoError(t, err)
	upload := dashboardUpload(t, s, "/jobs/parsing", viewerSession, map[string]string{"csrf": csrfField.FindStringSubmatch(page)[1]},
		map[string][]byte{"file": simpleCSV(2)})
	require.Equal(t, http.StatusForbidden, upload.StatusCode)
	strangerSession := stranger.cookie(s.DashboardURL, "sm_session")
	for _, path := range []string{recon, recon + "/results.csv", recon + "/results.xlsx", review, review + "/export.json",
		pdfReview + "/rows/4", pdfReview + "/pages/1"} {
		req, err := http.NewRequest(http.MethodGet, path, nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: "sm_session", Value: strangerSession})
		require.Equal(t, http.StatusNotFound, send(t, http.DefaultClient, req).StatusCode, path)
	}
	stranger.open(s.DashboardURL + "/jobs?kind=parsing")
	require.Contains(t, stranger.text("tbody"), "No jobs yet")
	s.requireNoSecretsInLogs(t)
}

// upload chooses files (field selector -> path) and types fields in an upload form, sends it and
// waits for waitFor. The page's script sends it: a refusal replaces the document in the same
// window, so the page is not marked as left (see click).
func (b *browser) upload(files, fields map[string]string, waitFor string) {
	b.t.Helper()
	for sel, path := range files {
		b.do(chromedp.SetUploadFiles(sel, []string{path}))
	}
	for sel, text := range fields {
		b.do(chromedp.SendKeys(sel, text))
	}
	b.do(chromedp.Click("form[data-upload] button[type=submit]"))
	b.waitFor(waitFor, "after sending the upload")
}

// regexpValue is the value of the hidden field name in html.
func regexpValue(t *testing.T, html, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(html, `name="`+name+`" value="`)
	require.True(t, ok, "no field %s", name)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// dashboardUpload posts a multipart form to the dashboard with the session cookie, without
// following its redirect.
func dashboardUpload(t *testing.T, s *server, path, session string, fields map[string]string, files map[string][]byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		require.NoError(t, mw.WriteField(k, v))
	}
	for k, data := range files {
		w, err := mw.CreateFormFile(k, k+".csv")
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, s.DashboardURL+path, &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(&http.Cookie{Name: "sm_session", Value: session})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// dashboardGet fetches a dashboard path with the session cookie and returns the body of its
// 200.
func dashboardGet(t *testing.T, s *server, path, session string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.DashboardURL+path, nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: "sm_session", Value: session})
	resp := send(t, http.DefaultClient, req)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, resp.body)
	return resp.body
}
