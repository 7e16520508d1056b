package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxURLLength is the longest endpoint URL accepted, in bytes.
const MaxURLLength = 2048

// resolveTimeout bounds the host name lookup of CheckURL, within the caller's context.
const resolveTimeout = 5 * time.Second

// Resolver looks up the addresses of a host name. *net.Resolver is one; tests use a
// StaticResolver.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// StaticResolver is a Resolver with fixed answers, for tests: host name (lower case, without a
// trailing dot) to addresses. A name it does not hold is "not found".
type StaticResolver map[string][]netip.Addr

// LookupNetIP returns the addresses of host of the network's family ("ip", "ip4" or "ip6").
func (r StaticResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range r[canonicalHost(host)] {
		if network == "ip" || (network == "ip4") == normalize(a).Is4() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// Policy decides where deliveries may go: public addresses always, and the non-public hosts and
// networks the operator allows (STATEMENTD_WEBHOOK_ALLOW), each on the ports it names (80 and
// 443 when it names none). The zero Policy allows nothing extra and resolves with
// net.DefaultResolver.
type Policy struct {
	hosts    []hostRule   // allowed host names
	prefixes []prefixRule // allowed networks, IPv4 ones unmapped

	// Resolver resolves host names, both in CheckURL and when a Sender connects; nil is
	// net.DefaultResolver. Tests replace it (StaticResolver).
	Resolver Resolver
}

// ports is the set of ports an allow-list entry opens: one port, any (an entry ending in ":*"),
// or, when the entry names none, the web's own 80 and 443. An internal host's other ports (a
// database, a debug listener) stay closed unless the operator names them, so that a tenant
// cannot probe them through webhook deliveries.
type ports struct {
	port uint16 // 0: 80 and 443
	any  bool
}

func (ps ports) allows(port uint16) bool {
	switch {
	case ps.any:
		return true
	case ps.port != 0:
		return port == ps.port
	}
	return port == 80 || port == 443
}

type hostRule struct {
	name string // lower case, without a trailing dot
	ports
}

type prefixRule struct {
	prefix netip.Prefix
	ports
}

// ParsePolicy reads STATEMENTD_WEBHOOK_ALLOW: comma-separated host names, IP addresses and CIDR
// prefixes, each with an optional port, e.g. "127.0.0.1:8443,10.1.0.0/16,hooks.internal:9000,
// [::1]:8080". An entry without a port allows 80 and 443 only; ":*" allows every port (for
// development, where receivers listen on any port). A bare IP address is the prefix of that one
// address. Host names match exactly (case-insensitive, no wildcards). Blank items are skipped;
// an empty list allows nothing extra. An error names the first bad item.
func ParsePolicy(list string) (Policy, error) {
	var p Policy
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if err := p.add(item); err != nil {
			return Policy{}, fmt.Errorf("webhook allow list: %w", err)
		}
	}
	return p, nil
}

// add adds one allow-list entry.
func (p *Policy) add(item string) error {
	if slash := strings.Index(item, "/"); slash >= 0 {
		entry, ps := item, ports{}
		if colon := strings.LastIndex(item, ":"); colon > slash {
			var err error
			if ps, err = parsePorts(item, item[colon+1:]); err != nil {
				return err
			}
			entry = item[:colon]
		}
		pfx, err := netip.ParsePrefix(entry)
		if err != nil {
			return fmt.Errorf("%q is not a valid CIDR prefix", item)
		}
		p.prefixes = append(p.prefixes, prefixRule{unmapPrefix(pfx.Masked()), ps})
		return nil
	}
	addAddr := func(a netip.Addr, ps ports) error {
		if a.Zone() != "" {
			return fmt.Errorf("%q has an IPv6 zone, which cannot be allowed", item)
		}
		a = normalize(a)
		p.prefixes = append(p.prefixes, prefixRule{netip.PrefixFrom(a, a.BitLen()), ps})
		return nil
	}
	if a, err := netip.ParseAddr(strings.Trim(item, "[]")); err == nil {
		return addAddr(a, ports{})
	}
	host, port := item, ""
	if colon := strings.LastIndex(item, ":"); colon >= 0 {
		host, port = item[:colon], item[colon+1:]
	}
	ps, err := parsePorts(item, port)
	if err != nil {
		return err
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
			return fmt.Errorf("%q: write an IPv6 address with a port in brackets, like [::1]:8080", item)
		}
		return addAddr(a, ps)
	}
	name := canonicalHost(host)
	if !validHostName(name) {
		return fmt.Errorf("%q is neither a host name nor an IP address or CIDR prefix, with an optional port", item)
	}
	for _, h := range p.hosts {
		if h.name == name && h.ports == ps {
			return nil
		}
	}
	p.hosts = append(p.hosts, hostRule{name, ps})
	return nil
}

// parsePorts reads the port of an allow-list entry: "" (80 and 443), a number or "*".
func parsePorts(item, port string) (ports, error) {
	switch port {
	case "":
		if strings.HasSuffix(item, ":") {
			return ports{}, fmt.Errorf("%q has an empty port", item)
		}
		return ports{}, nil
	case "*":
		return ports{any: true}, nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return ports{}, fmt.Errorf("%q has an invalid port %q", item, port)
	}
	return ports{port: uint16(n)}, nil
}

// unmapPrefix turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104) into its IPv4 form, since
// addresses are unmapped before they are checked.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// AllowsHost reports whether the operator allows host by name on port (any of its addresses,
// and plain http).
func (p Policy) AllowsHost(host string, port uint16) bool {
	host = canonicalHost(host)
	for _, h := range p.hosts {
		if h.name == host && h.allows(port) {
			return true
		}
	}
	return false
}

