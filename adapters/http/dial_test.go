package httpaction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestAllowedHostsCheckAddresses checks allowed_hosts against the address
// a name resolves to, not the name alone: "localhost" resolves to a
// loopback address, as a listed public name could after a DNS rebinding,
// so a request to it is refused unless the address is listed too. The
// upstream's own host (base_url) is the operator's and is not checked.
func TestAllowedHostsCheckAddresses(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "http://localhost:"+r.URL.Query().Get("port")+"/x", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("reached " + r.Host))
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	port := u.Port()

	tests := []struct {
		name, src, want string
	}{
		{"computed url to a name that resolves to loopback", `
tool "get" {
  description = "Gets."
  http {
    url           = expr("'http://localhost:` + port + `/x'")
    allowed_hosts = ["localhost:` + port + `"]
  }
}`, "resolves to"},
		{"the address listed too", `
tool "get" {
  description = "Gets."
  http {
    url           = expr("'http://localhost:` + port + `/x'")
    allowed_hosts = ["localhost:` + port + `", "127.0.0.1", "[::1]"]
  }
}`, "reached localhost:" + port},
		{"a redirect to a name that resolves to loopback", `
http_api "api" {
  base_url      = "` + upstream.URL + `"
  allowed_hosts = ["localhost:` + port + `"]
}
tool "get" {
  description = "Gets."
  http {
    api   = http_api.api
    path  = "/moved"
    query = { port = "` + port + `" }
  }
}`, "resolves to"},
		{"base_url on a loopback address", `
http_api "api" {
  base_url = "http://localhost:` + port + `"
  allowed_hosts = ["cdn.example.com"]
}
tool "get" {
  description = "Gets."
  http {
    api  = http_api.api
    path = "/x"
  }
}`, "reached localhost:" + port},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadSource(t, tt.src, nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			tool, _ := cfg.Tool("get")
			res := tool.Call(context.Background(), nil)
			if !strings.Contains(res.Text(), tt.want) {
				t.Fatalf("result: %v %q, want one containing %q", res.IsError, res.Text(), tt.want)
			}
			if tt.want == "resolves to" {
				if !res.IsError || !strings.Contains(res.Text(), "localhost resolves to") || !strings.Contains(res.Text(), "a loopback address, which allowed_hosts does not list: the request was not sent") {
					t.Errorf("refusal: %q", res.Text())
				}
			}
		})
	}
}
