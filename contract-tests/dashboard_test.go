package contracttests

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
)

// The dashboard's tests drive Debian's Chromium, headless, through chromedp, as a person would:
// typing into fields and pressing buttons. They are not parallel: Go runs them one by one
// before the parallel tests of the package, so no two browsers and no load compete. Each writes screenshots of the pages it sees into
// SCREENSHOT_DIR (default .screenshots/ at the top of the repository, ignored by git), for a
// person to look at.

// chromiumPath is Debian's Chromium; .ci/run installs it.
const chromiumPath = "/usr/bin/chromium"

// browser is one browser profile (its own cookies) with one tab.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// newBrowser starts a headless Chromium with a fresh profile, closed when the test ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the dashboard tests need Chromium at %s (Debian's chromium package; .ci/run installs it): %v", chromiumPath, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-dev-shm-usage", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return &browser{t: t, ctx: ctx}
}

// do runs steps, failing the test on an error.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, steps...))
}

// open navigates to url and waits for the page (after any redirect) to show its heading.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do(chromedp.Navigate(url))
	b.waitFor("h1", "opening "+url)
}

// waitFor waits until the loaded page has an element sel, asking the page every 20 ms rather
// than holding a DOM query open across a navigation (which can hang when the document is
// replaced under it), for at most 30 s.
func (b *browser) waitFor(sel, doing string) {
	b.t.Helper()
	check := fmt.Sprintf("!window.__left && document.readyState === 'complete' && document.querySelector(%q) !== null", sel)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](check))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string]("document.location.href + '\\n' + document.body.innerText"))
			b.t.Fatalf("%s: no %s within 30 s (%v)\npage: %s", doing, sel, err, page)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Text(sel))
	require.NoError(b.t, err, sel)
	return v
}

func (b *browser) value(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Value(sel))
	require.NoError(b.t, err, sel)
	return v
}

func (b *browser) location() string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Location())
	require.NoError(b.t, err)
	return v
}

// submit types into the fields (selector -> text), presses the button, and waits for the next
// page to load and show waitFor.
func (b *browser) submit(fields map[string]string, button, waitFor string) {
	b.t.Helper()
	var steps []chromedp.Action[chromedp.Void]
	for sel, text := range fields {
		_, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](fmt.Sprintf("(document.querySelector(%q).value = '', true)", sel)))
		require.NoError(b.t, err, "clear %s", sel)
		steps = append(steps, chromedp.SendKeys(sel, text))
	}
	b.do(steps...)
	b.click(button, waitFor)
}

// click presses the button (or follows the link) sel and waits for the next page to load and
// show waitFor: the page it leaves is marked, so that its own elements do not count.
func (b *browser) click(sel, waitFor string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("(window.__left = true)"))
	require.NoError(b.t, err)
	b.do(chromedp.Click(sel))
	b.waitFor(waitFor, "after clicking "+sel)
}

// unfold opens the page's "Create" section.
func (b *browser) unfold() {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("(document.querySelector('details.create').open = true)"))
	require.NoError(b.t, err)
}

