package dashboard

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/keys":                  "/keys",
		"/audit?before=10":       "/audit?before=10",
		"":                       "/jobs",
		"keys":                   "/jobs",
		"//evil.example/x":       "/jobs",
		"https://evil.example":   "/jobs",
		"/\\evil.example":        "/jobs",
		"/ok\r\nSet-Cookie: x=1": "/jobs",
	} {
		require.Equal(t, want, safeNext(in), "%q", in)
	}
}

func TestFormAllowed(t *testing.T) {
	t.Parallel()
	s := &Server{}
	const token = "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name, origin, csrf, want string
		ok                       bool
	}{
		{"the session's token", "", token, token, true},
		{"same origin", "http://dash.example", token, token, true},
		{"an opaque origin", "null", token, token, true},
		{"no token", "", "", token, false},
		{"another token", "", strings.Repeat("x", 32), token, false},
		{"no token expected", "", "", "", false},
		{"another site", "https://evil.example", token, token, false},
		{"a malformed origin", "http://%zz", token, token, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://dash.example/clients", strings.NewReader(url.Values{"csrf": {tc.csrf}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		require.Equal(t, tc.ok, s.formAllowed(r, tc.want), tc.name)
	}
}

// TestPagesCarryTheirHeaders: every answer, a sign-in page or a 404, forbids framing, sniffing,
// caching and referrers, and allows only the dashboard's own script and style.
func TestPagesCarryTheirHeaders(t *testing.T) {
	t.Parallel()
	s, err := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	for _, path := range []string{"/sign-in", "/nope", "/set-password"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		h := rec.Header()
		require.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'", path)
		require.Contains(t, h.Get("Content-Security-Policy"), "script-src 'self'", path)
		require.Equal(t, "DENY", h.Get("X-Frame-Options"), path)
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), path)
		require.Equal(t, "no-referrer", h.Get("Referrer-Policy"), path)
		require.Equal(t, "no-store", h.Get("Cache-Control"), path)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sign-in", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `name="csrf"`)
	cookie := rec.Result().Cookies()
	require.Len(t, cookie, 1)
	require.Equal(t, formCookie, cookie[0].Name)
	require.True(t, cookie[0].HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, cookie[0].SameSite)
}
