//go:build unix

package execaction

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestCallerInCommand checks that the command line, the environment and
// the input of a program can carry who calls, from the caller the server
// authenticated; for a local call the claim is null and left out.
func TestCallerInCommand(t *testing.T) {
	cfg, _ := mustLoad(t, `
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
tool "whoami" {
  description = "Says who calls."
  exec {
    command = ["sh", "-c", "printf '%s %s %s' \"$1\" \"$TENANT\" \"$(cat)\"", "sh", expr("caller.sub")]
    env     = { TENANT = expr("caller.claims.tenant ?? 'none'") }
    stdin   = expr("caller.authenticated ? 'signed in' : 'local'")
  }
}
tool "sub" {
  description = "Says who calls, on the command line only."
  exec {
    command = ["echo", expr("caller.sub")]
  }
}
`)
	tool, _ := cfg.Tool("whoami")
	ann := engine.Caller{ID: "jwt:ann", Authenticated: true, Subject: "ann", Claims: map[string]any{"tenant": "acme"}}
	if res := tool.Call(engine.WithCaller(context.Background(), ann), nil); res.Text() != "ann acme signed in" {
		t.Errorf("authenticated: %q", res.Text())
	}
	if res := tool.Call(context.Background(), nil); res.Text() != " none local" {
		t.Errorf("local: %q", res.Text())
	}
	sub, _ := cfg.Tool("sub")
	if res := sub.Call(engine.WithCaller(context.Background(), ann), nil); res.Text() != "ann\n" {
		t.Errorf("command line only: %q", res.Text())
	}
}

// TestUpstreamCallsObserved checks what metrics see of a program's runs: the
// program's name, ok for an exit of 0, error otherwise.
func TestUpstreamCallsObserved(t *testing.T) {
	cfg, _ := mustLoad(t, `
tool "yes" {
  description = "d"
  exec { command = ["true"] }
}
tool "no" {
  description = "d"
  exec { command = ["false"] }
}
`)
	obs := &enginetest.Observer{}
	ctx := engine.WithUpstreamObserver(context.Background(), obs)
	for _, name := range []string{"yes", "no"} {
		tool, _ := cfg.Tool(name)
		tool.Call(ctx, nil)
	}
	want := []enginetest.Exchange{{Kind: "exec", Upstream: "true", Class: "ok"}, {Kind: "exec", Upstream: "false", Class: "error"}}
	if got := obs.Seen(); !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
}
