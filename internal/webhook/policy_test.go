package webhook_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/webhook"
)

// addrs parses addresses for a StaticResolver.
func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

// policy parses an allow list and gives it a fake resolver.
func policy(t *testing.T, allow string, r webhook.StaticResolver) webhook.Policy {
	t.Helper()
	p, err := webhook.ParsePolicy(allow)
	require.NoError(t, err)
	p.Resolver = r
	return p
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		list        string
		wantErr     string // a part of the error, naming the bad item
		allowHost   []string
		denyHost    []string
		allowAddr   []string
		denyAddr    []string
		wantNothing bool
	}{
		{name: "an empty list allows nothing extra", list: "", wantNothing: true},
		{name: "blanks and empty items are skipped", list: " , ,", wantNothing: true},
		{name: "the documented example allows loopback and one host", list: "127.0.0.0/8,::1/128,hooks.internal",
			allowHost: []string{"hooks.internal", "HOOKS.Internal", "hooks.internal."}, denyHost: []string{"evil.hooks.internal", "internal", "localhost"},
			allowAddr: []string{"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"}, denyAddr: []string{"10.0.0.1", "::2", "128.0.0.1"}},
		{name: "items may be padded with spaces", list: " 10.1.0.0/16 , Hooks.Internal ",
			allowHost: []string{"hooks.internal"}, allowAddr: []string{"10.1.2.3"}, denyAddr: []string{"10.2.0.1"}},
		{name: "a bare address allows that address", list: "192.168.1.5,fd00::5",
			allowAddr: []string{"192.168.1.5", "fd00::5"}, denyAddr: []string{"192.168.1.6", "fd00::6"}},
		{name: "an unmasked prefix is masked", list: "10.1.2.3/16", allowAddr: []string{"10.1.200.1"}},
		{name: "an IPv4-mapped prefix allows the IPv4 network", list: "::ffff:10.0.0.0/104", allowAddr: []string{"10.9.9.9"}, denyAddr: []string{"11.0.0.1"}},
		{name: "a prefix too long is refused", list: "127.0.0.0/8,10.0.0.0/33", wantErr: `"10.0.0.0/33"`},
		{name: "a malformed prefix is refused", list: "10.0.0/8", wantErr: `"10.0.0/8"`},
		{name: "a wildcard is refused", list: "*.internal", wantErr: `"*.internal"`},
		{name: "a URL is refused", list: "http://hooks.internal", wantErr: `"http://hooks.internal"`},
		{name: "a host name with a space is refused", list: "hooks internal", wantErr: `"hooks internal"`},
		{name: "a zoned address is refused", list: "fe80::1%eth0", wantErr: `"fe80::1%eth0"`},
		{name: "a bad port is refused", list: "hooks.internal:99999", wantErr: `invalid port "99999"`},
		{name: "an empty port is refused", list: "10.0.0.1:", wantErr: "empty port"},
		{name: "an IPv6 address with a port needs brackets", list: "fd00::1:8080:1", allowAddr: []string{"fd00::1:8080:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := webhook.ParsePolicy(tt.list)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.wantNothing {
				require.Equal(t, webhook.Policy{}, p)
			}
			for _, h := range tt.allowHost {
				require.True(t, p.AllowsHost(h, 443), h)
			}
			for _, h := range tt.denyHost {
				require.False(t, p.AllowsHost(h, 443), h)
			}
			for _, a := range tt.allowAddr {
				require.True(t, p.AllowsAddr(netip.MustParseAddr(a), 443), a)
			}
			for _, a := range tt.denyAddr {
				require.False(t, p.AllowsAddr(netip.MustParseAddr(a), 443), a)
			}
		})
	}
}

