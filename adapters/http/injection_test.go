package httpaction

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestInjection sends hostile argument values through every place an
// argument reaches a request. Each comes back either as plain data (the
// upstream saw it escaped, on its own host and path) or as a clear error,
// with nothing sent.
func TestInjection(t *testing.T) {
	rec := newRecorder(t, nil)
	host := strings.TrimPrefix(rec.URL, "http://")
	f := newFixture(t)
	templated := f.action(api(rec.URL) + `
http {
  api         = http_api.x
  path        = "/items/{v}"
  path_params = { v = expr("args.v") }
  query       = { q = expr("args.v") }
}`)
	header := newFixture(t).action(api(rec.URL) + `
http {
  api     = http_api.x
  path    = "/h"
  headers = { "X-V" = expr("args.v") }
}`)
	dynamic := newFixture(t).action(fmt.Sprintf(`
http {
  url           = expr("args.v")
  allowed_hosts = [%q]
}`, host))

	tests := []struct {
		name   string
		run    func(v string) error
		value  string
		path   string // the escaped path the upstream saw; "" when nothing may be sent
		query  string
		errors string // part of the error, when the call must fail
	}{
		{name: "path traversal", value: "../admin", path: "/items/..%2Fadmin", query: "q=..%2Fadmin"},
		{name: "encoded traversal", value: "%2e%2e/", path: "/items/%252e%252e%2F", query: "q=%252e%252e%2F"},
		{name: "dot dot", value: "..", path: "/items/%2E%2E", query: "q=.."},
		{name: "query and fragment in a path value", value: "x?admin=1#f", path: "/items/x%3Fadmin=1%23f", query: "q=x%3Fadmin%3D1%23f"},
		{name: "ampersand", value: "a&admin=1", path: "/items/a&admin=1", query: "q=a%26admin%3D1"},
		{name: "userinfo", value: "@evil.com", path: "/items/@evil.com", query: "q=%40evil.com"},
		{name: "scheme-relative host", value: "//evil.com", path: "/items/%2F%2Fevil.com", query: "q=%2F%2Fevil.com"},
		{name: "absolute URL", value: "http://evil.com/x", path: "/items/http:%2F%2Fevil.com%2Fx", query: "q=http%3A%2F%2Fevil.com%2Fx"},
		{name: "empty", value: "", errors: `path parameter "v" is empty`},
		{name: "header CRLF", value: "x\r\nX-Admin: 1", errors: "line break"},
		{name: "header NUL", value: "x\x00y", errors: "NUL"},
		{name: "dynamic: host not allowed", value: "http://evil.example/x", errors: "url yielded a URL on evil.example, which is not in allowed_hosts; the request was not sent"},
		{name: "dynamic: credentials", value: "http://user:pass@" + host + "/x", errors: "credentials (user:password@)"},
		{name: "dynamic: file", value: "file:///etc/passwd", errors: "not an absolute http or https URL"},
		{name: "dynamic: gopher", value: "gopher://" + host + "/x", errors: "url yielded a gopher: URL"},
		{name: "dynamic: IP literal not listed", value: "http://127.0.0.2:" + strings.Split(host, ":")[1] + "/x", errors: "which is not in allowed_hosts"},
		{name: "dynamic: other port", value: "http://127.0.0.1:1/x", errors: "which is not in allowed_hosts"},
		{name: "dynamic: allowed", value: rec.URL + "/ok/%2E?a=b#frag", path: "/ok/%2E", query: "a=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := templated
			switch {
			case strings.HasPrefix(tt.name, "header"):
				act = header
			case strings.HasPrefix(tt.name, "dynamic"):
				act = dynamic
			}
			before := rec.count()
			_, err := act.Run(context.Background(), map[string]any{"v": tt.value})
			if tt.errors != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errors) {
					t.Errorf("err = %v, want one saying %q", err, tt.errors)
				}
				if rec.count() != before {
					t.Errorf("a request was sent")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := rec.last(t)
			if got.Host != host || got.URL.EscapedPath() != tt.path || got.URL.RawQuery != tt.query {
				t.Errorf("upstream saw host %s path %s query %s; want %s %s %s", got.Host, got.URL.EscapedPath(), got.URL.RawQuery, host, tt.path, tt.query)
			}
		})
	}
}

func TestDynamicURLErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"http {\n  url = expr(\"args.v\")\n}", `2:9-2:23: Missing allowed_hosts: A url computed per call could reach any host`},
		{"http {\n  url = expr(\"args.v\")\n  allowed_hosts = [\"https://x.com\"]\n}", `3:19-3:36: Invalid allowed_hosts: "https://x.com" is not a host`},
		{"http {\n  url = expr(\"args.v\")\n  allowed_hosts = []\n}", `Invalid allowed_hosts: allowed_hosts is empty`},
		{"http {\n  url = expr(\"args.v\")\n  allowed_hosts = [\"a.*.com\"]\n}", `a wildcard may only open it`},
		{"http {\n  url = expr(\"args.v\")\n  allowed_hosts = [\"x.com\"]\n  path_params = { a = 1 }\n}", `4:3-4:14: Unexpected path_params`},
	}
	for _, tt := range tests {
		_, diags := newFixture(t).decode(tt.src)
		if got := diagsText(diags); !strings.Contains(got, tt.want) {
			t.Errorf("%s\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestHostList(t *testing.T) {
	var l hostList
	for _, s := range []string{"api.example.com", "*.example.org", "127.0.0.1:8080", "[::1]:9000", "secure.example.net:443"} {
		e, err := parseHost(s)
		if err != nil {
			t.Fatal(err)
		}
		l = append(l, e)
	}
	for u, want := range map[string]bool{
		"https://api.example.com/x":      true,
		"http://API.Example.com./x":      true,
		"https://api.example.com:443/x":  true,
		"https://api.example.com:8443/x": false,
		"https://evil.api.example.com/":  false,
		"https://a.example.org/":         true,
		"https://a.b.example.org/":       true,
		"https://example.org/":           false,
		"https://badexample.org/":        false,
		"http://127.0.0.1:8080/":         true,
		"http://127.0.0.1/":              false,
		"http://[::1]:9000/":             true,
		"https://secure.example.net/":    true,
		"ftp://api.example.com/":         false,
		"https://u:p@api.example.com/":   false,
	} {
		pu, err := parseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.allows(pu); got != want {
			t.Errorf("%s: allowed %v, want %v", u, got, want)
		}
	}
}
