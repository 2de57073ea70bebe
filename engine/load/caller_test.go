package load_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// TestCallerInPrograms checks the caller variable: the subject, scopes and
// the claims the auth block lets programs read, as the server sets them
// for an authenticated call; empty and typed so for a local one; and a
// claim the auth block does not name is a load error.
func TestCallerInPrograms(t *testing.T) {
	const authBlock = `
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
`
	cfg, diags := loadString(t, authBlock+`
tool "whoami" {
  description = "Who calls."
  text        = expr("caller.sub + ' of ' + (caller.claims.tenant ?? 'no tenant') + (caller.authenticated ? ' with ' + join(caller.scopes, ',') : ' (local)')")
}
tool "plain" {
  description = "Reads no caller."
  text        = "ok"
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("whoami")
	ann := engine.Caller{ID: "jwt:ann", Authenticated: true, Scopes: []string{"read", "write"}, Subject: "ann", Claims: map[string]any{"tenant": "acme"}}
	if res := tool.Call(engine.WithCaller(context.Background(), ann), nil); res.Text() != "ann of acme with read,write" {
		t.Errorf("authenticated: %q", res.Text())
	}
	if res := tool.Call(context.Background(), nil); res.Text() != " of no tenant (local)" {
		t.Errorf("local: %q", res.Text())
	}
	plain, _ := cfg.Tool("plain")
	if res := plain.Call(engine.WithCaller(context.Background(), ann), nil); res.Text() != "ok" {
		t.Errorf("plain: %q", res.Text())
	}

	_, diags = loadString(t, authBlock+`
tool "t" {
  description = "d"
  text        = expr("caller.claims.email")
}
`, nil, nil)
	if got := describe(diags); !diags.HasErrors() || !strings.Contains(got, "email") {
		t.Errorf("a claim the auth block does not name: %s", got)
	}
	_, diags = loadString(t, `
tool "t" {
  description = "d"
  text        = expr("caller.claims.tenant")
}
`, nil, nil)
	if !diags.HasErrors() {
		t.Error("without an auth block, caller.claims has no names; reading one must be a load error")
	}
}
