package httpaction

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/net/idna"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// hostList is an allowed_hosts attribute: the hosts a request or a redirect
// may go to besides its upstream's own.
type hostList []hostEntry

// hostEntry is one entry: an exact host ("api.example.com", an IP literal),
// or a wildcard ("*.example.com": its subdomains, not itself), with or
// without a port.
type hostEntry struct {
	name     string     // normalised by normalHost, without the "*." of a wildcard
	ip       netip.Addr // the address, when the entry is an IP literal
	wildcard bool
	port     string // "" for the scheme's default port only
}

// parseHost reads one allowed_hosts entry.
func parseHost(s string) (hostEntry, error) {
	if s == "" || strings.ContainsAny(s, "/?#@\\ \t\r\n") || strings.Contains(s, "://") {
		return hostEntry{}, fmt.Errorf("%q is not a host: write a name such as api.example.com, *.example.com or 127.0.0.1:8080, without a scheme or path", s)
	}
	e := hostEntry{}
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || p[0] == '0' {
			return hostEntry{}, fmt.Errorf("%q has an invalid port: write one from 1 to 65535, or none for the scheme's default", s)
		}
		host, e.port = h, p
	} else if strings.Count(s, ":") == 1 {
		return hostEntry{}, fmt.Errorf("%q has an invalid port: write one from 1 to 65535, or none for the scheme's default", s)
	}
	if strings.HasPrefix(host, "[") != strings.HasSuffix(host, "]") {
		return hostEntry{}, fmt.Errorf("%q is not a host: an IPv6 address is written in brackets, such as [::1]:8080", s)
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		e.wildcard, host = true, rest
	}
	if host == "" || strings.Contains(host, "*") {
		return hostEntry{}, fmt.Errorf("%q is not a host: a wildcard may only open it, as in *.example.com", s)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if e.wildcard {
			return hostEntry{}, fmt.Errorf("%q is not a host: an IP address cannot have subdomains; list it without *.", s)
		}
		e.ip, e.name = ip, ip.String()
		return e, nil
	}
	name, ok := normalHost(host)
	if !ok {
		return hostEntry{}, fmt.Errorf("%q is not a valid host name", s)
	}
	e.name = name
	return e, nil
}

// normalHost returns a host name the way it is looked up: in lower case,
// without a final dot, and, when it is not ASCII, converted to punycode
// ("bücher.example" is "xn--bcher-kva.example") as net/http does before it
// dials. ok is false for a name that cannot be converted.
func normalHost(host string) (string, bool) {
	host = strings.TrimSuffix(host, ".")
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(host)
			if err != nil {
				return "", false
			}
			return strings.TrimSuffix(a, "."), a != ""
		}
	}
	return strings.ToLower(host), host != ""
}

// allows reports whether u may be reached: http or https, no credentials,
// and a host and port that an entry names.
func (l hostList) allows(u *url.URL) bool {
	if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	port := u.Port()
	if port == defaultPort(u.Scheme) {
		port = ""
	}
	ip, ipErr := netip.ParseAddr(u.Hostname())
	isIP := ipErr == nil
	host, ok := u.Hostname(), true
	if !isIP {
		if host, ok = normalHost(host); !ok {
			return false
		}
	}
	for _, e := range l {
		if e.port != port && !(e.port == defaultPort(u.Scheme) && port == "") {
			continue
		}
		switch {
		case isIP:
			// An address is allowed only when an entry names it.
			if e.ip.IsValid() && e.ip == ip {
				return true
			}
		case e.ip.IsValid():
		case e.wildcard:
			if strings.HasSuffix(host, "."+e.name) {
				return true
			}
		case e.name == host:
			return true
		}
	}
	return false
}

// entryFor is the allowed_hosts entry that would allow u, for messages:
// its host, with its port when that is not the scheme's default.
func entryFor(u *url.URL) string {
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err != nil {
		if n, ok := normalHost(host); ok {
			host = n
		}
	}
	if p := u.Port(); p != "" && p != defaultPort(u.Scheme) {
		return net.JoinHostPort(host, p)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// decodeHosts reads an allowed_hosts attribute. A mistake in one entry is
// reported on that entry when the list is written out.
func decodeHosts(ctx *engine.DecodeContext, attr *hcl.Attribute) (hostList, hcl.Diagnostics) {
	v, diags := ctx.Eval(attr.Expr)
	if diags.HasErrors() {
		return nil, diags
	}
	v, _ = v.UnmarkDeep()
	bad := func(rng hcl.Range, detail string) (hostList, hcl.Diagnostics) {
		return nil, append(diags, errorf(rng, "Invalid allowed_hosts", "%s", detail))
	}
	const want = `allowed_hosts must be a list of hosts, such as ["api.example.com", "*.example.org"].`
	ty := v.Type()
	if v.IsNull() || !v.IsKnown() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		return bad(attr.Expr.Range(), want)
	}
	// The range of each element, when the list is written as [ … ].
	var ranges []hcl.Range
	if t, ok := attr.Expr.(*hclsyntax.TupleConsExpr); ok && len(t.Exprs) == v.LengthInt() && !ty.IsSetType() {
		for _, e := range t.Exprs {
			ranges = append(ranges, e.Range())
		}
	}
	var list hostList
	for i, it := 0, v.ElementIterator(); it.Next(); i++ {
		rng := attr.Expr.Range()
		if ranges != nil {
			rng = ranges[i]
		}
		_, e := it.Element()
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String {
			return bad(rng, want)
		}
		h, err := parseHost(e.AsString())
		if err != nil {
			return bad(rng, text.UpperFirst(err.Error())+".")
		}
		if h.wildcard && !strings.Contains(h.name, ".") {
			diags = append(diags, warnf(rng, "Very wide allowed_hosts",
				"%q allows every host under the top-level domain %q, which is most of the internet; name the hosts or the domain the requests may reach, such as *.example.%s.", e.AsString(), h.name, h.name))
		}
		list = append(list, h)
	}
	if len(list) == 0 {
		return bad(attr.Expr.Range(), `allowed_hosts is empty: name at least one host, such as ["api.example.com"].`)
	}
	return list, diags
}

// redirectError is a redirect the action may not follow.
type redirectError struct {
	to  *url.URL // where the upstream redirected to
	why redirectRefusal
}

// redirectRefusal says why a redirect is not followed.
type redirectRefusal int

const (
	otherHost   redirectRefusal = iota // a host neither the upstream nor allowed
	downgrade                          // from https to plain http
	otherScheme                        // neither http nor https
	credentials                        // user:password@ in the URL
	keyInURL                           // the api's key, to another host
)

func (e *redirectError) Error() string {
	switch e.why {
	case downgrade:
		return fmt.Sprintf("the upstream redirected it from https to plain http (%s), which is never followed", redactURL(e.to))
	case otherScheme:
		return fmt.Sprintf("the upstream redirected it to a %s: URL, which is never followed; only http and https are", e.to.Scheme)
	case credentials:
		return fmt.Sprintf("the upstream redirected it to a URL on %s with credentials (user:password@), which is never followed", e.to.Host)
	case keyInURL:
		return fmt.Sprintf("the upstream redirected it to %s://%s, on another host, with the api's key in the URL; the redirect was not followed", e.to.Scheme, e.to.Host)
	}
	return fmt.Sprintf("the upstream redirected it to %s, on another host; to follow the redirect, add %q to allowed_hosts", redactURL(e.to), entryFor(e.to))
}
