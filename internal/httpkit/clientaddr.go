package httpkit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"
)

// TrustedProxies are the networks of the reverse proxies in front of the service
// (STATEMENTD_TRUSTED_PROXIES). A request whose connection comes from one of them is from the
// client its X-Forwarded-For names; from any other peer the header is ignored, since anyone can
// send it.
type TrustedProxies []netip.Prefix

// ParseTrustedProxies reads a comma-separated list of CIDRs and addresses ("10.0.0.0/8,
// 192.0.2.7, fd00::/8"); an address alone is a network of one.
func ParseTrustedProxies(s string) (TrustedProxies, error) {
	var p TrustedProxies
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if strings.Contains(entry, "/") {
			network, err := netip.ParsePrefix(entry)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8", entry)
			}
			network = network.Masked()
			if network.Addr().Is4In6() {
				network = netip.PrefixFrom(network.Addr().Unmap(), network.Bits()-96)
			}
			p = append(p, network)
			continue
		}
		addr, err := netip.ParseAddr(entry)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR", entry)
		}
		addr = addr.Unmap().WithZone("")
		p = append(p, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return p, nil
}

func (p TrustedProxies) trusts(a netip.Addr) bool {
	for _, network := range p {
		if network.Contains(a) {
			return true
		}
	}
	return false
}

// Client returns the address r comes from: the connection's peer, unless the peer is a trusted
// proxy. Then X-Forwarded-For (every such header, in order) is read from the right, each
// trusted proxy having appended the address it was reached from, and the first address that is
// not a trusted proxy's is the client's: entries further left were written by the client and
// may be forged. An entry that is not an address stops the walk at the last trusted hop, which
// then stands for the client; if every hop is trusted the leftmost one is the client. ok is
// false when the peer is not an IP address (a unix socket).
func (p TrustedProxies) Client(r *http.Request) (addr netip.Addr, ok bool) {
	peer, ok := peerAddr(r.RemoteAddr)
	if !ok || len(p) == 0 || !p.trusts(peer) {
		return peer, ok
	}
	hops := r.Header.Values(echo.HeaderXForwardedFor)
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		entries := strings.Split(hops[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, ok := forwardedAddr(entries[j])
			if !ok {
				return client, true
			}
			client = a
			if !p.trusts(a) {
				return client, true
			}
		}
	}
	return client, true
}

// peerAddr parses a connection's remote address ("192.0.2.7:51234", "[2001:db8::1]:443").
func peerAddr(remote string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

// forwardedAddr parses one X-Forwarded-For entry: an address, bracketed or not, with or without
// a port, as proxies write them ("203.0.113.9", "[2001:db8::1]", "203.0.113.9:4711").
func forwardedAddr(entry string) (netip.Addr, bool) {
	entry = strings.TrimSpace(entry)
	if a, err := netip.ParseAddr(entry); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(entry); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(entry, "["), "]")); err == nil {
		return a.Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

type clientAddrKey struct{}

// ClientAddress resolves each request's client address once (TrustedProxies.Client) and keeps
// it in the request's context, where SourceAddress (for throttles) and ClientIP (for logs) find
// it; it runs first, so that everything after it sees the same address.
func ClientAddress(p TrustedProxies) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if a, ok := p.Client(r); ok {
				c.SetRequest(r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, a)))
			}
			return next(c)
		}
	}
}

// clientAddr returns the address ClientAddress resolved for r, or else r's peer.
func clientAddr(r *http.Request) (netip.Addr, bool) {
	if a, ok := r.Context().Value(clientAddrKey{}).(netip.Addr); ok {
		return a, true
	}
	return peerAddr(r.RemoteAddr)
}

// ClientIP returns the client's address as logs show it: the one ClientAddress resolved, or the
// peer's; the raw remote address when it is not an IP address. It is also echo's IPExtractor, so
// that c.RealIP() never believes a forwarding header from an untrusted peer.
func ClientIP(r *http.Request) string {
	if a, ok := clientAddr(r); ok {
		return a.String()
	}
	return r.RemoteAddr
}
