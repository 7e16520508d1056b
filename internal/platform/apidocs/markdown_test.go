package apidocs

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // substrings that must appear
		notWant []string // substrings that must not appear
	}{
		{name: "empty", in: "  \n\n", want: nil, notWant: []string{"<p>"}},
		{name: "paragraphs", in: "first line\nsame paragraph\n\nsecond", want: []string{"<p>first line\nsame paragraph</p>", "<p>second</p>"}},
		{
			name:    "script is escaped",
			in:      "hello <script>alert('x')</script> & <b>bold</b>",
			want:    []string{"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", "&amp;", "&lt;b&gt;"},
			notWant: []string{"<script", "<b>"},
		},
		{
			name:    "script inside code and fences is escaped",
			in:      "`<script>`\n\n```html\n<script>x()</script>\n```",
			want:    []string{"<code>&lt;script&gt;</code>", `<pre><code class="language-html">&lt;script&gt;x()&lt;/script&gt;`},
			notWant: []string{"<script"},
		},
		{name: "heading demoted", in: "# Title\n## Sub ##\n#nothashtag", want: []string{"<h3>Title</h3>", "<h4>Sub</h4>", "<p>#nothashtag</p>"}},
		{name: "bold only", in: "**strong** and *single* but 2 ** 3 ** 4", want: []string{"<strong>strong</strong>", "*single*", "2 ** 3 ** 4"}, notWant: []string{"<em>"}},
		{name: "code span keeps markup literal", in: "use `**not bold** [x](http://a.example)` here", want: []string{"<code>**not bold** [x](http://a.example)</code>"}, notWant: []string{"<strong>", "<a "}},
		{name: "backslash escapes", in: `\*literal\* \[x\]`, want: []string{"*literal* [x]"}, notWant: []string{"<em>"}},
		{
			name: "safe links",
			in:   "[site](https://example.com/a?b=1&c=2) [rel](/docs#x) [frag](#schema-Foo) [mail](mailto:a@example.com) [plain](http://example.org \"title\")",
			want: []string{`<a href="https://example.com/a?b=1&amp;c=2">site</a>`, `<a href="/docs#x">rel</a>`, `<a href="#schema-Foo">frag</a>`,
				`<a href="mailto:a@example.com">mail</a>`, `<a href="http://example.org">plain</a>`},
		},
		{
			name:    "unsafe links are not links",
			in:      "[click](javascript:alert(1)) [x](JavaScript:alert(1)) [d](data:text/html,hi) [p](//evil.example/x) [v](vbscript:msgbox)",
			want:    []string{"click", "x", "d", "p", "v"},
			notWant: []string{"<a", "href", "javascript:alert"},
		},
		{name: "parentheses in URL", in: "[w](https://en.wikipedia.org/wiki/Go_(game)) [j](javascript:alert(1)) after", want: []string{`<a href="https://en.wikipedia.org/wiki/Go_(game)">w</a>`, "j after"}, notWant: []string{"</a>)", "j)", "javascript"}},
		{name: "bracket text", in: "[a] and [b](/x)", want: []string{`[a] and <a href="/x">b</a>`}},
		{name: "unterminated constructs are literal", in: "[open(no close **bold `tick", want: []string{"[open(no close **bold `tick"}},
		{
			name:    "bullet list",
			in:      "Intro:\n- one\n- **two**\n  continued\n* three",
			want:    []string{"<p>Intro:</p>\n<ul>\n<li>one</li>\n<li><strong>two</strong>\ncontinued</li>\n<li>three</li>\n</ul>"},
			notWant: []string{"<li><p>"},
		},
		{name: "ordered list with start", in: "3. c\n4. d", want: []string{`<ol start="3">`, "<li>c</li>", "<li>d</li>"}},
		{name: "nested list", in: "1. first\n   - inner\n2. second", want: []string{"<ol>\n<li>first\n<ul>\n<li>inner</li>\n</ul></li>\n<li>second</li>\n</ol>"}},
		{name: "thematic dashes are not a list", in: "---", want: []string{"<p>---</p>"}, notWant: []string{"<ul>"}},
		{
			name: "pipe table",
			in:   "| Code | Meaning |\n|:-----|------:|\n| `E1` | bad \\| worse |\n| E2 | <i>x</i> |",
			want: []string{`<table class="md">`, "<thead><tr><th>Code</th><th>Meaning</th></tr>",
				"<tr><td><code>E1</code></td><td>bad | worse</td></tr>", "<td>&lt;i&gt;x&lt;/i&gt;</td>"},
			notWant: []string{"<i>"},
		},
		{name: "not a table without delimiter row", in: "a | b\nc | d", want: []string{"<p>a | b\nc | d</p>"}, notWant: []string{"<table"}},
		{name: "unterminated fence runs to end", in: "```\ncode <x>", want: []string{"<pre><code>code &lt;x&gt;\n</code></pre>"}},
		{name: "fence language is sanitised", in: "```\"><script>\nx\n```", want: []string{"<pre><code>x"}, notWant: []string{"<script"}},
		{name: "html entities stay inert", in: "[x](&#106;avascript:alert(1)) &lt;", want: []string{"&amp;lt;"}, notWant: []string{`href="&#106;`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(markdown(tc.in))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("markdown(%q) = %q; missing %q", tc.in, got, w)
				}
			}
			for _, nw := range tc.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("markdown(%q) = %q; must not contain %q", tc.in, got, nw)
				}
			}
		})
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com", true},
		{"http://example.com/x?y", true},
		{"mailto:api@example.com", true},
		{"/relative/path", true},
		{"#anchor", true},
		{"page.html", true},
		{"javascript:alert(1)", false},
		{"JAVASCRIPT:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{" javascript:alert(1)", false},
		{"data:text/html;base64,PHNjcmlwdD4=", false},
		{"//evil.example", false},
		{"/\\evil.example", false},
		{"https://", false},
		{"ftp://example.com", false},
		{"", false},
	}
	for _, tc := range tests {
		if _, got := safeURL(tc.in); got != tc.want {
			t.Errorf("safeURL(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownTerminatesOnHostileInput(t *testing.T) {
	inputs := []string{
		strings.Repeat("- ", 10000) + "x",
		strings.Repeat("[", 5000) + strings.Repeat("](", 5000),
		strings.Repeat("`", 3000),
		strings.Repeat("**", 3000),
		strings.Repeat("|", 2000) + "\n" + strings.Repeat("|-", 1000),
		"\x00\xff\xfe<script>",
	}
	for _, in := range inputs {
		if out := string(markdown(in)); strings.Contains(out, "<script") {
			t.Errorf("unescaped script in output for %q", in[:min(len(in), 20)])
		}
	}
}
