package apidocs

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMarkdownDepth bounds list nesting so hostile input cannot recurse deeply.
const maxMarkdownDepth = 8

// markdown renders the Markdown subset used in descriptions: paragraphs,
// #-headings (demoted two levels to fit the page outline), -, * and 1. lists,
// fenced code blocks, pipe tables, `code`, **bold** and [links](url). All text
// is HTML-escaped and raw HTML is never passed through; links are emitted only
// for http, https, mailto and host-less relative URLs, otherwise just the link
// text is kept.
func markdown(src string) template.HTML {
	src = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\t", "    ", "\x00", "\uFFFD").Replace(strings.ToValidUTF8(src, "\uFFFD"))
	var b strings.Builder
	blocks(&b, strings.Split(src, "\n"), false, 0)
	return template.HTML(b.String())
}

// blocks renders block-level Markdown; tight list items omit <p> wrappers.
func blocks(b *strings.Builder, lines []string, tight bool, depth int) {
	for i := 0; i < len(lines); {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "":
			i++
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			i = fence(b, lines, i)
		case headingLevel(t) > 0:
			n := headingLevel(t)
			text := strings.TrimSpace(t[n:])
			if bare := strings.TrimRight(text, "#"); bare == "" || strings.HasSuffix(bare, " ") {
				text = strings.TrimSpace(bare) // optional closing #s
			}
			fmt.Fprintf(b, "<h%d>", min(n+2, 6))
			inline(b, text, false)
			fmt.Fprintf(b, "</h%d>\n", min(n+2, 6))
			i++
		case depth < maxMarkdownDepth && isItem(lines[i]):
			i = list(b, lines, i, depth)
		case isTable(lines, i):
			i = table(b, lines, i)
		default:
			j := i + 1
			for j < len(lines) && !startsBlock(lines, j) {
				j++
			}
			para := make([]string, 0, j-i)
			for _, l := range lines[i:j] {
				para = append(para, strings.TrimSpace(l))
			}
			if !tight {
				b.WriteString("<p>")
			}
			inline(b, strings.Join(para, "\n"), false)
			if !tight {
				b.WriteString("</p>")
			}
			b.WriteString("\n")
			i = j
		}
	}
}

// startsBlock reports whether lines[i] interrupts a running paragraph.
func startsBlock(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	return t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || headingLevel(t) > 0 ||
		isItem(lines[i]) || isTable(lines, i)
}

func headingLevel(t string) int {
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ') {
		return 0
	}
	return n
}

func fence(b *strings.Builder, lines []string, i int) int {
	open := strings.TrimSpace(lines[i])
	marker := open[:3]
	b.WriteString("<pre><code")
	if lang := strings.Fields(strings.TrimLeft(open, marker[:1]) + " "); len(lang) > 0 &&
		strings.Trim(lang[0], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+") == "" {
		b.WriteString(` class="language-` + lang[0] + `"`)
	}
	b.WriteString(">")
	for i++; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
			i++
			break
		}
		b.WriteString(html.EscapeString(lines[i]) + "\n")
	}
	b.WriteString("</code></pre>\n")
	return i
}

func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// item parses a list marker ("- ", "* ", "+ ", "1. ", "1) ") and returns
// whether the list is ordered, its start number and the content column.
func item(line string) (ordered bool, start, col int, ok bool) {
	ind := indent(line)
	rest := line[ind:]
	n := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	switch {
	case ind > 3:
	case n == 0 && len(rest) > 1 && strings.IndexByte("-*+", rest[0]) >= 0 && rest[1] == ' ':
		return false, 0, ind + 2, true
	case n > 0 && n < 10 && len(rest) > n+1 && (rest[n] == '.' || rest[n] == ')') && rest[n+1] == ' ':
		start, _ = strconv.Atoi(rest[:n])
		return true, start, ind + n + 2, true
	}
	return false, 0, 0, false
}

func isItem(line string) bool {
	_, _, _, ok := item(line)
	return ok
}

// list renders a list starting at lines[i]. Lines indented to the content
// column (and lazy paragraph continuations) belong to the current item, whose
// body is rendered recursively, which gives nested lists.
func list(b *strings.Builder, lines []string, i, depth int) int {
	ordered, start, _, _ := item(lines[i])
	var items [][]string
	col := 0
	for ; i < len(lines); i++ {
		line, blank := lines[i], strings.TrimSpace(lines[i]) == ""
		if o, _, c, ok := item(line); ok && o == ordered && (items == nil || indent(line) < col) {
			items, col = append(items, []string{line[c:]}), c
			continue
		}
		last := len(items) - 1
		switch {
		case !blank && indent(line) >= col:
			items[last] = append(items[last], line[col:])
		case !blank && strings.TrimSpace(lines[i-1]) != "" && !startsBlock(lines, i):
			items[last] = append(items[last], strings.TrimSpace(line))
		case blank && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && indent(lines[i+1]) >= col:
			items[last] = append(items[last], "")
		default:
			if o, _, _, ok := item(lines[min(i+1, len(lines)-1)]); !blank || !ok || o != ordered {
				return closeList(b, items, ordered, start, depth, i)
			}
		}
	}
	return closeList(b, items, ordered, start, depth, i)
}

