package httpkit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

func TestTrustedProxiesClient(t *testing.T) {
	t.Parallel()
	proxies, err := ParseTrustedProxies("10.0.0.0/8, 192.0.2.7,fd00::/8, ::ffff:172.16.0.0/108")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		peer   string
		xff    []string
		client string
	}{
		{"no proxy between", "198.51.100.1:5000", nil, "198.51.100.1"},
		{"an untrusted peer's header is ignored", "198.51.100.1:5000", []string{"203.0.113.9"}, "198.51.100.1"},
		{"a trusted proxy names the client", "10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a single trusted address", "192.0.2.7:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"the client's own entries are not believed", "10.1.2.3:5000", []string{"1.1.1.1, 8.8.8.8, 203.0.113.9"}, "203.0.113.9"},
		{"through two trusted proxies", "10.1.2.3:5000", []string{"1.1.1.1, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"},
		{"several headers read as one list", "10.1.2.3:5000", []string{"1.1.1.1, 203.0.113.9", "10.9.9.9"}, "203.0.113.9"},
		{"a mapped IPv4 peer", "[::ffff:10.1.2.3]:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a mapped IPv4 network", "172.16.5.5:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"IPv6 proxy and client", "[fd00::1]:5000", []string{"2001:db8::5"}, "2001:db8::5"},
		{"bracketed entry with a port", "10.1.2.3:5000", []string{"[2001:db8::5]:4711"}, "2001:db8::5"},
		{"IPv4 entry with a port", "10.1.2.3:5000", []string{"203.0.113.9:4711"}, "203.0.113.9"},
		{"no header from a trusted proxy", "10.1.2.3:5000", nil, "10.1.2.3"},
		{"garbage stops at the last trusted hop", "10.1.2.3:5000", []string{"203.0.113.9, unknown, 10.9.9.9"}, "10.9.9.9"},
		{"garbage next to the peer", "10.1.2.3:5000", []string{"203.0.113.9, not-an-ip"}, "10.1.2.3"},
		{"every hop trusted: the leftmost", "10.1.2.3:5000", []string{"10.7.7.7, 10.8.8.8"}, "10.7.7.7"},
		{"an empty header", "10.1.2.3:5000", []string{""}, "10.1.2.3"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		got, ok := proxies.Client(r)
		require.True(t, ok, tc.name)
		require.Equal(t, tc.client, got.String(), tc.name)
	}

	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "@"
	_, ok := proxies.Client(r)
	require.False(t, ok, "a unix socket's peer is no address")
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{" 10.0.0.0/8 ,, 192.0.2.7 ", []string{"10.0.0.0/8", "192.0.2.7/32"}, ""},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}, ""},
		{"2001:db8::1", []string{"2001:db8::1/128"}, ""},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}, ""},
		{"10.0.0.0/33", nil, `"10.0.0.0/33" is not a CIDR`},
		{"proxy.internal", nil, `"proxy.internal" is neither an IP address nor a CIDR`},
	} {
		got, err := ParseTrustedProxies(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		require.Equal(t, tc.want, s, tc.in)
	}
}

func TestSourceAddressFollowsTheResolvedClient(t *testing.T) {
	t.Parallel()
	proxies, err := ParseTrustedProxies("10.0.0.0/8")
	require.NoError(t, err)
	for _, tc := range []struct{ peer, xff, source, logged string }{
		{"10.0.0.1:1", "203.0.113.9", "203.0.113.9", "203.0.113.9"},
		{"10.0.0.1:1", "2001:db8:1:2::7", "2001:db8:1:2::/64", "2001:db8:1:2::7"},
		{"198.51.100.1:1", "203.0.113.9", "198.51.100.1", "198.51.100.1"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		r.Header.Set("X-Forwarded-For", tc.xff)
		rec := httptest.NewRecorder()
		c := echo.New().NewContext(r, rec)
		require.NoError(t, ClientAddress(proxies)(func(c echo.Context) error {
			require.Equal(t, tc.source, SourceAddress(c.Request()), tc.peer)
			require.Equal(t, tc.logged, ClientIP(c.Request()), tc.peer)
			return nil
		})(c))
	}
}