// cookie returns the value of the browser's cookie name for base, "" when it has none.
func (b *browser) cookie(base, name string) string {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	require.NoError(b.t, err)
	for _, c := range res.Cookies {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// accessibilityCheck lists what a page lacks for assistive technology: a field without a label
// (for=, an enclosing label or aria-label), a button or link without a name, no lang, or not
// exactly one h1.
const accessibilityCheck = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (el.hidden) continue;
    const labelled = el.getAttribute('aria-label') || el.closest('label') ||
      (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]'));
    if (!labelled) bad.push('unlabelled ' + el.outerHTML.slice(0, 80));
  }
  for (const el of document.querySelectorAll('button, a')) {
    if (!(el.textContent.trim() || el.getAttribute('aria-label'))) bad.push('nameless ' + el.outerHTML.slice(0, 80));
  }
  if (!document.documentElement.lang) bad.push('no lang');
  const h1 = document.querySelectorAll('h1').length;
  if (h1 !== 1) bad.push(h1 + ' h1 elements');
  return bad;
})()`

// shot checks the page with accessibilityCheck and saves a full-page screenshot as name.jpg.
func (b *browser) shot(name string) {
	b.t.Helper()
	problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](accessibilityCheck))
	require.NoError(b.t, err)
	require.Empty(b.t, problems, "%s: fields, buttons and links are named for assistive technology", name)
	jpg, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(90))
	require.NoError(b.t, err)
	b.save(name+".jpg", jpg)
}

// save writes a screenshot into SCREENSHOT_DIR (default .screenshots/ at the top of the
// repository).
func (b *browser) save(file string, data []byte) {
	b.t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join("..", ".screenshots")
	}
	require.NoError(b.t, os.MkdirAll(dir, 0o755))
	require.NoError(b.t, os.WriteFile(filepath.Join(dir, file), data, 0o644))
}

// invite runs `statementd admin user invite` and returns the set-password link.
func (s *server) invite(t testing.TB, accountID, email, role string) string {
	t.Helper()
	out := s.admin(t, "user", "invite", "--json", "--account", accountID, "--email", email, "--role", role, "--dashboard-url", s.DashboardURL)
	link := str(t, out, "link")
	require.True(t, strings.HasPrefix(link, s.DashboardURL+"/set-password/"), link)
	s.remember(strings.TrimPrefix(link, s.DashboardURL+"/set-password/"))
	return link
}

// setPasswordAndSignIn follows an invitation link in b, sets the password and signs in.
func setPasswordAndSignIn(t *testing.T, b *browser, link, email, password string) {
	t.Helper()
	b.open(link)
	require.Equal(t, "Set your password", b.text("h1"))
	require.NotContains(t, b.location(), "/set-password/", "the link's token leaves the address bar at once")
	b.submit(map[string]string{"#password": password, "#confirm": password}, "button[type=submit]", "#email")
	require.Contains(t, b.text(".notice"), "Your password is set")
	b.submit(map[string]string{"#email": email, "#password": password}, "button[type=submit]", "nav")
}

// dashboardPost posts form to the dashboard with the session cookie, as a script of another
// site or a hand-made request would, and returns the status and body.
func dashboardPost(t *testing.T, s *server, path, session string, form url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.DashboardURL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if session != "" {
		req.AddCookie(&http.Cookie{Name: "sm_session", Value: session})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// TestDashboardCredentials (D1): an owner invited by the operator sets a password, signs in,
// creates an API client and an API key in the browser and uses them against the APIs, revokes
// both and sees them refused; the audit log says who did what from where. Nothing secret is
// logged; a secret shown once is not shown again.
func TestDashboardCredentials(t *testing.T) {
	// Not parallel: the browser tests run alone, before the parallel tests are let go, so that
	// Chromium never starts on a machine busy with them.
	s := startServer(t, "STATEMENTD_AUTH_CACHE_TTL=0s")
	acct := s.newAccount(t, "Dashboard Ltd")
	const email, password = "owner@dashboard.example", "a long owner passphrase"
	s.remember(password)
	link := s.invite(t, acct, email, "owner")

	b := newBrowser(t)
	b.open(link)
	b.shot("dashboard-set-password")
	b.submit(map[string]string{"#password": password, "#confirm": password + "x"}, "button[type=submit]", ".problem")
	require.Contains(t, b.text(".problem"), "The two passwords differ")
	b.submit(map[string]string{"#password": password, "#confirm": password}, "button[type=submit]", "#email")
	b.shot("dashboard-sign-in")

	b.submit(map[string]string{"#email": email, "#password": "wrong password!"}, "button[type=submit]", ".problem")
	require.Equal(t, "The email or the password is wrong.", b.text(".problem"))
	planted := "planted-by-an-attacker-0123456789abcdef"
	_, err := chromedp.Call(b.ctx, network.SetCookie, network.SetCookieParams{Name: "sm_session", Value: planted, URL: s.DashboardURL})
	require.NoError(t, err)
	b.submit(map[string]string{"#email": email, "#password": password}, "button[type=submit]", "nav")
	require.True(t, strings.HasSuffix(b.location(), "/jobs"), "signing in lands on the jobs: %s", b.location())
	session := b.cookie(s.DashboardURL, "sm_session")
	require.NotEqual(t, planted, session, "signing in issues a new session, whatever cookie was there (no fixation)")
	b.open(s.DashboardURL + "/clients")

	// An API client, shown once, works against the Reconciliation API in both environments.
	b.unfold()
	b.click("form[action='/clients'] button", "#client-secret")
	clientID, secret := b.value("#client-id"), b.value("#client-secret")
	s.remember(secret)
	require.True(t, strings.HasPrefix(secret, "cs_"), secret)
	b.shot("dashboard-client-created")
	for _, base := range []string{s.ReconURL, s.SandboxURL} {
		got := send(t, recon(t).client(t), tokenRequest(t, base, httpBasic, clientID, secret))
		require.Equal(t, http.StatusOK, got.StatusCode, "%s: %s", base, got.body)
	}
	b.open(s.DashboardURL + "/clients")
	page, err := chromedp.Run(b.ctx, chromedp.OuterHTML("main"))
	require.NoError(t, err)
	require.NotContains(t, page, secret, "the secret is shown once")
	require.Contains(t, page, clientID)
	require.NotContains(t, b.text("tbody"), "never", "the client's last token is noted")

	// Rotated with an hour's overlap: the new secret works at once, the old one still does.
	b.do(chromedp.SetValue("#overlap-"+clientID, "1h"))
	b.click("form[action='/clients/"+clientID+"/rotate'] button", "#client-secret")
	rotated := b.value("#client-secret")
	s.remember(rotated)
	require.NotEqual(t, secret, rotated)
	require.Contains(t, b.text("tbody"), "previous secret works until")
	b.shot("dashboard-client-rotated")
	for _, sec := range []string{rotated, secret} {
		got := send(t, recon(t).client(t), tokenRequest(t, s.ReconURL, httpBasic, clientID, sec))
		require.Equal(t, http.StatusOK, got.StatusCode, "%s", got.body)
	}

	// An API key likewise, against the Parsing API.
	b.open(s.DashboardURL + "/keys")
	b.unfold()
	b.do(chromedp.Click("input[value='webhooks:manage']"))
	b.click("form[action='/keys'] button", "#api-key")
	key := b.value("#api-key")
	s.remember(key)
	b.shot("dashboard-key-created")
	usage := func() int {
		req, err := http.NewRequest(http.MethodGet, s.ParseURL+"/api/v1/usage", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		return send(t, parse(t).client(t), req).StatusCode
	}
	require.Equal(t, http.StatusOK, usage())
	b.open(s.DashboardURL + "/keys")
	require.Contains(t, b.text("tbody"), "jobs:read, jobs:write, export:read, usage:read", "the scopes chosen, webhooks:manage unticked")

	// Revoked in the browser, refused by the APIs.
	b.click("form[action$='/revoke'] button", ".notice")
	require.Contains(t, b.text(".notice"), "revoked")
	require.Equal(t, http.StatusUnauthorized, usage())
	b.open(s.DashboardURL + "/clients")
	b.click("form[action='/clients/"+clientID+"/revoke'] button", ".notice")
	require.Contains(t, b.text(".notice"), "is revoked")
	for _, sec := range []string{rotated, secret} {
		got := send(t, recon(t).client(t), tokenRequest(t, s.ReconURL, httpBasic, clientID, sec))
		require.Equal(t, http.StatusUnauthorized, got.StatusCode, string(got.body))
	}
	b.shot("dashboard-clients")

	b.open(s.DashboardURL + "/audit")
	log := b.text("tbody")
	for _, want := range []string{"api_key.revoked", "api_client.revoked", "api_client.rotated", "api_key.created", "api_client.created", "user.signed_in",
		"user.sign_in_failed", "user.password_set", "user.invited", "statementd admin", email, "127.0.0.1", clientID} {
		require.Contains(t, log, want)
	}
	b.shot("dashboard-audit")

	// On a phone.
	b.do(chromedp.EmulateViewport(390, 844))
	b.open(s.DashboardURL + "/clients")
	b.shot("dashboard-clients-phone")

	// Sign out: the session cookie no longer opens a page.
	b.do(chromedp.EmulateViewport(1280, 900))
	b.click("form[action='/sign-out'] button", ".notice")
	status, _ := dashboardPost(t, s, "/clients", session, url.Values{"csrf": {"anything"}})
	require.Equal(t, http.StatusForbidden, status, "a signed-out session is refused")
	s.requireNoSecretsInLogs(t)
}

// TestDashboardRefusesWhatItShould (D2): forms without the session's CSRF token, a viewer's
// attempts to change credentials, another account's ids, and guessing passwords are refused; a
// user locked out from one address still signs in from another.
func TestDashboardRefusesWhatItShould(t *testing.T) {
	// Not parallel: the browser tests run alone, before the parallel tests are let go, so that
	// Chromium never starts on a machine busy with them.
	s := startServer(t)
	mine, theirs := s.newAccount(t, "Mine"), s.newAccount(t, "Theirs")
	const password = "a long enough password"
	s.remember(password)
	theirClient, _ := s.newClient(t, theirs)
	theirKey, _ := s.newKey(t, theirs)

	owner, viewer, stranger := newBrowser(t), newBrowser(t), newBrowser(t)
	setPasswordAndSignIn(t, owner, s.invite(t, mine, "dev@mine.example", "developer"), "dev@mine.example", password)
	setPasswordAndSignIn(t, viewer, s.invite(t, mine, "viewer@mine.example", "viewer"), "viewer@mine.example", password)
	setPasswordAndSignIn(t, stranger, s.invite(t, theirs, "owner@theirs.example", "owner"), "owner@theirs.example", password)

	// A viewer sees the lists but no forms, and the server refuses the forms anyway.
	viewer.open(s.DashboardURL + "/clients")
	html, err := chromedp.Run(viewer.ctx, chromedp.OuterHTML("main"))
	require.NoError(t, err)
	require.NotContains(t, html, "Create a client")
	viewer.shot("dashboard-viewer")
	viewerSession := viewer.cookie(s.DashboardURL, "sm_session")
	viewerCSRF := csrfField.FindStringSubmatch(html)
	if viewerCSRF == nil { // no form on the page: take the token from the sign-out form
		page, err := chromedp.Run(viewer.ctx, chromedp.OuterHTML("header"))
		require.NoError(t, err)
		viewerCSRF = csrfField.FindStringSubmatch(page)
	}
	require.NotNil(t, viewerCSRF)
	status, body := dashboardPost(t, s, "/clients", viewerSession, url.Values{"csrf": {viewerCSRF[1]}, "permission": {"jobs:read"}})
	require.Equal(t, http.StatusForbidden, status, body)
	require.Contains(t, body, "Your role (viewer)")

	// The developer's own session, without its CSRF token, with another session's, or from
	// another site's page: refused.
	ownerSession := owner.cookie(s.DashboardURL, "sm_session")
	ownerPage, err := chromedp.Run(owner.ctx, chromedp.OuterHTML("body"))
	require.NoError(t, err)
	ownerCSRF := csrfField.FindStringSubmatch(ownerPage)[1]
	for name, form := range map[string]url.Values{
		"no token":          {"permission": {"jobs:read"}},
		"another session's": {"csrf": {viewerCSRF[1]}, "permission": {"jobs:read"}},
		"a made-up token":   {"csrf": {strings.Repeat("A", 43)}, "permission": {"jobs:read"}},
	} {
		status, body := dashboardPost(t, s, "/clients", ownerSession, form)
		require.Equal(t, http.StatusForbidden, status, "%s: %s", name, body)
		require.Contains(t, body, "Form expired", name)
	}
	req, err := http.NewRequest(http.MethodPost, s.DashboardURL+"/clients",
		strings.NewReader(url.Values{"csrf": {ownerCSRF}, "permission": {"jobs:read"}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.AddCookie(&http.Cookie{Name: "sm_session", Value: ownerSession})
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a form posted from another site")
	clients := send(t, http.DefaultClient, func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, s.DashboardURL+"/clients", nil)
		r.AddCookie(&http.Cookie{Name: "sm_session", Value: ownerSession})
		return r
	}())
	require.Contains(t, string(clients.body), "No API clients yet", "none of the refused forms created a client")

	// Another account's client and key are not found, and stay active.
	for _, path := range []string{"/clients/" + theirClient + "/revoke", "/clients/" + theirClient + "/rotate", "/keys/" + theirKey + "/revoke",
		"/keys/not-a-uuid/revoke"} {
		status, body := dashboardPost(t, s, path, ownerSession, url.Values{"csrf": {ownerCSRF}, "overlap": {"1h"}})
		require.Equal(t, http.StatusNotFound, status, "%s: %s", path, body)
	}
	stranger.open(s.DashboardURL + "/clients")
	require.Contains(t, stranger.text("tbody"), theirClient)
	require.Contains(t, stranger.text("tbody"), "active")
	require.NotContains(t, stranger.text("tbody"), "revoked")

	// Nor are another account's users: the stranger, an owner, cannot touch ours.
	extra := s.admin(t, "user", "invite", "--json", "--account", mine, "--email", "extra@mine.example", "--role", "viewer",
		"--dashboard-url", s.DashboardURL)
	s.remember(strings.TrimPrefix(str(t, extra, "link"), s.DashboardURL+"/set-password/"))
	strangerSession := stranger.cookie(s.DashboardURL, "sm_session")
	strangerPage, err := chromedp.Run(stranger.ctx, chromedp.OuterHTML("body"))
	require.NoError(t, err)
	strangerCSRF := csrfField.FindStringSubmatch(strangerPage)[1]
	for _, action := range []string{"link", "role", "disable", "enable", "remove", "second-factor/remove"} {
		path := "/users/" + str(t, extra, "user_id") + "/" + action
		status, body := dashboardPost(t, s, path, strangerSession, url.Values{"csrf": {strangerCSRF}, "role": {"owner"}})
		require.Equal(t, http.StatusNotFound, status, "%s: %s", path, body)
	}

	// Every page of a signed-in user shows only their account.
	for _, page := range []string{"/clients", "/keys", "/audit"} {
		owner.open(s.DashboardURL + page)
		html, err := chromedp.Run(owner.ctx, chromedp.OuterHTML("body"))
		require.NoError(t, err)
		require.NotContains(t, html, theirClient, page)
		require.NotContains(t, html, "owner@theirs.example", page)
	}
	owner.open(s.DashboardURL + "/audit")
	for _, changed := range []string{"user.role_changed", "user.disabled", "user.enabled", "user.link_issued"} {
		require.NotContains(t, owner.text("tbody"), changed, "the stranger changed nothing of ours")
	}

	// Guessing: five wrong passwords from one address refuse that email there, right password
	// or not; from another address the user signs in.
	signIn := func(from, email, password string) int {
		form := url.Values{"email": {email}, "password": {password}, "csrf": {strings.Repeat("f", 43)}}
		r, err := http.NewRequest(http.MethodPost, s.DashboardURL+"/sign-in", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: "sm_form", Value: strings.Repeat("f", 43)})
		client := dashboardClientFrom(t, from)
		resp, err := client.Do(r)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	awayFromMinuteEnd(10 * time.Second) // the budgets are per calendar minute
	for i := range 5 {
		require.Equal(t, http.StatusUnauthorized, signIn("127.0.0.31", "dev@mine.example", fmt.Sprintf("wrong guess %d!", i)))
	}
	require.Equal(t, http.StatusTooManyRequests, signIn("127.0.0.31", "dev@mine.example", password), "refused there, right password or not")
	require.Equal(t, http.StatusSeeOther, signIn("127.0.0.32", "dev@mine.example", password), "signed in from elsewhere")
	s.requireNoSecretsInLogs(t)
}

// dashboardClientFrom returns an HTTP client whose connections come from the loopback address
// ip and that does not follow redirects.
func dashboardClientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	return &http.Client{Transport: loopbackTransport(t, ip), Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestDashboardUsers (D3): an owner invites a developer from the dashboard (the link shown
// once), who sets a password, signs in and cannot open the owners' pages; the owner issues a new
// link, whose new password ends the developer's sessions; the owner shows and rotates the
// signing secret after entering the password again; "sign out everywhere" ends the owner's
// other sessions. The audit log has each step.
func TestDashboardUsers(t *testing.T) {
	// Not parallel: the browser tests run alone, before the parallel tests are let go, so that
	// Chromium never starts on a machine busy with them.
	s := startServer(t)
	acct := s.newAccount(t, "People Ltd")
	const password, devPassword, newDevPassword = "the owner's passphrase", "the developer's passphrase", "the developer's new one"
	s.remember(password)
	s.remember(devPassword)
	s.remember(newDevPassword)
	owner := newBrowser(t)
	setPasswordAndSignIn(t, owner, s.invite(t, acct, "owner@people.example", "owner"), "owner@people.example", password)

	owner.open(s.DashboardURL + "/users")
	owner.unfold()
	owner.do(chromedp.SendKeys("#invite-email", "dev@people.example"), chromedp.SetValue("#invite-role", "developer"))
	owner.click("form[action='/users'] button", "#link")
	link := owner.value("#link")
	require.True(t, strings.HasPrefix(link, s.DashboardURL+"/set-password/"), link)
	s.remember(strings.TrimPrefix(link, s.DashboardURL+"/set-password/"))
	require.Contains(t, owner.text("tbody"), "invited")
	owner.shot("dashboard-users")

	dev := newBrowser(t)
	setPasswordAndSignIn(t, dev, link, "dev@people.example", devPassword)
	nav := dev.text("nav")
	require.NotContains(t, nav, "Users", "a developer is not shown the owners' pages")
	dev.open(s.DashboardURL + "/users")
	require.Equal(t, "Not allowed", dev.text("h1"))

	// A new link for the developer: its password ends the developer's sessions.
	owner.open(s.DashboardURL + "/users")
	require.Contains(t, owner.text("tbody"), "active")
	owner.click("form[action$='/link'][action*='/users/'] button[aria-label='New set-password link for dev@people.example']", "#link")
	reset := owner.value("#link")
	s.remember(strings.TrimPrefix(reset, s.DashboardURL+"/set-password/"))
	other := newBrowser(t)
	other.open(reset)
	other.submit(map[string]string{"#password": newDevPassword, "#confirm": newDevPassword}, "button[type=submit]", ".notice")
	dev.open(s.DashboardURL + "/clients")
	require.Equal(t, "Sign in", dev.text("h1"), "the old password's session has ended")

	// The signing secret: shown and rotated by an owner after the password, never to others.
	dev.open(s.DashboardURL + "/sign-in")
	dev.submit(map[string]string{"#email": "dev@people.example", "#password": newDevPassword}, "button[type=submit]", "nav")
	dev.open(s.DashboardURL + "/signing-secret")
	require.Equal(t, "Not allowed", dev.text("h1"))
	owner.open(s.DashboardURL + "/signing-secret")
	owner.submit(map[string]string{"#reveal-password": "not my password"}, "form[action='/signing-secret/reveal'] button", ".problem")
	require.Equal(t, "That is not your password.", owner.text(".problem"))
	owner.submit(map[string]string{"#reveal-password": password}, "form[action='/signing-secret/reveal'] button", "#signing-secret")
	shown := owner.value("#signing-secret")
	s.remember(shown)
	require.Equal(t, str(t, s.admin(t, "signing-secret", "show", "--json", "--account", acct), "signing_secret"), shown)
	owner.do(chromedp.Click("input[name='confirm']"))
	owner.submit(map[string]string{"#rotate-password": password}, "form[action='/signing-secret/rotate'] button", "#signing-secret")
	rotated := owner.value("#signing-secret")
	s.remember(rotated)
	require.NotEqual(t, shown, rotated)
	require.Equal(t, str(t, s.admin(t, "signing-secret", "show", "--json", "--account", acct), "signing_secret"), rotated,
		"deliveries are signed with the new one")
	owner.shot("dashboard-signing-secret")

	// The owner makes the developer a viewer, disables and enables them; never themselves.
	owner.open(s.DashboardURL + "/users")
	html, err := chromedp.Run(owner.ctx, chromedp.OuterHTML("tbody"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(html, "/role\""), "a role form for the other user only")
	owner.do(chromedp.SetValue("select[id^='role-']", "viewer"))
	owner.click("button[aria-label='Change the role of dev@people.example']", ".notice")
	require.Contains(t, owner.text(".notice"), "dev@people.example is now viewer")
	dev.open(s.DashboardURL + "/clients")
	html, err = chromedp.Run(dev.ctx, chromedp.OuterHTML("main"))
	require.NoError(t, err)
	require.NotContains(t, html, "Create a client", "a viewer now")
	owner.click("button[aria-label='Disable dev@people.example']", ".notice")
	require.Contains(t, owner.text(".notice"), "is disabled")
	owner.shot("dashboard-users-managed")
	dev.open(s.DashboardURL + "/clients")
	require.Equal(t, "Sign in", dev.text("h1"), "a disabled user is signed out")
	dev.submit(map[string]string{"#email": "dev@people.example", "#password": newDevPassword}, "button[type=submit]", ".problem")
	owner.click("button[aria-label='Enable dev@people.example']", ".notice")
	dev.submit(map[string]string{"#email": "dev@people.example", "#password": newDevPassword}, "button[type=submit]", "nav")

	// Sign out everywhere ends the owner's other browser too.
	second := newBrowser(t)
	second.open(s.DashboardURL + "/sign-in")
	second.submit(map[string]string{"#email": "owner@people.example", "#password": password}, "button[type=submit]", "nav")
	owner.click("#sign-out-everywhere", ".notice")
	second.open(s.DashboardURL + "/clients")
	require.Equal(t, "Sign in", second.text("h1"), "signed out everywhere")

	second.submit(map[string]string{"#email": "owner@people.example", "#password": password}, "button[type=submit]", "nav")

	// Changing one's own password keeps this session and ends the others.
	const changed = "the owner's new passphrase"
	s.remember(changed)
	owner.open(s.DashboardURL + "/sign-in")
	owner.submit(map[string]string{"#email": "owner@people.example", "#password": password}, "button[type=submit]", "nav")
	owner.open(s.DashboardURL + "/account")
	owner.submit(map[string]string{"#current": "wrong current password", "#password": changed, "#confirm": changed},
		"form[action='/account/password'] button", ".problem")
	require.Equal(t, "The current password is wrong.", owner.text(".problem"))
	owner.submit(map[string]string{"#current": password, "#password": changed, "#confirm": changed},
		"form[action='/account/password'] button", ".notice")
	require.Contains(t, owner.text(".notice"), "Your password is changed")
	owner.shot("dashboard-account")
	second.open(s.DashboardURL + "/clients")
	require.Equal(t, "Sign in", second.text("h1"), "the other session ended")
	owner.open(s.DashboardURL + "/clients")
	require.Equal(t, "API clients", owner.text("h1"), "this one stays")
	second.submit(map[string]string{"#email": "owner@people.example", "#password": changed}, "button[type=submit]", "nav")
	second.open(s.DashboardURL + "/audit")
	log := second.text("tbody")
	for _, want := range []string{"user.password_changed", "user.enabled", "user.disabled", "user.role_changed", "dev@people.example (viewer)",
		"user.signed_out_everywhere", "signing_secret.rotated", "signing_secret.revealed", "user.password_set",
		"user.link_issued", "user.invited", "dev@people.example (developer)"} {
		require.Contains(t, log, want)
	}
	s.requireNoSecretsInLogs(t)
}

// TestDashboardWebhooks (D4): the webhook endpoints a tenant registered with the Parsing API are
// listed with their status; a developer sends a test (the receiver gets it and the page says how
// it went), reads the deliveries of a job with their attempts, disables the endpoint (a new
// job's events are not delivered) and enables it again. Another account's endpoint is not found.
func TestDashboardWebhooks(t *testing.T) {
	// Not parallel: see TestDashboardCredentials.
	s := startServer(t, "STATEMENTD_WEBHOOK_ALLOW=127.0.0.0/8:*")
	ten, other := s.newTenant(t, "Hooks Ltd"), s.newTenant(t, "Other Hooks")
	rcv := newReceiver(t, http.StatusNoContent)
	hooks := webhookCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	created := hooks.create(t, "", parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/statementmatch"})
	require.Equal(t, http.StatusCreated, created.StatusCode(), string(created.Body))
	s.remember(created.JSON201.Data.SigningSecret)
	endpoint := created.JSON201.Data.Id.String()
	theirs := webhookCaller{pc: parseClient(t, s.ParseURL), key: other.APIKey}.create(t, "",
		parseclient.CreateWebhookJSONRequestBody{Url: rcv.URL + "/theirs"})
	require.Equal(t, http.StatusCreated, theirs.StatusCode(), string(theirs.Body))
	s.remember(theirs.JSON201.Data.SigningSecret)
	jobs := parseCaller{pc: parseClient(t, s.ParseURL), key: ten.APIKey}
	jobs.wait(t, jobs.create(t, "first.csv", simpleCSV(2)).JobId)
	rcv.waitFor(t, 2, 1, 30*time.Second) // job.created and job.completed

	const password = "a developer's passphrase"
	s.remember(password)
	b := newBrowser(t)
	setPasswordAndSignIn(t, b, s.invite(t, ten.AccountID, "dev@hooks.example", "developer"), "dev@hooks.example", password)
	b.open(s.DashboardURL + "/webhooks")
	require.Contains(t, b.text("tbody"), rcv.URL+"/statementmatch")
	require.Contains(t, b.text("tbody"), "enabled")
	require.NotContains(t, b.text("tbody"), "/theirs", "only this account's endpoints")

	before := len(rcv.received())
	b.click("form[action='/webhooks/"+endpoint+"/test'] button", "#test-title")
	require.Contains(t, b.text("main"), "Delivered in")
	require.Len(t, rcv.received(), before+1, "the test delivery reached the receiver")
	b.shot("dashboard-webhooks")

	b.click("a[href='/webhooks/"+endpoint+"/deliveries']", ".delivery")
	page := b.text("main")
	for _, want := range []string{"job.completed", "job.created", "succeeded", "delivered", "204"} {
		require.Contains(t, page, want)
	}
	b.shot("dashboard-deliveries")

	b.open(s.DashboardURL + "/webhooks")
	b.click("form[action='/webhooks/"+endpoint+"/disable'] button", ".notice")
	require.Contains(t, b.text(".notice"), "is disabled")
	require.Contains(t, b.text("tbody"), "Disabled by dev@hooks.example")
	before = len(rcv.received())
	jobs.wait(t, jobs.create(t, "second.csv", simpleCSV(3)).JobId)
	time.Sleep(2 * time.Second)
	require.Len(t, rcv.received(), before, "nothing is delivered to a disabled endpoint")
	b.click("form[action='/webhooks/"+endpoint+"/enable'] button", ".notice")
	require.Contains(t, b.text(".notice"), "is enabled")
	jobs.wait(t, jobs.create(t, "third.csv", simpleCSV(4)).JobId)
	rcv.waitFor(t, before+2, 1, 30*time.Second)

	session := b.cookie(s.DashboardURL, "sm_session")
	html, err := chromedp.Run(b.ctx, chromedp.OuterHTML("body"))
	require.NoError(t, err)
	csrf := csrfField.FindStringSubmatch(html)[1]
	theirID := theirs.JSON201.Data.Id.String()
	for _, path := range []string{"/webhooks/" + theirID + "/test", "/webhooks/" + theirID + "/disable", "/webhooks/" + theirID + "/enable"} {
		status, body := dashboardPost(t, s, path, session, url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusNotFound, status, "%s: %s", path, body)
	}
	req, err := http.NewRequest(http.MethodGet, s.DashboardURL+"/webhooks/"+theirID+"/deliveries", nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: "sm_session", Value: session})
	require.Equal(t, http.StatusNotFound, send(t, http.DefaultClient, req).StatusCode)

	b.open(s.DashboardURL + "/audit")
	require.Contains(t, b.text("tbody"), "webhook.disabled")
	require.Contains(t, b.text("tbody"), "webhook.enabled")
	s.requireNoSecretsInLogs(t)
}

// TestDashboardSecondFactor (D5): a user sets up an authenticator (a wrong code leaves it off and
// shows the same key again); signing in then asks for its code, a wrong one refused; an owner
// removes another user's authenticator, then the user for good (their session ends, the audit
// log keeps them); the operator resets a sole owner's.
func TestDashboardSecondFactor(t *testing.T) {
	// Not parallel: see TestDashboardCredentials.
	s := startServer(t)
	acct := s.newAccount(t, "Two Step")
	const password = "a two-step passphrase"
	s.remember(password)
	owner, dev := newBrowser(t), newBrowser(t)
	setPasswordAndSignIn(t, owner, s.invite(t, acct, "owner@twostep.example", "owner"), "owner@twostep.example", password)
	setPasswordAndSignIn(t, dev, s.invite(t, acct, "dev@twostep.example", "developer"), "dev@twostep.example", password)

	key := setUpAuthenticator(t, s, dev, password)
	dev.click("form[action='/sign-out'] button", ".notice")
	dev.open(s.DashboardURL + "/sign-in")
	dev.submit(map[string]string{"#email": "dev@twostep.example", "#password": password}, "button[type=submit]", "#code")
	require.Empty(t, dev.cookie(s.DashboardURL, "sm_session"), "no session before the code")
	dev.shot("dashboard-second-factor-code")
	dev.submit(map[string]string{"#code": wrongCode(t, key)}, "button[type=submit]", ".problem")
	require.Contains(t, dev.text(".problem"), "That code is wrong")
	dev.submit(map[string]string{"#code": totpCode(t, key, time.Now().Add(30*time.Second))}, "button[type=submit]", "nav")
	require.Equal(t, "Jobs", dev.text("h1"))
	require.NotEmpty(t, dev.cookie(s.DashboardURL, "sm_session"))
	require.Empty(t, dev.cookie(s.DashboardURL, "sm_challenge"))

	// The owner sees it and removes it: the developer signs in with the password alone again.
	owner.open(s.DashboardURL + "/users")
	require.Contains(t, owner.text("tbody"), "two-step")
	owner.click("button[aria-label='Remove the authenticator of dev@twostep.example']", ".notice")
	require.Contains(t, owner.text(".notice"), "dev@twostep.example signs in with the password alone")
	owner.shot("dashboard-users-second-factor")
	dev.click("form[action='/sign-out'] button", ".notice")
	dev.submit(map[string]string{"#email": "dev@twostep.example", "#password": password}, "button[type=submit]", "nav")

	// Then removes the developer for good.
	owner.open(s.DashboardURL + "/users")
	_, err := chromedp.Run(owner.ctx, chromedp.Evaluate[bool]("(document.querySelectorAll('details.remove').forEach(d => d.open = true), true)"))
	require.NoError(t, err)
	owner.click("button[aria-label='Remove dev@twostep.example for good']", ".notice")
	require.Contains(t, owner.text(".notice"), "dev@twostep.example is removed")
	require.NotContains(t, owner.text("tbody"), "dev@twostep.example")
	dev.open(s.DashboardURL + "/clients")
	require.Equal(t, "Sign in", dev.text("h1"), "a removed user's session ends")

	// The sole owner's authenticator, lost: the operator resets it.
	ownerKey := setUpAuthenticator(t, s, owner, password)
	out := s.admin(t, "user", "reset-second-factor", "--json", "--account", acct, "--email", "owner@twostep.example")
	require.Equal(t, false, out["second_factor"])
	owner.click("form[action='/sign-out'] button", ".notice")
	owner.submit(map[string]string{"#email": "owner@twostep.example", "#password": password}, "button[type=submit]", "nav")
	require.NotEqual(t, key, ownerKey)

	owner.open(s.DashboardURL + "/audit")
	log := owner.text("tbody")
	for _, want := range []string{"user.second_factor_enabled", "user.second_factor_removed", "user.removed",
		"dev@twostep.example (developer)", "dev@twostep.example (authenticator code)", "statementd admin"} {
		require.Contains(t, log, want)
	}
	s.requireNoSecretsInLogs(t)
}

// setUpAuthenticator sets up an authenticator on b's account page, first with a wrong code (the
// same key is shown again), and returns its key.
func setUpAuthenticator(t *testing.T, s *server, b *browser, password string) string {
	t.Helper()
	b.open(s.DashboardURL + "/account")
	b.click("form[action='/account/second-factor/setup'] button", "#totp-key")
	key := strings.ReplaceAll(b.text("#totp-key"), " ", "")
	s.remember(key)
	b.shot("dashboard-second-factor-setup")
	b.submit(map[string]string{"#totp-code": wrongCode(t, key), "#enable-password": password},
		"form[action='/account/second-factor/enable'] button", ".problem")
	require.Contains(t, b.text(".problem"), "That code is wrong")
	require.Equal(t, key, strings.ReplaceAll(b.text("#totp-key"), " ", ""), "the same key, shown again")
	b.submit(map[string]string{"#totp-code": totpCode(t, key, time.Now()), "#enable-password": password},
		"form[action='/account/second-factor/enable'] button", ".notice")
	require.Contains(t, b.text(".notice"), "Your authenticator is set up")
	require.Contains(t, b.text("main"), "Signing in asks for your authenticator's code")
	return key
}

// totpCode is the code an authenticator app with key shows at at.
func totpCode(t *testing.T, key string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCode(key, at)
	require.NoError(t, err)
	return code
}

// wrongCode is a six-digit code that is none of key's codes around now.
func wrongCode(t *testing.T, key string) string {
	t.Helper()
	taken := map[string]bool{}
	for d := -2; d <= 2; d++ {
		taken[totpCode(t, key, time.Now().Add(time.Duration(d)*30*time.Second))] = true
	}
	for n := 0; ; n++ {
		if code := fmt.Sprintf("%06d", n); !taken[code] {
			return code
		}
	}
}
