package httpaction_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// TestCallerToken checks auth { caller_token { audience } }: the caller's
// JWT is sent to the upstream only when its audience names the API, is
// refused otherwise with a message that says why, and never shows in the
// tool's result, even when the upstream echoes it.
func TestCallerToken(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("you sent: " + r.Header.Get("Authorization")))
	}))
	t.Cleanup(upstream.Close)
	cfg, diags := loadSource(t, `
http_api "orders" {
  base_url = "`+upstream.URL+`"
  auth {
    caller_token {
      audience = "https://orders.example.com"
    }
  }
}
tool "orders" {
  description = "Lists the caller's orders, as the caller."
  http {
    api  = http_api.orders
    path = "/orders"
  }
}
`, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tool, _ := cfg.Tool("orders")
	const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJl"
	for _, tt := range []struct {
		name   string
		caller *engine.Caller
		want   string
		isErr  bool
	}{
		{"meant for the API", &engine.Caller{ID: "jwt:ann", Authenticated: true, Token: token, Audience: []string{"https://mcp.example.com/mcp", "https://orders.example.com"}}, "you sent: Bearer " + text.Mask, false},
		{"meant for another", &engine.Caller{ID: "jwt:ann", Authenticated: true, Token: token, Audience: []string{"https://mcp.example.com/mcp"}},
			`http_api "orders" sends the caller's own token only when it is meant for https://orders.example.com, and this caller's token is not (its audience is https://mcp.example.com/mcp)`, true},
		{"a static token", &engine.Caller{ID: "token:ci", Authenticated: true}, `http_api "orders" sends the caller's own token, and this call has none`, true},
		{"local", nil, `http_api "orders" sends the caller's own token, and this call has none`, true},
	} {
		ctx := context.Background()
		if tt.caller != nil {
			ctx = engine.WithCaller(ctx, *tt.caller)
		}
		res := tool.Call(ctx, nil)
		if res.IsError != tt.isErr || !strings.Contains(res.Text(), tt.want) || strings.Contains(res.Text(), "c2lnbmF0dXJl") {
			t.Errorf("%s: %q (error %v), want %q", tt.name, res.Text(), res.IsError, tt.want)
		}
	}

	_, diags = loadSource(t, `
http_api "x" {
  base_url = "http://127.0.0.1:1"
  auth {
    caller_token { audience = "" }
  }
}
`, nil)
	if !strings.Contains(diags.Error(), "Empty audience") {
		t.Errorf("an empty audience: %s", diags.Error())
	}
}