// AllowsAddr reports whether a lies in a network the operator allows on port.
func (p Policy) AllowsAddr(a netip.Addr, port uint16) bool {
	return p.inAllowedNetwork(a, func(ps ports) bool { return ps.allows(port) })
}

// inAllowedNetwork reports whether a lies in an allowed network whose ports pass ok.
func (p Policy) inAllowedNetwork(a netip.Addr, ok func(ports) bool) bool {
	a = normalize(a)
	for _, r := range p.prefixes {
		if r.prefix.Contains(a) && ok(r.ports) {
			return true
		}
	}
	return false
}

// resolver returns the Resolver to use.
func (p Policy) resolver() Resolver {
	if p.Resolver != nil {
		return p.Resolver
	}
	return net.DefaultResolver
}

// URLError says why an endpoint URL is refused. Msg is client-facing: a sentence in lower case
// and ending with a period, meant to follow the field's name in an INVALID_REQUEST detail
// (`Field "url": ` in the API documentation's examples), e.g. "webhook URLs must use https." or
// "the host resolves to a private address (10.0.0.5), which is not allowed."
type URLError struct{ Msg string }

func (e *URLError) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &URLError{Msg: fmt.Sprintf(format, args...)}
}

// CheckURL validates an endpoint URL at registration. It must be absolute, http or https, with
// a host, at most MaxURLLength bytes, without user credentials or a fragment. https is required
// unless the host is allowed by name, or every address it resolves to is in an allowed network.
// The host is resolved (bounded by ctx and 5 seconds, through the Policy's Resolver) and the URL
// is refused when any address is neither public nor allowed. Hosts allowed by name are not
// resolved.
//
// A refusal is a *URLError. When ctx ends before the check does, the error is ctx's, not a
// *URLError: the client is not at fault.
func (p Policy) CheckURL(ctx context.Context, raw string) error {
	u, err := parseURL(raw)
	if err != nil {
		return err
	}
	host := canonicalHost(u.Hostname())
	plain := u.Scheme == "http"
	port := urlPort(u)
	if p.AllowsHost(host, port) {
		return nil
	}
	for _, h := range p.hosts {
		if h.name == host {
			return refuse("the port %d of %s is not allowed.", port, host)
		}
	}
	mustUseHTTPS := refuse("webhook URLs must use https.")
	if plain && len(p.prefixes) == 0 {
		return mustUseHTTPS
	}

	var addrs []netip.Addr
	literal, err := netip.ParseAddr(host)
	if err == nil {
		addrs = []netip.Addr{literal}
	} else {
		addrs, err = p.lookup(ctx, host)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("check webhook URL: %w", ctx.Err())
			}
			var dnsErr *net.DNSError
			if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
				return refuse("the host name %s does not resolve to an address.", host)
			}
			return refuse("the host name %s could not be resolved; try again later.", host)
		}
	}
	for _, a := range addrs {
		if p.AllowsAddr(a, port) {
			continue
		}
		if kind := nonPublicKind(a); kind != "" {
			if p.inAllowedNetwork(a, func(ports) bool { return true }) {
				return refuse("the port %d of %s is not allowed.", port, normalize(a))
			}
			if literal.IsValid() {
				return refuse("the host is %s (%s), which is not allowed.", kind, normalize(a))
			}
			return refuse("the host resolves to %s (%s), which is not allowed.", kind, normalize(a))
		}
	}
	// Plain http only when every address is in an allowed network.
	for _, a := range addrs {
		if plain && !p.AllowsAddr(a, port) {
			return mustUseHTTPS
		}
	}
	return nil
}

// urlPort is the port a URL connects to: its own, or its scheme's.
func urlPort(u *url.URL) uint16 {
	if n, err := strconv.Atoi(u.Port()); err == nil {
		return uint16(n)
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// parseURL applies the static rules of CheckURL.
func parseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, refuse("webhook URLs may be at most %d characters long.", MaxURLLength)
	}
	if strings.TrimSpace(raw) == "" {
		return nil, refuse("the URL is empty.")
	}
	if strings.IndexFunc(raw, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
	}) >= 0 {
		// Shown back in lists, such characters could make the URL read as another one.
		return nil, refuse("the URL contains control or bidirectional formatting characters; percent-encode them.")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse("the URL is not valid.")
	}
	switch {
	case !u.IsAbs() || u.Opaque != "" && u.Host == "":
		if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
			return nil, refuse("webhook URLs must use https.")
		}
		return nil, refuse("the URL must be absolute, like https://hooks.example.com/statementmatch.")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, refuse("webhook URLs must use https.")
	case u.User != nil:
		return nil, refuse("webhook URLs may not contain user credentials.")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, refuse("webhook URLs may not contain a fragment (#...).")
	case u.Host == "" || u.Hostname() == "":
		return nil, refuse("the URL has no host.")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, refuse("the port %s is not valid.", port)
		}
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return nil, refuse("the host may not carry an IPv6 zone.")
		}
		return u, nil
	}
	if strings.HasPrefix(u.Host, "[") {
		return nil, refuse("the host is not a valid IPv6 address.")
	}
	if !validHostName(canonicalHost(host)) {
		return nil, refuse("the host %q is not a valid host name or IP address.", host)
	}
	return u, nil
}

// lookup resolves host, bounded by ctx and resolveTimeout.
func (p Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := p.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// canonicalHost lower-cases a host name and drops one trailing dot.
func canonicalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// validHostName reports whether host (canonical) is a DNS host name: ASCII labels of letters,
// digits, '-' and '_' of 1-63 characters, at most 253 in all, not starting or ending with '-',
// and a last label that is not all digits (so "2130706433" or "0x7f.1" are not taken for names:
// some resolvers would read them as IPv4 addresses).
func validHostName(host string) bool {
	if host == "" || len(host) > 253 {
		return false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == "" {
		return false
	}
	return true
}
