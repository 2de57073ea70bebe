package httpaction

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
)

// hostList is an allowed_hosts attribute: the hosts a request or a redirect
// may go to besides its upstream's own.
type hostList []hostEntry

// hostEntry is one entry: an exact host ("api.example.com", an IP literal),
// or a wildcard ("*.example.com": its subdomains, not itself), with or
// without a port.
type hostEntry struct {
	name     string // lower case, without the "*." of a wildcard
	wildcard bool
	port     string // "" for the scheme's default port only
}

// parseHost reads one allowed_hosts entry.
func parseHost(s string) (hostEntry, error) {
	if s == "" || strings.ContainsAny(s, "/?#@ \t") || strings.Contains(s, "://") {
		return hostEntry{}, fmt.Errorf("%q is not a host: write a name such as api.example.com, *.example.com or 127.0.0.1:8080, without a scheme or path", s)
	}
	e := hostEntry{}
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, e.port = h, p
	} else if strings.Count(s, ":") == 1 {
		return hostEntry{}, fmt.Errorf("%q has an invalid port", s)
	}
	host = strings.Trim(host, "[]")
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		e.wildcard, host = true, rest
	}
	if host == "" || strings.Contains(host, "*") {
		return hostEntry{}, fmt.Errorf("%q is not a host: a wildcard may only open it, as in *.example.com", s)
	}
	e.name = strings.ToLower(strings.TrimSuffix(host, "."))
	return e, nil
}

// allows reports whether u may be reached: http or https, no credentials,
// and a host and port that an entry names.
func (l hostList) allows(u *url.URL) bool {
	if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == defaultPort(u.Scheme) {
		port = ""
	}
	isIP := net.ParseIP(host) != nil
	for _, e := range l {
		if e.port != port && !(e.port == defaultPort(u.Scheme) && port == "") {
			continue
		}
		if e.name == host && !e.wildcard {
			return true
		}
		if e.wildcard && !isIP && strings.HasSuffix(host, "."+e.name) {
			return true
		}
	}
	return false
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// decodeHosts reads an allowed_hosts attribute.
func decodeHosts(ctx *engine.DecodeContext, attr *hcl.Attribute) (hostList, hcl.Diagnostics) {
	v, diags := ctx.Eval(attr.Expr)
	if diags.HasErrors() {
		return nil, diags
	}
	bad := func(detail string) (hostList, hcl.Diagnostics) {
		return nil, append(diags, errorf(attr.Expr.Range(), "Invalid allowed_hosts", "%s", detail))
	}
	ty := v.Type()
	if v.IsNull() || !v.IsKnown() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		return bad(`allowed_hosts must be a list of hosts, such as ["api.example.com", "*.example.org"].`)
	}
	var list hostList
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String {
			return bad(`allowed_hosts must be a list of hosts, such as ["api.example.com", "*.example.org"].`)
		}
		h, err := parseHost(e.AsString())
		if err != nil {
			return bad(upperFirst(err.Error()) + ".")
		}
		list = append(list, h)
	}
	if len(list) == 0 {
		return bad("allowed_hosts is empty: name at least one host.")
	}
	return list, diags
}

// redirectError is a redirect the action may not follow.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the upstream redirected the request to %s, which this action may not reach; to follow it, add its host to allowed_hosts", e.to)
}

// parseURL parses an absolute URL.
func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
