package httpaction

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
)

func TestLoadErrors(t *testing.T) {
	const base = "http_api \"x\" {\n  base_url = \"http://127.0.0.1:1/v1\"\n}\n"
	tests := []struct {
		name    string
		src     string
		summary string
		detail  string // a part of the detail
		subject string // line:col-line:col
	}{{
		name: "unknown attribute",
		src: base + `http {
  api    = http_api.x
  path   = "/"
  colour = "blue"
}`,
		summary: "Unsupported argument", detail: `"colour" is not expected here`, subject: "7:3-7:9",
	}, {
		name: "unknown api attribute",
		src: `http_api "x" {
  base_url = "http://h"
  retries  = 3
}`,
		summary: "Unsupported argument", detail: `"retries"`, subject: "3:3-3:10",
	}, {
		name: "missing placeholder param",
		src: base + `http {
  api         = http_api.x
  path        = "/users/{id}/posts/{post}"
  path_params = { id = expr("args.id") }
}`,
		summary: "Missing path parameter", detail: `path_params has no "post" entry`, subject: "6:36-6:42",
	}, {
		name: "placeholder without path_params",
		src: base + `http {
  api  = http_api.x
  path = "/users/{id}"
}`,
		summary: "Missing path parameter", detail: `{id}`, subject: "6:18-6:22",
	}, {
		name: "unused path param",
		src: base + `http {
  api         = http_api.x
  path        = "/users/{id}"
  path_params = {
    id    = expr("args.id")
    extra = "x"
  }
}`,
		summary: "Unused path parameter", detail: `path_params has "extra", but the path has no {extra} placeholder`, subject: "9:5-9:10",
	}, {
		name: "bad placeholder",
		src: base + `http {
  api  = http_api.x
  path = "/users/{id"
}`,
		summary: "Invalid path", detail: `"{" is not closed`, subject: "6:18-6:19",
	}, {
		name: "placeholder in query",
		src: base + `http {
  api         = http_api.x
  path        = "/search?q={q}"
  path_params = { q = expr("args.q") }
}`,
		summary: "Placeholder in the query string", detail: "query = { q = expr", subject: "6:28-6:31",
	}, {
		name: "placeholder in a url's query, no path_params",
		src: `http {
  url = "http://127.0.0.1:1/login?x={pw}"
}`,
		summary: "Placeholder in the query string", detail: "query = { pw = expr", subject: "2:37-2:41",
	}, {
		name: "placeholder in a url's host",
		src: `http {
  url = "http://{pw}.example.com/login"
}`,
		summary: "Placeholder outside the path", detail: "host", subject: "2:17-2:21",
	}, {
		name: "placeholder in host",
		src: `http {
  url         = "https://{tenant}.example.com/x"
  path_params = { tenant = expr("args.t") }
}`,
		summary: "Placeholder outside the path", detail: "host and port of a request are fixed", subject: "2:26-2:34",
	}, {
		name: "body and form",
		src: base + `http {
  api    = http_api.x
  method = "POST"
  path   = "/"
  body   = { a = 1 }
  form   = { b = 2 }
}`,
		summary: "Conflicting request bodies", detail: `"body" and "form" cannot both be set`, subject: "9:3-9:7",
	}, {
		name:    "bad base_url",
		src:     "http_api \"x\" {\n  base_url = \"api.example.com/v1\"\n}",
		summary: "Invalid base_url", detail: "must be an absolute URL starting with http:// or https://", subject: "2:14-2:34",
	}, {
		name:    "base_url with credentials",
		src:     "http_api \"x\" {\n  base_url = \"https://u:p@api.example.com\"\n}",
		summary: "Invalid base_url", detail: "give them in an auth block", subject: "2:14-2:43",
	}, {
		name:    "base_url scheme",
		src:     "http_api \"x\" {\n  base_url = \"ftp://example.com\"\n}",
		summary: "Invalid base_url", detail: "http:// or https://", subject: "2:14-2:33",
	}, {
		name: "bad method",
		src: base + `http {
  api    = http_api.x
  method = "FETCH"
  path   = "/"
}`,
		summary: "Invalid HTTP method", detail: `"FETCH" is not a method an http block can send; use one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`, subject: "6:12-6:19",
	}, {
		name: "bad duration",
		src: base + `http {
  api     = http_api.x
  path    = "/"
  timeout = "10 seconds"
}`,
		summary: "Invalid duration", detail: `"10 seconds" is not a positive duration`, subject: "7:13-7:25",
	}, {
		name:    "bad api duration",
		src:     "http_api \"x\" {\n  base_url = \"http://h\"\n  timeout = \"-1s\"\n}",
		summary: "Invalid duration", detail: `"-1s"`, subject: "3:13-3:18",
	}, {
		name: "url with api",
		src: base + `http {
  api = http_api.x
  url = "http://other/x"
}`,
		summary: "Unexpected url", detail: "relative to the api's base_url", subject: "6:3-6:6",
	}, {
		name:    "path without api",
		src:     "http {\n  path = \"/x\"\n}",
		summary: "Missing api", detail: "add api = http_api.<name>", subject: "2:3-2:7",
	}, {
		name:    "neither",
		src:     "http {\n  method = \"GET\"\n}",
		summary: "Missing url", detail: "An http block needs", subject: "1:1-1:5",
	}, {
		name:    "relative url",
		src:     "http {\n  url = \"/x\"\n}",
		summary: "Invalid url", detail: "is not an absolute URL", subject: "2:9-2:13",
	}, {
		name:    "api missing path",
		src:     base + "http {\n  api = http_api.x\n}",
		summary: "Missing path", detail: "needs path", subject: "4:1-4:5",
	}, {
		name:    "not an api",
		src:     base + "http {\n  api  = \"x\"\n  path = \"/\"\n}",
		summary: "Invalid reference", detail: "http_api.example", subject: "5:10-5:13",
	}, {
		name: "program typo",
		src: base + `http {
  api   = http_api.x
  path  = "/"
  query = { q = expr("args.q +") }
}`,
		summary: "Invalid expr program", detail: `"args.q +" does not compile`, subject: "7:30-7:31",
	}, {
		name: "program at load time",
		src: `http_api "x" {
  base_url = expr("args.url")
}`,
		summary: "Program not allowed here", detail: "fixed when the configuration loads", subject: "2:14-2:30",
	}, {
		name: "header with a line break",
		src: base + `http {
  api     = http_api.x
  path    = "/"
  headers = { "X-A" = "a\nb" }
}`,
		summary: "Invalid header value", detail: "line break", subject: "7:23-7:29",
	}, {
		name: "bad header name",
		src: base + `http {
  api     = http_api.x
  path    = "/"
  headers = { "X A" = expr("args.a") }
}`,
		summary: "Invalid header name", detail: `"X A" is not a valid header name`, subject: "7:15-7:20",
	}, {
		name: "Host header",
		src: base + `http {
  api     = http_api.x
  path    = "/"
  headers = { host = expr("args.h") }
}`,
		summary: "Header not allowed", detail: "Host", subject: "7:15-7:19",
	}, {
		name: "content_type without body",
		src: base + `http {
  api          = http_api.x
  path         = "/"
  content_type = "text/plain"
}`,
		summary: "Unexpected content_type", detail: "sends none", subject: "7:3-7:15",
	}, {
		name: "HEAD with body",
		src: base + `http {
  api    = http_api.x
  method = "HEAD"
  path   = "/"
  body   = expr("args")
}`,
		summary: "Unexpected body", detail: "A HEAD request carries no body", subject: "8:3-8:7",
	}, {
		name: "raw_body not a string",
		src: base + `http {
  api      = http_api.x
  method   = "POST"
  path     = "/"
  raw_body = expr("len(args)")
}`,
		summary: "Invalid raw_body", detail: "must be a string", subject: "8:14-8:31",
	}, {
		name: "two auth schemes",
		src: `http_api "x" {
  base_url = "http://h"
  auth {
    bearer = "t"
    basic {
      username = "u"
      password = "p"
    }
  }
}`,
		summary: "Conflicting auth schemes", detail: "exactly one of bearer, basic, api_key, oauth2, token_exchange and caller_token", subject: "5:5-5:10",
	}, {
		name: "api_key placement",
		src: `http_api "x" {
  base_url = "http://h"
  auth {
    api_key {
      value = "k"
    }
  }
}`,
		summary: "Missing api_key placement", detail: `header = "X-Api-Key"`, subject: "4:5-4:12",
	}, {
		name: "two retry blocks",
		src: `http_api "x" {
  base_url = "http://h"
  retry {}
  retry {}
}`,
		summary: "Duplicate retry block", detail: "takes one retry block", subject: "4:3-4:8",
	}, {
		name: "retry waits",
		src: `http_api "x" {
  base_url = "http://h"
  retry {
    min_wait = "1s"
    max_wait = "10ms"
  }
}`,
		summary: "Invalid max_wait", detail: "must not be shorter than min_wait", subject: "5:16-5:22",
	}, {
		name: "retry statuses",
		src: `http_api "x" {
  base_url = "http://h"
  retry {
    on_status = [503, 42]
  }
}`,
		summary: "Invalid on_status", detail: "42 is not an HTTP status", subject: "4:17-4:26",
	}, {
		name:    "missing ca_file",
		src:     "http_api \"x\" {\n  base_url = \"https://h\"\n  tls { ca_file = \"nope.pem\" }\n}",
		summary: "Cannot read ca_file", detail: "nope.pem", subject: "3:19-3:29",
	}, {
		name:    "max_response_bytes",
		src:     base + "http {\n  api = http_api.x\n  path = \"/\"\n  max_response_bytes = 0\n}",
		summary: "Invalid max_response_bytes", detail: "at least 1, not 0", subject: "7:24-7:25",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			_, diags := f.decode(tt.src)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags[0]
			if len(diags) != 1 || d.Summary != tt.summary || !strings.Contains(d.Detail, tt.detail) ||
				d.Subject == nil || rangeText(*d.Subject) != tt.subject {
				t.Errorf("got\n%swant %s: %s: …%s…", diagsText(diags), tt.subject, tt.summary, tt.detail)
			}
		})
	}
}

