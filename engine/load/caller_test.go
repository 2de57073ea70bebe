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

// TestCallerInResourcePrograms checks that the programs of resources,
// resource templates, prompts and completions read the caller as a tool's
// do: typed by the auth block's claims, never the token, and the local
// caller when none is given.
func TestCallerInResourcePrograms(t *testing.T) {
	cfg, diags := loadString(t, `
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
resource "me" {
  uri  = "x://me"
  text = expr("caller.sub + ' of ' + (caller.claims.tenant ?? 'no tenant')")
}
resource_template "doc" {
  uri_template = "x://docs/{name}"
  arg "name" { type = string }
  text = expr("args.name + ' for ' + caller.id")
}
prompt "greet" {
  arg "topic" {
    complete {
      values = expr("[args.value + ' for ' + caller.sub]")
    }
  }
  message "user" {
    text = expr("'Tell ' + caller.sub + ' of ' + (caller.claims.tenant ?? 'no tenant') + ' about ' + args.topic + (caller.authenticated ? ' (' + join(caller.scopes, ',') + ')' : '')")
  }
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	ann := engine.Caller{ID: "jwt:ann", Authenticated: true, Scopes: []string{"read"}, Subject: "ann", Claims: map[string]any{"tenant": "acme"}, Token: "the-token-of-ann"}
	ctx := engine.WithCaller(context.Background(), ann)

	r, tmpl := cfg.ResourceAt("x://me")
	if r == nil {
		t.Fatal("no resource x://me")
	}
	if got, err := r.Read(ctx); err != nil || got[0].Text != "ann of acme" {
		t.Errorf("resource: %v %v", got, err)
	}
	if _, tmpl = cfg.ResourceAt("x://docs/a"); tmpl == nil {
		t.Fatal("no template for x://docs/a")
	}
	if got, err := tmpl.Read(ctx, "x://docs/a"); err != nil || got[0].Text != "a for jwt:ann" {
		t.Errorf("template: %v %v", got, err)
	}

	p, _ := cfg.Prompt("greet")
	msgs, err := p.Get(ctx, map[string]string{"topic": "tea"})
	if err != nil || len(msgs) != 1 || msgs[0].Content.Text != "Tell ann of acme about tea (read)" {
		t.Errorf("prompt, authenticated: %+v %v", msgs, err)
	}
	msgs, err = p.Get(context.Background(), map[string]string{"topic": "tea"})
	if err != nil || len(msgs) != 1 || msgs[0].Content.Text != "Tell  of no tenant about tea" {
		t.Errorf("prompt, local: %+v %v", msgs, err)
	}
	values, _, err := p.Complete(ctx, "topic", "te", 10)
	if err != nil || len(values) != 1 || values[0] != "te for ann" {
		t.Errorf("completion: %v %v", values, err)
	}

	// What programs do not see of the caller is not there for a prompt either.
	_, diags = loadString(t, `
prompt "p" {
  message "user" { text = expr("caller.token") }
}
`, nil, nil)
	if !diags.HasErrors() || !strings.Contains(describe(diags), "token") {
		t.Errorf("caller.token in a prompt: %s", describe(diags))
	}
}
