package httpaction

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
)

// guardedDialer dials for a client whose requests may go to the hosts of
// allowed_hosts, checking the addresses a name resolves to rather than the
// name alone: a listed name that resolves to a loopback, private,
// link-local or unspecified address (DNS rebinding, or a stale record) is
// refused unless allowed_hosts lists that address too. The upstream's own
// host, as base_url or a fixed url names it, is the operator's choice and
// dialled as is; so is an IP literal, which reaches here only when an entry
// lists it.
type guardedDialer struct {
	r      *reach
	dialer net.Dialer
}

// dialRefusal is a name whose addresses allowed_hosts does not let in.
type dialRefusal struct {
	host string
	addr netip.Addr
}

func (e *dialRefusal) Error() string {
	return fmt.Sprintf("%s resolves to %s, %s, which allowed_hosts does not list: the request was not sent (if that address is meant, add %q to allowed_hosts)",
		e.host, e.addr, addressKind(e.addr), e.addr.String())
}

// DialContext resolves the host of addr, drops the addresses it may not
// reach, and dials the others in turn.
func (g *guardedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err == nil || g.ownHost(host) {
		return g.dialer.DialContext(ctx, network, addr)
	}
	found, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var refusal error
	var reachable []netip.Addr
	for _, a := range found {
		a = a.Unmap()
		if internalAddress(a) && !g.r.allowed.listsAddress(a) {
			if refusal == nil {
				refusal = &dialRefusal{host: host, addr: a}
			}
			continue
		}
		reachable = append(reachable, a)
	}
	if len(reachable) == 0 {
		if refusal == nil {
			refusal = &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
		}
		return nil, refusal
	}
	var first error
	for _, a := range reachable {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// ownHost reports whether host is the client's upstream.
func (g *guardedDialer) ownHost(host string) bool {
	if g.r.host == "" {
		return false
	}
	own := g.r.host
	if h, _, err := net.SplitHostPort(own); err == nil {
		own = h
	}
	own = strings.TrimSuffix(strings.TrimPrefix(own, "["), "]")
	return strings.EqualFold(strings.TrimSuffix(own, "."), strings.TrimSuffix(host, "."))
}

// internalAddress reports whether a is an address of this machine or its
// networks rather than of the internet: loopback, private (RFC 1918, RFC
// 4193), shared (RFC 6598), link-local or unspecified.
func internalAddress(a netip.Addr) bool {
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || sharedSpace.Contains(a)
}

// sharedSpace is 100.64.0.0/10, the carrier-grade NAT range (RFC 6598).
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// addressKind says what an internal address is, for messages.
func addressKind(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified():
		return "the unspecified address"
	}
	return "a private address"
}

// listsAddress reports whether an entry of l is the address a, on any port.
func (l hostList) listsAddress(a netip.Addr) bool {
	for _, e := range l {
		if e.ip.IsValid() && e.ip.Unmap() == a {
			return true
		}
	}
	return false
}

// proxied reports whether the environment sends requests through a proxy,
// which then resolves the names: addresses cannot be checked here.
func proxied() bool {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}
