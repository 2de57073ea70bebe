package httpaction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestCallerInRequest checks that a request can carry who calls: the
// subject and a claim the auth block names, from the caller the server
// authenticated; for a local call the claim is null and left out.
func TestCallerInRequest(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.URL.RawQuery + " " + r.Header.Get("X-User")))
	}))
	t.Cleanup(upstream.Close)
	cfg, diags := loadSource(t, `
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
tool "orders" {
  description = "Lists the caller's orders."
  http {
    url     = "`+upstream.URL+`/orders"
    query   = { tenant = expr("caller.claims.tenant") }
    headers = { "X-User" = expr("caller.sub") }
  }
}
`, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tool, _ := cfg.Tool("orders")
	ann := engine.Caller{ID: "jwt:ann", Authenticated: true, Subject: "ann", Claims: map[string]any{"tenant": "acme"}}
	if res := tool.Call(engine.WithCaller(context.Background(), ann), nil); res.Text() != "tenant=acme ann" {
		t.Errorf("authenticated: %q", res.Text())
	}
	if res := tool.Call(context.Background(), nil); res.Text() != " " {
		t.Errorf("local: %q", res.Text())
	}
}
