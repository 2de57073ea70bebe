package httpaction

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestInjection sends hostile argument values through every place an
// argument reaches a request, and has the upstream redirect where an
// attacker would. Each attempt comes back either as plain data, the
// upstream having seen it escaped on its own host and path, or as a clear
// error, with nothing sent where it must not go.
func TestInjection(t *testing.T) {
	// other is the host an attacker would like to reach; it must see
	// nothing unless a test allows it.
	other := newRecorder(t, nil)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	redirecting := func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); r.URL.Path == "/redirect" && to != "" {
			w.Header().Set("Location", to)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}
	rec := newRecorder(t, redirecting)
	host := strings.TrimPrefix(rec.URL, "http://")
	port := host[strings.LastIndexByte(host, ':')+1:]
	secure := newTLSRecorder(t, redirecting)

	const auth = `  auth {
    api_key {
      header = "X-Key"
      value  = "key-123456"
    }
  }`
	actions := map[string]engine.Action{
		"path": newFixture(t).action(api(rec.URL) + `
http {
  api         = http_api.x
  path        = "/items/{v}"
  path_params = { v = expr("args.v") }
  query       = { q = expr("args.v") }
}`),
		"header": newFixture(t).action(api(rec.URL) + `
http {
  api     = http_api.x
  path    = "/h"
  headers = { "X-V" = expr("args.v") }
}`),
		// A whole map of headers or query parameters: hostile names.
		"header names": newFixture(t).action(api(rec.URL) + `
http {
  api     = http_api.x
  path    = "/n"
  headers = expr("{(args.v): 'x'}")
}`),
		"query names": newFixture(t).action(api(rec.URL) + `
http {
  api   = http_api.x
  path  = "/n"
  query = expr("{(args.v): 1}")
}`),
		"url": newFixture(t).action(fmt.Sprintf(`
http {
  url           = expr("args.v")
  allowed_hosts = [%q]
}`, host)),
		// A program building a URL the careful way.
		"built url": newFixture(t).action(fmt.Sprintf(`
http {
  url           = expr("'%s/items/' + pathescape(args.v) + '?q=' + urlencode(args.v)")
  allowed_hosts = [%q]
}`, rec.URL, host)),
		"redirect": newFixture(t).action(api(rec.URL, auth) + `
http {
  api   = http_api.x
  path  = "/redirect"
  query = { to = expr("args.v") }
}`),
		"allowed redirect": newFixture(t).action(api(rec.URL, auth, fmt.Sprintf("  allowed_hosts = [%q]", otherHost)) + `
http {
  api   = http_api.x
  path  = "/redirect"
  query = { to = expr("args.v") }
}`),
		"https redirect": newFixture(t).action(api(secure.URL, "  tls { insecure_skip_verify = true }", fmt.Sprintf("  allowed_hosts = [%q, %q]", otherHost, strings.TrimPrefix(secure.URL, "https://"))) + `
http {
  api   = http_api.x
  path  = "/redirect"
  query = { to = expr("args.v") }
}`),
	}

	type seen struct {
		host, path, query string
		header            string // X-V, for the header action
	}
	tests := []struct {
		name  string
		via   string // the action
		value string
		// The call succeeds: what reached the upstream.
		want *seen
		// Or it fails with exactly this error, and the first upstream saw
		// sent requests (a redirect) and other saw none.
		err  string
		sent int
	}{
		// Path and query values are escaped: one segment, one value.
		{name: "traversal", via: "path", value: "../admin", want: &seen{path: "/items/..%2Fadmin", query: "q=..%2Fadmin"}},
		{name: "encoded traversal", via: "path", value: "%2e%2e/", want: &seen{path: "/items/%252e%252e%2F", query: "q=%252e%252e%2F"}},
		{name: "encoded slash", via: "path", value: "..%2fadmin", want: &seen{path: "/items/..%252fadmin", query: "q=..%252fadmin"}},
		{name: "dot dot", via: "path", value: "..", want: &seen{path: "/items/%2E%2E", query: "q=.."}},
		{name: "backslash", via: "path", value: `..\admin`, want: &seen{path: "/items/..%5Cadmin", query: "q=..%5Cadmin"}},
		{name: "query and fragment", via: "path", value: "x?admin=1#f", want: &seen{path: "/items/x%3Fadmin=1%23f", query: "q=x%3Fadmin%3D1%23f"}},
		{name: "ampersand", via: "path", value: "a&admin=1", want: &seen{path: "/items/a&admin=1", query: "q=a%26admin%3D1"}},
		{name: "CRLF in path and query", via: "path", value: "x\r\nX-Admin: 1", want: &seen{path: "/items/x%0D%0AX-Admin:%201", query: "q=x%0D%0AX-Admin%3A+1"}},
		{name: "NUL in path and query", via: "path", value: "a\x00b", want: &seen{path: "/items/a%00b", query: "q=a%00b"}},
		{name: "userinfo", via: "path", value: "@evil.com", want: &seen{path: "/items/@evil.com", query: "q=%40evil.com"}},
		{name: "scheme-relative host", via: "path", value: "//evil.com", want: &seen{path: "/items/%2F%2Fevil.com", query: "q=%2F%2Fevil.com"}},
		{name: "absolute URL", via: "path", value: "http://evil.com/x", want: &seen{path: "/items/http:%2F%2Fevil.com%2Fx", query: "q=http%3A%2F%2Fevil.com%2Fx"}},
		{name: "empty path value", via: "path", value: "", err: `path parameter "v" is empty, which would change the path; the request was not sent`},

		// Header values: plain text is sent as is; control characters are
		// refused before anything is sent.
		{name: "header text", via: "header", value: "a; admin=1, b", want: &seen{path: "/h", header: "a; admin=1, b"}},
		{name: "header CRLF", via: "header", value: "x\r\nX-Admin: 1", err: `header "X-V" holds a line break, a NUL byte or another control character, which a header value cannot hold; the request was not sent`},
		{name: "header LF", via: "header", value: "x\nX-Admin: 1", err: `header "X-V" holds a line break, a NUL byte or another control character, which a header value cannot hold; the request was not sent`},
		{name: "header NUL", via: "header", value: "x\x00y", err: `header "X-V" holds a line break, a NUL byte or another control character, which a header value cannot hold; the request was not sent`},
		{name: "header DEL", via: "header", value: "x\x7fy", err: `header "X-V" holds a line break, a NUL byte or another control character, which a header value cannot hold; the request was not sent`},

		// Names from a program: header names are refused, query names
		// escaped.
		{name: "header name CRLF", via: "header names", value: "X-A\r\nX-Admin", err: `"X-A\r\nX-Admin" is not a valid header name; the request was not sent`},
		{name: "header name colon", via: "header names", value: "X-A: 1\r\nX-B", err: `"X-A: 1\r\nX-B" is not a valid header name; the request was not sent`},
		{name: "Host header", via: "header names", value: "host", err: `the Host header cannot be set; the request was not sent`},
		{name: "query name", via: "query names", value: "a=1&admin", want: &seen{path: "/n", query: "a%3D1%26admin=1"}},

		// A whole URL from a program: checked against allowed_hosts.
		{name: "url: allowed", via: "url", value: rec.URL + "/ok/%2E?a=b c#frag", want: &seen{path: "/ok/%2E", query: "a=b%20c"}},
		{name: "url: scheme in capitals", via: "url", value: "HTTP://" + host + "/up", want: &seen{path: "/up"}},
		{name: "url: host not allowed", via: "url", value: "http://evil.example/x", err: `url yielded a URL on evil.example, which is not in allowed_hosts; the request was not sent (to allow it, add "evil.example" to allowed_hosts)`},
		{name: "url: credentials", via: "url", value: "http://user:pass@" + host + "/x", err: "url yielded a URL with credentials (user:password@), which are never sent; the request was not sent"},
		{name: "url: file", via: "url", value: "file:///etc/passwd", err: "url yielded something that is not an absolute http or https URL; the request was not sent"},
		{name: "url: gopher", via: "url", value: "gopher://" + host + "/_GET%20/", err: "url yielded a gopher: URL; only http and https are sent, and the request was not"},
		{name: "url: scheme-relative", via: "url", value: "//" + host + "/x", err: "url yielded something that is not an absolute http or https URL; the request was not sent"},
		{name: "url: backslash", via: "url", value: "http://" + host + `\@evil.example/`, err: "url yielded something that is not an absolute http or https URL; the request was not sent"},
		{name: "url: IP literal not listed", via: "url", value: "http://127.0.0.2:" + port + "/x", err: `url yielded a URL on 127.0.0.2:` + port + `, which is not in allowed_hosts; the request was not sent (to allow it, add "127.0.0.2:` + port + `" to allowed_hosts)`},
		{name: "url: IPv6 loopback", via: "url", value: "http://[::1]:" + port + "/x", err: `url yielded a URL on [::1]:` + port + `, which is not in allowed_hosts; the request was not sent (to allow it, add "[::1]:` + port + `" to allowed_hosts)`},
		{name: "url: a name for the listed IP", via: "url", value: "http://localhost:" + port + "/x", err: `url yielded a URL on localhost:` + port + `, which is not in allowed_hosts; the request was not sent (to allow it, add "localhost:` + port + `" to allowed_hosts)`},
		{name: "url: other port", via: "url", value: "http://127.0.0.1:1/x", err: `url yielded a URL on 127.0.0.1:1, which is not in allowed_hosts; the request was not sent (to allow it, add "127.0.0.1:1" to allowed_hosts)`},
		{name: "url: default port", via: "url", value: "http://127.0.0.1/x", err: `url yielded a URL on 127.0.0.1, which is not in allowed_hosts; the request was not sent (to allow it, add "127.0.0.1" to allowed_hosts)`},
		{name: "url built: traversal", via: "built url", value: "../admin?x=1", want: &seen{path: "/items/..%2Fadmin%3Fx=1", query: "q=..%2Fadmin%3Fx%3D1"}},
		{name: "url built: host switch", via: "built url", value: "@evil.com", want: &seen{path: "/items/@evil.com", query: "q=%40evil.com"}},

		// Redirects chosen by the upstream.
		{name: "redirect: same host", via: "redirect", value: "/there?a=1", want: &seen{path: "/there", query: "a=1"}},
		{name: "redirect: other host", via: "redirect", value: other.URL + "/stolen?k=1", sent: 1,
			err: "GET " + rec.URL + "/redirect failed: the upstream redirected it to " + other.URL + `/stolen, on another host; to follow the redirect, add "` + otherHost + `" to allowed_hosts`},
		{name: "redirect: scheme-relative", via: "redirect", value: "//" + otherHost + "/stolen", sent: 1,
			err: "GET " + rec.URL + "/redirect failed: the upstream redirected it to " + other.URL + `/stolen, on another host; to follow the redirect, add "` + otherHost + `" to allowed_hosts`},
		{name: "redirect: file", via: "redirect", value: "file:///etc/passwd", sent: 1,
			err: "GET " + rec.URL + "/redirect failed: the upstream redirected it to a file: URL, which is never followed; only http and https are"},
		{name: "redirect: credentials", via: "redirect", value: "http://u:p@" + host + "/x", sent: 1,
			err: "GET " + rec.URL + "/redirect failed: the upstream redirected it to a URL on " + host + " with credentials (user:password@), which is never followed"},
		{name: "redirect: allowed host", via: "allowed redirect", value: other.URL + "/moved?a=1", want: &seen{host: otherHost, path: "/moved", query: "a=1"}},
		{name: "redirect: https to http", via: "https redirect", value: other.URL + "/plain", sent: 1,
			err: "GET " + secure.URL + "/redirect failed: the upstream redirected it from https to plain http (" + other.URL + "/plain), which is never followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := rec
			if tt.via == "https redirect" {
				first = secure
			}
			before, otherBefore := first.count(), other.count()
			resp, err := actions[tt.via].Run(context.Background(), map[string]any{"v": tt.value})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("err  = %v\nwant %s", err, tt.err)
				}
				if n := first.count() - before; n != tt.sent {
					t.Errorf("the upstream received %d requests, want %d", n, tt.sent)
				}
				if other.count() != otherBefore {
					t.Errorf("the other host received a request")
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want the upstream's answer", err)
			}
			if resp.Failure != "" || resp.Vars["status"] != 200 {
				t.Fatalf("status %v, failure %q", resp.Vars["status"], resp.Failure)
			}
			want := *tt.want
			to := rec
			if want.host == "" {
				want.host = host
			} else {
				to = other
			}
			got := to.last(t)
			if got.Host != want.host || got.URL.EscapedPath() != want.path || got.URL.RawQuery != want.query {
				t.Errorf("the upstream saw host %s path %s query %s\nwant                  %s      %s      %s",
					got.Host, got.URL.EscapedPath(), got.URL.RawQuery, want.host, want.path, want.query)
			}
			if got.Header.Get("X-V") != want.header {
				t.Errorf("X-V = %q, want %q", got.Header.Get("X-V"), want.header)
			}
			if want.host == otherHost && got.Header.Get("X-Key") != "" {
				t.Error("the api's key followed the redirect to another host")
			}
			if h := got.Header.Get("X-Admin"); h != "" {
				t.Errorf("an injected header arrived: X-Admin: %s", h)
			}
		})
	}
}