// TestPolicyPorts: an allow-list entry opens the ports it names, 80 and 443 when it names none,
// and every port with ":*", so that a tenant cannot reach, or probe, an internal host's other
// services through webhook deliveries.
func TestPolicyPorts(t *testing.T) {
	t.Parallel()
	p, err := webhook.ParsePolicy("127.0.0.1:8443, hooks.internal:9000, [::1]:8080, 10.0.0.0/8:5000, 192.168.0.0/16, ops.internal, 172.16.0.0/12:*, hooks.internal")
	require.NoError(t, err)
	tests := []struct {
		target string
		port   uint16
		want   bool
	}{
		{"127.0.0.1", 8443, true}, {"127.0.0.1", 443, false}, {"127.0.0.1", 9090, false}, {"::ffff:127.0.0.1", 8443, true},
		{"::1", 8080, true}, {"::1", 80, false},
		{"10.9.8.7", 5000, true}, {"10.9.8.7", 443, false},
		{"192.168.1.1", 80, true}, {"192.168.1.1", 443, true}, {"192.168.1.1", 8080, false},
		{"172.20.0.1", 1, true}, {"172.20.0.1", 65535, true},
		{"host:hooks.internal", 9000, true}, {"host:hooks.internal", 443, true}, {"host:hooks.internal", 9001, false},
		{"host:ops.internal", 443, true}, {"host:ops.internal", 9090, false},
	}
	for _, tt := range tests {
		var got bool
		if host, ok := strings.CutPrefix(tt.target, "host:"); ok {
			got = p.AllowsHost(host, tt.port)
		} else {
			got = p.AllowsAddr(netip.MustParseAddr(tt.target), tt.port)
		}
		require.Equal(t, tt.want, got, "%s port %d", tt.target, tt.port)
	}
	ctx := context.Background()
	for url, want := range map[string]string{
		"http://127.0.0.1:8443/hook":        "",
		"http://127.0.0.1:9090/debug/pprof": "the port 9090 of 127.0.0.1 is not allowed.",
		"http://[::ffff:127.0.0.1]:9090/":   "the port 9090 of 127.0.0.1 is not allowed.",
		"http://hooks.internal:9001/":       "the port 9001 of hooks.internal is not allowed.",
		"http://hooks.internal/in":          "",
		"https://ops.internal/in":           "",
		"http://192.168.3.4/":               "",
		"http://192.168.3.4:5432/":          "the port 5432 of 192.168.3.4 is not allowed.",
	} {
		err := p.CheckURL(ctx, url)
		if want == "" {
			require.NoError(t, err, url)
			continue
		}
		var ue *webhook.URLError
		require.ErrorAs(t, err, &ue, url)
		require.Equal(t, want, ue.Msg, url)
	}
}

