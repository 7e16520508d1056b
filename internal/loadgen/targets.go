package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// Target is one request the generator sends; a run sends its targets in turn.
type Target struct {
	Method string // GET when empty
	URL    string
	Header http.Header
}

// ParseTargets reads targets in the plain HTTP format of tools such as vegeta: a request line
// "METHOD URL" (or just the URL, for a GET), then "Name: value" header lines of that request.
// Blank lines separate requests and lines starting with # are comments. Request bodies are not
// supported.
//
//	GET http://127.0.0.1:8080/api/v1/jobs/1b4e28ba-2fa1-11d2-883f-0016d3cca427
//	Authorization: Bearer smk_live_...
//
//	http://127.0.0.1:8080/healthz
func ParseTargets(r io.Reader) ([]Target, error) {
	var (
		out  []Target
		cur  *Target
		line int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			cur = nil
			continue
		case strings.HasPrefix(text, "#"):
			continue
		}
		if method, rawURL, ok := requestLine(text); ok {
			if _, err := checkURL(rawURL); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			out = append(out, Target{Method: method, URL: rawURL, Header: http.Header{}})
			cur = &out[len(out)-1]
			continue
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok || cur == nil || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: want a request line (METHOD URL) or a header (Name: value) of one, got %q", line, text)
		}
		cur.Header.Add(textproto.CanonicalMIMEHeaderKey(name), strings.TrimSpace(value))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	return out, nil
}

// requestLine recognises "METHOD URL" and a bare "http(s)://..." URL.
func requestLine(text string) (method, rawURL string, ok bool) {
	if strings.HasPrefix(text, "http://") || strings.HasPrefix(text, "https://") {
		return http.MethodGet, text, true
	}
	method, rest, found := strings.Cut(text, " ")
	if !found || method == "" || strings.ToUpper(method) != method || strings.ContainsAny(method, ":") {
		return "", "", false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") {
		return "", "", false
	}
	return method, rest, true
}

func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: want an http(s)://host/ URL", raw)
	}
	return u, nil
}