// TestBrokenAPI checks that an action referring to an http_api with errors
// of its own reports its other errors and returns no action.
func TestBrokenAPI(t *testing.T) {
	f := newFixture(t)
	f.apis["x"] = cty.UnknownVal(engine.UpstreamType())
	a, diags := f.decode(`http {
  api    = http_api.x
  method = "FETCH"
  path   = "/"
}`)
	if a != nil || len(diags) != 1 || diags[0].Summary != "Invalid HTTP method" {
		t.Errorf("action %v, diagnostics:\n%s", a, diagsText(diags))
	}
	a, diags = f.decode("http {\n  api = http_api.x\n  path = \"/\"\n}")
	if a != nil || len(diags) != 0 {
		t.Errorf("action %v, diagnostics:\n%s", a, diagsText(diags))
	}
}

// TestAllowedHostsErrors checks, word for word, the diagnostics of url =
// expr(…) and allowed_hosts.
func TestAllowedHostsErrors(t *testing.T) {
	const base = "http_api \"x\" {\n  base_url = \"http://127.0.0.1:1/v1\"\n"
	const dyn = "http {\n  url = expr(\"args.v\")\n"
	tests := []struct{ name, src, want string }{{
		name: "program url without allowed_hosts",
		src:  dyn + "}",
		want: `2:9-2:23: Missing allowed_hosts: A url computed per call could reach any host, the server's own network included: add allowed_hosts = ["api.example.com"] with the hosts it may reach.`,
	}, {
		name: "program url yielding a number",
		src:  "http {\n  url = expr(\"len(args)\")\n  allowed_hosts = [\"x.com\"]\n}",
		want: `2:9-2:26: Invalid url: url must yield a string, the whole URL, but this program yields int.`,
	}, {
		name: "program url with path_params",
		src:  dyn + "  allowed_hosts = [\"x.com\"]\n  path_params = { a = 1 }\n}",
		want: `4:3-4:14: Unexpected path_params: A url computed by a program has no placeholders: build the whole URL in the program, escaping values with urlencode().`,
	}, {
		name: "a URL, not a host",
		src:  dyn + "  allowed_hosts = [\"x.com\", \"https://y.com\"]\n}",
		want: `3:29-3:44: Invalid allowed_hosts: "https://y.com" is not a host: write a name such as api.example.com, *.example.com or 127.0.0.1:8080, without a scheme or path.`,
	}, {
		name: "a path",
		src:  dyn + "  allowed_hosts = [\"x.com/v1\"]\n}",
		want: `3:20-3:30: Invalid allowed_hosts: "x.com/v1" is not a host: write a name such as api.example.com, *.example.com or 127.0.0.1:8080, without a scheme or path.`,
	}, {
		name: "empty",
		src:  dyn + "  allowed_hosts = []\n}",
		want: `3:19-3:21: Invalid allowed_hosts: allowed_hosts is empty: name at least one host, such as ["api.example.com"].`,
	}, {
		name: "not a list",
		src:  dyn + "  allowed_hosts = \"x.com\"\n}",
		want: `3:19-3:26: Invalid allowed_hosts: allowed_hosts must be a list of hosts, such as ["api.example.com", "*.example.org"].`,
	}, {
		name: "not a string",
		src:  dyn + "  allowed_hosts = [\"x.com\", 8080]\n}",
		want: `3:29-3:33: Invalid allowed_hosts: allowed_hosts must be a list of hosts, such as ["api.example.com", "*.example.org"].`,
	}, {
		name: "wildcard inside",
		src:  dyn + "  allowed_hosts = [\"a.*.com\"]\n}",
		want: `3:20-3:29: Invalid allowed_hosts: "a.*.com" is not a host: a wildcard may only open it, as in *.example.com.`,
	}, {
		name: "wildcard alone",
		src:  dyn + "  allowed_hosts = [\"*\"]\n}",
		want: `3:20-3:23: Invalid allowed_hosts: "*" is not a host: a wildcard may only open it, as in *.example.com.`,
	}, {
		name: "wildcard IP",
		src:  dyn + "  allowed_hosts = [\"*.10.0.0.1\"]\n}",
		want: `3:20-3:32: Invalid allowed_hosts: "*.10.0.0.1" is not a host: an IP address cannot have subdomains; list it without *..`,
	}, {
		name: "port zero",
		src:  dyn + "  allowed_hosts = [\"x.com:0\"]\n}",
		want: `3:20-3:29: Invalid allowed_hosts: "x.com:0" has an invalid port: write one from 1 to 65535, or none for the scheme's default.`,
	}, {
		name: "port not a number",
		src:  dyn + "  allowed_hosts = [\"x.com:https\"]\n}",
		want: `3:20-3:33: Invalid allowed_hosts: "x.com:https" has an invalid port: write one from 1 to 65535, or none for the scheme's default.`,
	}, {
		name: "empty port",
		src:  dyn + "  allowed_hosts = [\"x.com:\"]\n}",
		want: `3:20-3:28: Invalid allowed_hosts: "x.com:" has an invalid port: write one from 1 to 65535, or none for the scheme's default.`,
	}, {
		name: "unclosed bracket",
		src:  dyn + "  allowed_hosts = [\"[::1\"]\n}",
		want: `3:20-3:26: Invalid allowed_hosts: "[::1" is not a host: an IPv6 address is written in brackets, such as [::1]:8080.`,
	}, {
		name: "not a name",
		src:  dyn + "  allowed_hosts = [\"bü_cher.example\"]\n}",
		want: `3:20-3:37: Invalid allowed_hosts: "bü_cher.example" is not a valid host name.`,
	}, {
		name: "on an action with api",
		src:  base + "}\nhttp {\n  api  = http_api.x\n  path = \"/\"\n  allowed_hosts = [\"x.com\"]\n}",
		want: `7:3-7:16: Unexpected allowed_hosts: The hosts an api's requests may be redirected to are the api's: move allowed_hosts to its http_api block.`,
	}, {
		name: "on an http_api",
		src:  base + "  allowed_hosts = [\"cdn.example.com\", \"ftp://x\"]\n}",
		want: `3:39-3:48: Invalid allowed_hosts: "ftp://x" is not a host: write a name such as api.example.com, *.example.com or 127.0.0.1:8080, without a scheme or path.`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, diags := newFixture(t).decode(tt.src)
			if got := strings.TrimSuffix(diagsText(diags), "\n"); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if a != nil {
				t.Error("an action was decoded")
			}
		})
	}

	// What is valid: a program url with its hosts, a fixed url with
	// hosts for its redirects, an http_api with hosts.
	for _, src := range []string{
		dyn + "  allowed_hosts = [\"api.example.com\", \"*.example.org\", \"127.0.0.1:8080\", \"[::1]:9000\", \"bücher.example\"]\n}",
		"http {\n  url = \"https://api.example.com/x/{id}\"\n  path_params = { id = expr(\"args.id\") }\n  allowed_hosts = [\"cdn.example.com\"]\n}",
		base + "  allowed_hosts = [\"cdn.example.com\"]\n}\nhttp {\n  api  = http_api.x\n  path = \"/\"\n}",
	} {
		if _, diags := newFixture(t).decode(src); diags.HasErrors() {
			t.Errorf("%s\n%s", src, diagsText(diags))
		}
	}
}