func closeList(b *strings.Builder, items [][]string, ordered bool, start, depth, next int) int {
	tag := map[bool]string{false: "ul", true: "ol"}[ordered]
	b.WriteString("<" + tag)
	if ordered && start != 1 {
		fmt.Fprintf(b, ` start="%d"`, start)
	}
	b.WriteString(">\n")
	for _, it := range items {
		var inner strings.Builder
		blocks(&inner, it, !slices.Contains(it, ""), depth+1)
		b.WriteString("<li>" + strings.TrimSuffix(inner.String(), "\n") + "</li>\n")
	}
	b.WriteString("</" + tag + ">\n")
	return next
}

// cells splits a pipe-table row; \| stands for a literal pipe.
func cells(line string) []string {
	line = strings.ReplaceAll(strings.TrimSpace(line), `\|`, "\x00")
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
	for k, p := range parts {
		parts[k] = strings.ReplaceAll(strings.TrimSpace(p), "\x00", "|")
	}
	return parts
}

// isTable reports whether lines[i] is a table header followed by a
// delimiter row such as |---|:--:| with the same number of cells.
func isTable(lines []string, i int) bool {
	if i+1 >= len(lines) || !strings.Contains(lines[i], "|") {
		return false
	}
	delim := cells(lines[i+1])
	for _, c := range delim {
		if !strings.Contains(c, "-") || strings.Trim(c, ":-") != "" {
			return false
		}
	}
	return len(delim) == len(cells(lines[i]))
}

func table(b *strings.Builder, lines []string, i int) int {
	header := cells(lines[i])
	row := func(cs []string, tag string) {
		b.WriteString("<tr>")
		for k := range header {
			b.WriteString("<" + tag + ">")
			if k < len(cs) {
				inline(b, cs[k], false)
			}
			b.WriteString("</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("<table class=\"md\">\n<thead>")
	row(header, "th")
	b.WriteString("</thead>\n<tbody>\n")
	for i += 2; i < len(lines) && strings.Contains(lines[i], "|"); i++ {
		row(cells(lines[i]), "td")
	}
	b.WriteString("</tbody>\n</table>\n")
	return i
}

// inline renders backslash escapes, code spans, **bold** and links; every
// other character is HTML-escaped.
func inline(b *strings.Builder, s string, inLink bool) {
	for i := 0; i < len(s); {
		rest := s[i:]
		switch {
		case rest[0] == '\\' && len(rest) > 1 && strings.IndexByte("\\`*_[]()#+-.!|<>&", rest[1]) >= 0:
			b.WriteString(html.EscapeString(rest[1:2]))
			i += 2
			continue
		case rest[0] == '`':
			n := len(rest) - len(strings.TrimLeft(rest, "`"))
			if end := closingTicks(rest, n); end > 0 {
				code := strings.TrimSpace(strings.ReplaceAll(rest[n:end], "\n", " "))
				b.WriteString("<code>" + html.EscapeString(code) + "</code>")
				i += end + n
			} else {
				b.WriteString(rest[:n])
				i += n
			}
			continue
		case strings.HasPrefix(rest, "**"):
			if end := strings.Index(rest[2:], "**"); end > 0 && strings.TrimSpace(rest[2:2+end]) == rest[2:2+end] {
				b.WriteString("<strong>")
				inline(b, rest[2:2+end], inLink)
				b.WriteString("</strong>")
				i += end + 4
				continue
			}
		case rest[0] == '[' && !inLink:
			if text, dest, n, ok := parseLink(rest); ok {
				if u, safe := safeURL(dest); safe {
					b.WriteString(`<a href="` + html.EscapeString(u) + `">`)
					inline(b, text, true)
					b.WriteString("</a>")
				} else {
					inline(b, text, true)
				}
				i += n
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(rest)
		b.WriteString(html.EscapeString(rest[:size]))
		i += size
	}
}

// closingTicks returns the index of the backtick run of exactly length n that
// closes the code span opened at s[0:n], or -1.
func closingTicks(s string, n int) int {
	for j := n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			return -1
		}
		j += k
		m := len(s[j:]) - len(strings.TrimLeft(s[j:], "`"))
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// parseLink parses [text](dest "optional title") at the start of s, allowing
// balanced parentheses in dest, and returns the number of bytes consumed.
func parseLink(s string) (text, dest string, n int, ok bool) {
	j := strings.Index(s, "](")
	if j < 0 || strings.ContainsAny(s[1:j], "]\n") {
		return "", "", 0, false
	}
	for k, depth := j+2, 0; k < len(s) && s[k] != '\n'; k++ {
		switch {
		case s[k] == '(':
			depth++
		case s[k] == ')' && depth > 0:
			depth--
		case s[k] == ')':
			if f := strings.Fields(s[j+2 : k]); len(f) > 0 {
				dest = strings.TrimSuffix(strings.TrimPrefix(f[0], "<"), ">")
			}
			return s[1:j], dest, k + 1, true
		}
	}
	return "", "", 0, false
}

// safeURL reports whether raw may be used as a link target: an absolute
// http(s) URL with a host, a mailto URL, or a relative reference without a
// host. It returns the trimmed URL.
func safeURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	switch u.Scheme {
	case "http", "https":
		return raw, u.Host != ""
	case "mailto":
		return raw, u.Opaque != ""
	case "":
		return raw, u.Host == "" && !strings.HasPrefix(raw, "//")
	}
	return "", false
}
