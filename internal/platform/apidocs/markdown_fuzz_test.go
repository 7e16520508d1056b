package apidocs

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// allowedTag is every tag markdown may write; anything else in its output would be input passed
// through as HTML.
var allowedTag = regexp.MustCompile(`^</?(p|h[3-6]|ul|ol|li|pre|code|strong|a|table|thead|tbody|tr|th|td)( [^<>]*)?>$`)

// FuzzMarkdown renders arbitrary descriptions: markdown must not panic or hang, and its output
// holds only the tags it writes itself, with links only to http, https, mailto or relative URLs,
// so a spec's text can never inject markup or script into the docs page.
func FuzzMarkdown(f *testing.F) {
	for _, seed := range []string{
		"# Title\n\nSome **bold** and `code` and [a link](https://example.com).",
		"- one\n- two\n  1. nested\n\n```go\nfmt.Println(\"<b>\")\n```",
		"| a | b |\n|---|---|\n| <script>alert(1)</script> | [x](javascript:alert(1)) |",
		"<img src=x onerror=alert(1)> [y](data:text/html,hi) **[z](//evil.example)**",
		strings.Repeat("- ", 50) + "deep",
	} {
		f.Add(seed)
	}
	tag := regexp.MustCompile(`<[^>]*>`)
	href := regexp.MustCompile(`href="([^"]*)"`)
	f.Fuzz(func(t *testing.T, src string) {
		out := string(markdown(src))
		for _, tg := range tag.FindAllString(out, -1) {
			if !allowedTag.MatchString(tg) {
				t.Fatalf("markdown(%q) wrote the tag %q", src, tg)
			}
		}
		for _, m := range href.FindAllStringSubmatch(out, -1) {
			u, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil {
				t.Fatalf("markdown(%q) links to %q, no URL: %v", src, m[1], err)
			}
			switch strings.ToLower(u.Scheme) {
			case "", "http", "https", "mailto":
			default:
				t.Fatalf("markdown(%q) links to %q", src, m[1])
			}
		}
	})
}
