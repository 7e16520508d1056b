package httpkit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSourceAddress(t *testing.T) {
	t.Parallel()
	for remote, want := range map[string]string{
		"192.0.2.7:51234":                        "192.0.2.7",
		"[::ffff:192.0.2.7]:51234":               "192.0.2.7",
		"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2::1]:443":                  "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":                  "2001:db8:1:3::/64",
		"[fe80::1%eth0]:80":                      "fe80::/64",
		"[::1]:80":                               "::/64",
		"@":                                      "@", // a unix socket's peer: one budget for all
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", "203.0.113.9")
		r.Header.Set("Forwarded", "for=203.0.113.9")
		r.Header.Set("X-Real-Ip", "203.0.113.9")
		require.Equal(t, want, SourceAddress(r), "%s: the peer, never a forwarding header", remote)
	}
}