func TestIsPublic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		kind string // "" for public
	}{
		{"1.1.1.1", ""}, {"8.8.8.8", ""}, {"93.184.215.14", ""}, {"100.63.255.255", ""}, {"100.128.0.0", ""},
		{"172.15.255.255", ""}, {"172.32.0.0", ""}, {"192.0.1.1", ""}, {"198.20.0.1", ""}, {"223.255.255.255", ""},
		{"2606:4700:4700::1111", ""}, {"2001:4860:4860::8888", ""}, {"64:ff9b::808:808", ""}, {"2002:808:808::1", ""},
		{"::ffff:8.8.8.8", ""},
		{"0.0.0.0", "an unspecified address"}, {"::", "an unspecified address"},
		{"0.1.2.3", "a reserved address"},
		{"127.0.0.1", "a loopback address"}, {"127.255.255.254", "a loopback address"}, {"::1", "a loopback address"},
		{"10.0.0.5", "a private address"}, {"172.16.0.1", "a private address"}, {"172.31.255.255", "a private address"},
		{"192.168.1.1", "a private address"}, {"fd12:3456::1", "a private address"}, {"fc00::1", "a private address"},
		{"fec0::1", "a private address"},
		{"169.254.1.1", "a link-local address"}, {"fe80::1", "a link-local address"}, {"fe80::1%eth0", "a link-local address"},
		{"100.64.0.1", "a shared (carrier-grade NAT) address"}, {"100.127.255.255", "a shared (carrier-grade NAT) address"},
		{"224.0.0.1", "a multicast address"}, {"239.255.255.250", "a multicast address"}, {"ff02::1", "a multicast address"},
		{"255.255.255.255", "a broadcast address"},
		{"240.0.0.1", "a reserved address"}, {"192.0.0.8", "a reserved address"}, {"198.18.0.1", "a reserved address"},
		{"192.88.99.1", "a reserved address"}, {"2001::1", "a reserved address"}, {"100::1", "a reserved address"},
		{"64:ff9b:1::a00:1", "a reserved address"}, {"::7f00:1", "a reserved address"}, {"4000::1", "a reserved address"},
		{"192.0.2.1", "a documentation address"}, {"198.51.100.7", "a documentation address"}, {"203.0.113.9", "a documentation address"},
		{"2001:db8::1", "a documentation address"}, {"3fff::1", "a documentation address"},
		{"169.254.169.254", "a cloud metadata address"}, {"fd00:ec2::254", "a cloud metadata address"},
		{"::ffff:127.0.0.1", "a loopback address"}, {"::ffff:10.0.0.1", "a private address"},
		{"::ffff:169.254.169.254", "a cloud metadata address"},
		{"64:ff9b::7f00:1", "a loopback address"}, {"64:ff9b::a00:5", "a private address"},
		{"64:ff9b::a9fe:a9fe", "a cloud metadata address"},
		{"2002:7f00:1::1", "a loopback address"}, {"2002:c0a8:101::1", "a private address"},
	}
	for _, tt := range tests {
		name := tt.addr + " is public"
		if tt.kind != "" {
			name = tt.addr + " is " + tt.kind
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := netip.MustParseAddr(tt.addr)
			require.Equal(t, tt.kind, webhook.NonPublicKind(a))
			require.Equal(t, tt.kind == "", webhook.IsPublic(a))
		})
	}
	require.False(t, webhook.IsPublic(netip.Addr{}), "the zero address is not public")
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	resolver := webhook.StaticResolver{
		"hooks.partner.test": addrs("93.184.215.14", "2606:4700::6810:84e5"),
		"loopback.test":      addrs("127.0.0.1"),
		"loopback6.test":     addrs("::1"),
		"private.test":       addrs("10.0.0.5"),
		"private172.test":    addrs("172.16.3.4"),
		"private192.test":    addrs("192.168.0.10"),
		"ula.test":           addrs("fd12::1"),
		"linklocal.test":     addrs("169.254.10.10"),
		"linklocal6.test":    addrs("fe80::1"),
		"cgnat.test":         addrs("100.64.0.1"),
		"unspecified.test":   addrs("0.0.0.0"),
		"unspecified6.test":  addrs("::"),
		"thisnet.test":       addrs("0.1.2.3"),
		"multicast.test":     addrs("224.0.0.251"),
		"multicast6.test":    addrs("ff02::fb"),
		"broadcast.test":     addrs("255.255.255.255"),
		"reserved.test":      addrs("240.0.0.1"),
		"benchmark.test":     addrs("198.18.0.1"),
		"doc.test":           addrs("192.0.2.10"),
		"doc6.test":          addrs("2001:db8::10"),
		"metadata.test":      addrs("169.254.169.254"),
		"metadata6.test":     addrs("fd00:ec2::254"),
		"mapped.test":        addrs("::ffff:127.0.0.1"),
		"mapped10.test":      addrs("::ffff:10.0.0.5"),
		"nat64.test":         addrs("64:ff9b::7f00:1"),
		"nat64public.test":   addrs("64:ff9b::808:808"),
		"mixed.test":         addrs("93.184.215.14", "10.0.0.5"),
		"rebind.test":        addrs("127.0.0.1", "10.0.0.5"),
	}
	strict := policy(t, "", resolver)
	allowing := policy(t, "127.0.0.0/8:*,::1/128:*,hooks.internal:*", resolver)
	const notHTTPS = "webhook URLs must use https."

	tests := []struct {
		name    string
		policy  webhook.Policy
		url     string
		wantMsg string // "" when accepted
	}{
		// Accepted.
		{name: "an https URL on a public host is accepted", policy: strict, url: "https://hooks.partner.test/statementmatch"},
		{name: "a port, query and upper-case scheme and host are fine", policy: strict, url: "HTTPS://Hooks.Partner.Test:8443/a/b?c=d&e=f"},
		{name: "a public IPv4 literal is accepted", policy: strict, url: "https://93.184.215.14/hook"},
		{name: "a public IPv6 literal is accepted", policy: strict, url: "https://[2606:4700::6810:84e5]/hook"},
		{name: "a NAT64 address of a public IPv4 address is accepted", policy: strict, url: "https://nat64public.test/"},
		{name: "a URL of exactly 2048 characters is accepted", policy: strict,
			url: "https://hooks.partner.test/" + strings.Repeat("a", 2048-len("https://hooks.partner.test/"))},
		{name: "a bidirectional override, which would show the URL reversed in a list, is refused", policy: strict,
			url: "https://hooks.partner.test/\u202emoc.evil", wantMsg: "control or bidirectional formatting characters"},
		{name: "an isolate in the host is refused", policy: strict,
			url: "https://hooks.\u2066partner\u2069.test/", wantMsg: "control or bidirectional formatting characters"},
		{name: "a DEL character is refused", policy: strict,
			url: "https://hooks.partner.test/a\x7fb", wantMsg: "control or bidirectional formatting characters"},

		// Each non-public range, through a host name and as a literal.
		{name: "a host resolving to loopback is refused", policy: strict, url: "https://loopback.test/",
			wantMsg: "the host resolves to a loopback address (127.0.0.1), which is not allowed."},
		{name: "a host resolving to IPv6 loopback is refused", policy: strict, url: "https://loopback6.test/",
			wantMsg: "the host resolves to a loopback address (::1), which is not allowed."},
		{name: "a host resolving to 10/8 is refused", policy: strict, url: "https://private.test/",
			wantMsg: "the host resolves to a private address (10.0.0.5), which is not allowed."},
		{name: "a host resolving to 172.16/12 is refused", policy: strict, url: "https://private172.test/", wantMsg: "a private address (172.16.3.4)"},
		{name: "a host resolving to 192.168/16 is refused", policy: strict, url: "https://private192.test/", wantMsg: "a private address (192.168.0.10)"},
		{name: "a host resolving to a unique local address is refused", policy: strict, url: "https://ula.test/", wantMsg: "a private address (fd12::1)"},
		{name: "a host resolving to IPv4 link-local is refused", policy: strict, url: "https://linklocal.test/", wantMsg: "a link-local address (169.254.10.10)"},
		{name: "a host resolving to IPv6 link-local is refused", policy: strict, url: "https://linklocal6.test/", wantMsg: "a link-local address (fe80::1)"},
		{name: "a host resolving to CGNAT space is refused", policy: strict, url: "https://cgnat.test/", wantMsg: "a shared (carrier-grade NAT) address (100.64.0.1)"},
		{name: "a host resolving to 0.0.0.0 is refused", policy: strict, url: "https://unspecified.test/", wantMsg: "an unspecified address (0.0.0.0)"},
		{name: "a host resolving to :: is refused", policy: strict, url: "https://unspecified6.test/", wantMsg: "an unspecified address (::)"},
		{name: "a host resolving into 0.0.0.0/8 is refused", policy: strict, url: "https://thisnet.test/", wantMsg: "a reserved address (0.1.2.3)"},
		{name: "a host resolving to IPv4 multicast is refused", policy: strict, url: "https://multicast.test/", wantMsg: "a multicast address (224.0.0.251)"},
		{name: "a host resolving to IPv6 multicast is refused", policy: strict, url: "https://multicast6.test/", wantMsg: "a multicast address (ff02::fb)"},
		{name: "a host resolving to the broadcast address is refused", policy: strict, url: "https://broadcast.test/", wantMsg: "a broadcast address (255.255.255.255)"},
		{name: "a host resolving to 240/4 is refused", policy: strict, url: "https://reserved.test/", wantMsg: "a reserved address (240.0.0.1)"},
		{name: "a host resolving to benchmarking space is refused", policy: strict, url: "https://benchmark.test/", wantMsg: "a reserved address (198.18.0.1)"},
		{name: "a host resolving to IPv4 documentation space is refused", policy: strict, url: "https://doc.test/", wantMsg: "a documentation address (192.0.2.10)"},
		{name: "a host resolving to IPv6 documentation space is refused", policy: strict, url: "https://doc6.test/", wantMsg: "a documentation address (2001:db8::10)"},
		{name: "a host resolving to the metadata address is refused", policy: strict, url: "https://metadata.test/",
			wantMsg: "the host resolves to a cloud metadata address (169.254.169.254), which is not allowed."},
		{name: "a host resolving to the IPv6 metadata address is refused", policy: strict, url: "https://metadata6.test/", wantMsg: "a cloud metadata address (fd00:ec2::254)"},
		{name: "a host resolving to IPv4-mapped loopback is refused", policy: strict, url: "https://mapped.test/", wantMsg: "a loopback address (127.0.0.1)"},
		{name: "a host resolving to IPv4-mapped private space is refused", policy: strict, url: "https://mapped10.test/", wantMsg: "a private address (10.0.0.5)"},
		{name: "a host resolving to NAT64 loopback is refused", policy: strict, url: "https://nat64.test/", wantMsg: "a loopback address (64:ff9b::7f00:1)"},
		{name: "a host with one private address among public ones is refused", policy: strict, url: "https://mixed.test/", wantMsg: "a private address (10.0.0.5)"},
		{name: "a loopback literal is refused", policy: strict, url: "https://127.0.0.1:8443/",
			wantMsg: "the host is a loopback address (127.0.0.1), which is not allowed."},
		{name: "an IPv6 loopback literal is refused", policy: strict, url: "https://[::1]/", wantMsg: "the host is a loopback address (::1)"},
		{name: "an IPv4-mapped loopback literal is refused", policy: strict, url: "https://[::ffff:127.0.0.1]/", wantMsg: "a loopback address (127.0.0.1)"},
		{name: "a private literal is refused", policy: strict, url: "https://10.0.0.5/", wantMsg: "a private address (10.0.0.5)"},
		{name: "the metadata literal is refused", policy: strict, url: "http://169.254.169.254/latest/meta-data/", wantMsg: notHTTPS},
		{name: "the metadata literal is refused over https too", policy: strict, url: "https://169.254.169.254/latest/meta-data/", wantMsg: "a cloud metadata address"},
		{name: "a decimal IPv4 host is refused", policy: strict, url: "https://2130706433/", wantMsg: "not a valid host name or IP address"},
		{name: "a hexadecimal IPv4 host is refused", policy: strict, url: "https://0x7f.0x1/", wantMsg: "not a valid host name or IP address"},
		{name: "a zoned IPv6 literal is refused", policy: strict, url: "https://[fe80::1%25eth0]/", wantMsg: "IPv6 zone"},
		{name: "a host that does not resolve is refused", policy: strict, url: "https://nowhere.test/", wantMsg: "the host name nowhere.test does not resolve to an address."},

		// The operator's allowances.
		{name: "an allowed network's literal is accepted", policy: allowing, url: "https://127.0.0.1:8443/hook"},
		{name: "an allowed network's literal may use http", policy: allowing, url: "http://127.0.0.1:8080/hook"},
		{name: "an allowed IPv6 literal may use http", policy: allowing, url: "http://[::1]:8080/hook"},
		{name: "a host resolving into an allowed network may use http", policy: allowing, url: "http://loopback.test:8080/"},
		{name: "an IPv4-mapped address in an allowed network may use http", policy: allowing, url: "http://mapped.test/"},
		{name: "an allowed host name may use http and is not resolved", policy: allowing, url: "http://hooks.internal:9000/in"},
		{name: "an allowed host name matches case-insensitively and with a trailing dot", policy: allowing, url: "http://HOOKS.Internal./in"},
		{name: "a subdomain of an allowed host is not allowed", policy: allowing, url: "http://a.hooks.internal/", wantMsg: "does not resolve"},
		{name: "a host resolving partly outside the allowed networks is refused", policy: allowing, url: "http://rebind.test/",
			wantMsg: "the host resolves to a private address (10.0.0.5), which is not allowed."},
		{name: "an allowance does not extend to other private ranges", policy: allowing, url: "https://private.test/", wantMsg: "a private address (10.0.0.5)"},
		{name: "http to a public host is refused even when some networks are allowed", policy: allowing, url: "http://hooks.partner.test/", wantMsg: notHTTPS},
		{name: "http to a host with a private address among public ones names the private one", policy: allowing, url: "http://mixed.test/",
			wantMsg: "a private address (10.0.0.5)"},

		// Static rules.
		{name: "http to a public host is refused", policy: strict, url: "http://hooks.partner.test/", wantMsg: notHTTPS},
		{name: "http to a loopback literal is refused", policy: strict, url: "http://127.0.0.1/", wantMsg: notHTTPS},
		{name: "user and password are refused", policy: strict, url: "https://user:secret@hooks.partner.test/", wantMsg: "webhook URLs may not contain user credentials."},
		{name: "a user name alone is refused", policy: strict, url: "https://user@hooks.partner.test/", wantMsg: "user credentials"},
		{name: "user info is refused for allowed hosts too", policy: allowing, url: "http://user:pw@hooks.internal/", wantMsg: "user credentials"},
		{name: "a fragment is refused", policy: strict, url: "https://hooks.partner.test/#top", wantMsg: "webhook URLs may not contain a fragment (#...)."},
		{name: "an empty fragment is refused", policy: strict, url: "https://hooks.partner.test/#", wantMsg: "fragment"},
		{name: "ftp is refused", policy: strict, url: "ftp://hooks.partner.test/", wantMsg: notHTTPS},
		{name: "file is refused", policy: strict, url: "file:///etc/passwd", wantMsg: notHTTPS},
		{name: "javascript is refused", policy: strict, url: "javascript:alert(1)", wantMsg: notHTTPS},
		{name: "gopher is refused", policy: strict, url: "gopher://hooks.partner.test:70/", wantMsg: notHTTPS},
		{name: "a relative URL is refused", policy: strict, url: "/api/hook", wantMsg: "the URL must be absolute"},
		{name: "a scheme-relative URL is refused", policy: strict, url: "//hooks.partner.test/hook", wantMsg: "the URL must be absolute"},
		{name: "an opaque https URL is refused", policy: strict, url: "https:hooks.partner.test", wantMsg: "the URL must be absolute"},
		{name: "an empty URL is refused", policy: strict, url: "", wantMsg: "the URL is empty."},
		{name: "a URL without a host is refused", policy: strict, url: "https:///hook", wantMsg: "the URL has no host."},
		{name: "a URL with only a port is refused", policy: strict, url: "https://:443/hook", wantMsg: "the URL has no host."},
		{name: "port 0 is refused", policy: strict, url: "https://hooks.partner.test:0/", wantMsg: "the port 0 is not valid."},
		{name: "a port above 65535 is refused", policy: strict, url: "https://hooks.partner.test:65536/", wantMsg: "the port 65536 is not valid."},
		{name: "a control character is refused", policy: strict, url: "https://hooks.partner.test/\n", wantMsg: "control or bidirectional formatting characters"},
		{name: "a space in the host is refused", policy: strict, url: "https://hooks partner.test/", wantMsg: "the URL is not valid."},
		{name: "a non-ASCII host is refused", policy: strict, url: "https://bücher.test/", wantMsg: "not a valid host name"},
		{name: "a URL of 2049 characters is refused", policy: strict,
			url:     "https://hooks.partner.test/" + strings.Repeat("a", 2049-len("https://hooks.partner.test/")),
			wantMsg: "webhook URLs may be at most 2048 characters long."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.policy.CheckURL(context.Background(), tt.url)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			var urlErr *webhook.URLError
			require.ErrorAs(t, err, &urlErr)
			require.Contains(t, urlErr.Error(), tt.wantMsg)
			require.Equal(t, urlErr.Msg, urlErr.Error())
		})
	}
}

// failingResolver fails every lookup with the error of its context, or a server failure.
type failingResolver struct{}

func (failingResolver) LookupNetIP(ctx context.Context, _, host string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, &netDNSError{host}
}

type netDNSError struct{ host string }

func (e *netDNSError) Error() string { return "lookup " + e.host + ": server misbehaving" }

func TestCheckURLWhenTheResolverFails(t *testing.T) {
	t.Parallel()
	p := webhook.Policy{Resolver: failingResolver{}}

	t.Run("a lookup failure is a URLError asking to try again", func(t *testing.T) {
		t.Parallel()
		err := p.CheckURL(context.Background(), "https://hooks.partner.test/")
		var urlErr *webhook.URLError
		require.ErrorAs(t, err, &urlErr)
		require.Equal(t, "the host name hooks.partner.test could not be resolved; try again later.", urlErr.Msg)
	})
	t.Run("a cancelled context is not the client's fault", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := p.CheckURL(ctx, "https://hooks.partner.test/")
		require.ErrorIs(t, err, context.Canceled)
		var urlErr *webhook.URLError
		require.NotErrorAs(t, err, &urlErr)
	})
}
