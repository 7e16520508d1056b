package webhook

import (
	"net/netip"
)

// The kinds of non-public addresses, as they appear in messages ("resolves to a private
// address (10.0.0.5)").
const (
	kindLoopback      = "a loopback address"
	kindPrivate       = "a private address"
	kindLinkLocal     = "a link-local address"
	kindShared        = "a shared (carrier-grade NAT) address"
	kindUnspecified   = "an unspecified address"
	kindMulticast     = "a multicast address"
	kindBroadcast     = "a broadcast address"
	kindReserved      = "a reserved address"
	kindDocumentation = "a documentation address"
	kindMetadata      = "a cloud metadata address"
)

// special is one non-public range. The table is searched in order, so more specific ranges
// come before the ranges that contain them.
type special struct {
	prefix netip.Prefix
	kind   string
}

var nonPublic = []special{
	// Cloud metadata services: inside link-local and fc00::/7, named for a clearer message.
	{netip.MustParsePrefix("169.254.169.254/32"), kindMetadata},
	{netip.MustParsePrefix("fd00:ec2::254/128"), kindMetadata},

	// IPv4 (IANA IPv4 special-purpose registry, ranges not globally reachable).
	{netip.MustParsePrefix("0.0.0.0/32"), kindUnspecified},
	{netip.MustParsePrefix("0.0.0.0/8"), kindReserved}, // "this network"
	{netip.MustParsePrefix("10.0.0.0/8"), kindPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), kindShared},
	{netip.MustParsePrefix("127.0.0.0/8"), kindLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), kindLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), kindPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), kindReserved}, // IETF protocol assignments
	{netip.MustParsePrefix("192.0.2.0/24"), kindDocumentation},
	{netip.MustParsePrefix("192.88.99.0/24"), kindReserved}, // former 6to4 relay anycast
	{netip.MustParsePrefix("192.168.0.0/16"), kindPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), kindReserved}, // benchmarking
	{netip.MustParsePrefix("198.51.100.0/24"), kindDocumentation},
	{netip.MustParsePrefix("203.0.113.0/24"), kindDocumentation},
	{netip.MustParsePrefix("224.0.0.0/4"), kindMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), kindBroadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), kindReserved},

	// IPv6. Everything outside 2000::/3 is refused below as well; these give better messages.
	{netip.MustParsePrefix("::/128"), kindUnspecified},
	{netip.MustParsePrefix("::1/128"), kindLoopback},
	{netip.MustParsePrefix("fc00::/7"), kindPrivate}, // unique local
	{netip.MustParsePrefix("fe80::/10"), kindLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), kindPrivate}, // former site-local
	{netip.MustParsePrefix("ff00::/8"), kindMulticast},
	{netip.MustParsePrefix("2001:db8::/32"), kindDocumentation},
	{netip.MustParsePrefix("3fff::/20"), kindDocumentation},
	{netip.MustParsePrefix("2001::/23"), kindReserved}, // IETF protocol assignments, Teredo
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052 well-known prefix
	sixToFour      = netip.MustParsePrefix("2002::/16")    // RFC 3056: 2002:V4ADDR::/48
)

// nonPublicKind returns what kind of non-public address a is, or "" when a is public: loopback,
// private (RFC 1918, fc00::/7), link-local, shared (100.64/10), unspecified, multicast,
// broadcast, reserved and documentation ranges and the cloud metadata addresses. IPv4-mapped
// IPv6 addresses are unmapped first, and the IPv4 address inside a NAT64 (64:ff9b::/96) or
// 6to4 (2002::/16) address is judged as itself. An invalid address is reserved.
func nonPublicKind(a netip.Addr) string {
	if !a.IsValid() {
		return kindReserved
	}
	a = normalize(a)
	for _, s := range nonPublic {
		if s.prefix.Contains(a) {
			return s.kind
		}
	}
	if a.Is4() {
		return ""
	}
	if nat64.Contains(a) {
		b := a.As16()
		return nonPublicKind(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if sixToFour.Contains(a) {
		b := a.As16()
		return nonPublicKind(netip.AddrFrom4([4]byte(b[2:6])))
	}
	if !globalUnicast6.Contains(a) {
		return kindReserved
	}
	return ""
}

// IsPublic reports whether a is a public (globally reachable unicast) address, by the rules of
// nonPublicKind: the address a delivery may reach without an operator's allowance.
func IsPublic(a netip.Addr) bool { return nonPublicKind(a) == "" }

// normalize unmaps an IPv4-mapped address and drops an IPv6 zone, the form every check uses.
func normalize(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }
