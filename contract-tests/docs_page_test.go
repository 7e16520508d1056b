package contracttests

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// viewShot writes a screenshot of what the window shows (the docs page is too long for a
// full-page one) into the screenshot directory.
func (b *browser) viewShot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	b.save(name+".png", png)
}

func (b *browser) eval(js string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	require.NoError(b.t, err, js)
	return v
}

// TestDocsPageInABrowser opens the Parsing API's docs page in Chromium, under the page's own
// Content-Security-Policy: the navigation stays in view while the text scrolls, the search box
// (the page's one script, allowed by its hash) narrows it, Enter jumps to the first match, and
// the code sample tabs switch between curl, Go and TypeScript.
func TestDocsPageInABrowser(t *testing.T) {
	s := startServer(t)
	b := newBrowser(t)
	b.open(s.ParseURL + "/docs")
	b.viewShot("docs-parsing")

	require.Equal(t, "0", b.eval(`(window.scrollTo(0, 6000), String(document.querySelector(".sidebar").getBoundingClientRect().top))`),
		"the navigation stays in view")
	// Typed as the page sees typing: the value, then its input event.
	type_ := func(js string) {
		b.eval(`(() => { const box = document.getElementById("nav-search"); ` + js + `; return ""; })()`)
	}
	type_(`box.value = "webhook"; box.dispatchEvent(new Event("input"))`)
	visible := b.eval(`Array.from(document.querySelectorAll(".nav-op")).filter(li => !li.hidden).map(li => li.textContent.trim()).join("\n")`)
	require.NotEmpty(t, visible, "the search ran: the page's script is allowed")
	for _, line := range strings.Split(visible, "\n") {
		require.Contains(t, strings.ToLower(line), "webhook", "only matches stay listed")
	}
	require.Equal(t, "true", b.eval(`String(Array.from(document.querySelectorAll(".nav-op")).find(li => li.textContent.includes("/api/v1/usage")).hidden)`))
	b.viewShot("docs-search")
	type_(`box.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter"}))`)
	require.True(t, strings.HasPrefix(b.location(), s.ParseURL+"/docs#op-"), "Enter jumps to the first match: %s", b.location())
	type_(`box.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape"}))`)
	require.Equal(t, "0", b.eval(`String(Array.from(document.querySelectorAll(".nav-op")).filter(li => li.hidden).length)`), "Escape clears the search")

	shown := func() string {
		return b.eval(`Array.from(document.querySelectorAll("#op-createJob pre.sample")).filter(p => getComputedStyle(p).display !== "none").map(p => p.firstChild.className).join(",")`)
	}
	require.Equal(t, "language-shell", shown(), "curl is the first tab")
	b.do(chromedp.Click(`label[for="op-createJob-sample-1"]`))
	require.Equal(t, "language-go", shown())
	require.Contains(t, b.eval(`document.querySelector("#op-createJob pre.sample:nth-of-type(2)").textContent`), "parseclient.New(parseURL, apiKey)")
	b.do(chromedp.Click(`label[for="op-createJob-sample-2"]`))
	require.Equal(t, "language-typescript", shown())
	b.eval(`(document.getElementById("op-createJob").scrollIntoView(), window.scrollBy(0, -10), "")`)
	b.viewShot("docs-samples")

	b.do(chromedp.EmulateViewport(390, 844))
	b.open(s.ReconURL + "/docs")
	b.viewShot("docs-reconciliation-phone")
}
