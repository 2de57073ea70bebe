package load_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
)

// These tests check what every result goes through before it leaves the
// server, whatever the action: scopes, rate limits, the depth of arguments,
// control sequences, the size cap and redaction.

const safeguardsConfig = `
server {
  max_result_bytes = 2048
}

variable "api_key" {
  type      = string
  sensitive = true
  default   = "sk-live-0123456789"
}

tool "echo" {
  description = "Echoes its argument."
  arg "text" { type = string }
  fake { body = expr("args.text") }
  text = expr("body")
}

tool "big" {
  description = "Returns n bytes."
  arg "n" { type = integer }
  fake { body = expr("repeat('é', args.n)") }
  text = expr("body")
}

tool "small" {
  description = "A tool with its own cap."
  max_result_bytes = 16
  fake { body = "0123456789abcdefghijklmnopqrstuvwxyz" }
  text = expr("body")
}

tool "rows" {
  description = "Structured content beyond the cap."
  fake { body = expr("repeat('x', 4096)") }
  output "data" {
    type  = string
    value = expr("body")
  }
}

tool "login" {
  description = "Takes a password and leaks it back."
  arg "user" { type = string }
  arg "password" {
    type      = string
    sensitive = true
  }
  fake { body = expr("{'user': args.user, 'echo': 'user ' + args.user + ' password ' + args.password}") }
  output "echo" {
    type  = string
    value = expr("body.echo")
  }
  text = expr("body.echo")
}

tool "key" {
  description = "Leaks the API key."
  fake { body = var.api_key }
  text = expr("'key=' + body")
}

tool "admin" {
  description = "Needs scopes."
  scopes      = ["admin", "tickets:write"]
  fake { body = "done" }
  text = expr("body")
}
`

func TestSafeguards(t *testing.T) {
	cfg, diags := loadString(t, safeguardsConfig, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	deep := strings.Repeat("[", engine.DepthLimit+1) + strings.Repeat("]", engine.DepthLimit+1)
	reader := engine.Caller{ID: "alice", Authenticated: true, Scopes: []string{"tickets:read"}}
	admin := engine.Caller{ID: "root", Authenticated: true, Scopes: []string{"tickets:write", "admin"}}
	tests := []struct {
		name, tool, args string
		caller           *engine.Caller
		isError          bool
		text             string   // the whole text, when not empty
		want, not        []string // substrings that must, and must not, appear
	}{
		{name: "control sequences stripped", tool: "echo", args: `{"text": "\u001b[31mred\u001b[0m\r\n\u001b]0;title\u0007bell\u0007"}`, text: "red\nbell"},
		{name: "plain text kept", tool: "echo", args: `{"text": "été\ttab"}`, text: "été\ttab"},
		{name: "arguments too deep", tool: "echo", args: `{"text": ` + deep + `}`, isError: true, want: []string{"nest arrays and objects more than 64 deep"}},
		{name: "under the cap", tool: "big", args: `{"n": 1000}`, text: strings.Repeat("é", 1000)},
		{
			name: "text truncated at a character boundary", tool: "big", args: `{"n": 5000}`,
			want: []string{strings.Repeat("é", 1024) + "\n[truncated: the text takes 9.8 KiB, more than max_result_bytes (2 KiB)"},
			not:  []string{strings.Repeat("é", 1025)},
		},
		{name: "a tool's own cap", tool: "small", want: []string{"0123456789abcdef\n[truncated"}, not: []string{"g"}},
		{name: "structured content over the cap", tool: "rows", isError: true, want: []string{"structured content takes 4 KiB, more than this tool's max_result_bytes of 2 KiB"}},
		{
			name: "sensitive argument redacted", tool: "login", args: `{"user": "bob", "password": "hunter2-correct-horse"}`,
			want: []string{"user bob password (sensitive)"}, not: []string{"hunter2"},
		},
		{name: "sensitive variable redacted", tool: "key", text: "key=(sensitive)"},
		{name: "scopes: no token checked", tool: "admin", text: "done"},
		{name: "scopes: missing", tool: "admin", caller: &reader, isError: true, text: "access denied: the tool admin requires the scopes admin, tickets:write, and your token does not grant them all"},
		{name: "scopes: granted", tool: "admin", caller: &admin, text: "done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := cfg.Tool(tt.tool)
			if !ok {
				t.Fatalf("no tool %q", tt.tool)
			}
			ctx := context.Background()
			if tt.caller != nil {
				ctx = engine.WithCaller(ctx, *tt.caller)
			}
			res := tool.Call(ctx, json.RawMessage(tt.args))
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v, want %v; text: %s", res.IsError, tt.isError, res.Text())
			}
			if tt.text != "" && res.Text() != tt.text {
				t.Errorf("text = %q, want %q", res.Text(), tt.text)
			}
			all, _ := json.Marshal(res)
			for _, w := range tt.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("text does not contain %q:\n%.300s", w, res.Text())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(string(all), n) {
					t.Errorf("result contains %q:\n%.300s", n, all)
				}
			}
		})
	}
}

func TestSafeguardErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`tool "x" {
  description = "d"
  scopes = "admin"
}`, `3:12-3:19: Invalid scopes: scopes are the scopes a token must all grant to list and call the tool over authenticated HTTP, such as ["tickets:write"]: a list of strings, not a string.`},
		{`tool "x" {
  description = "d"
  scopes = ["a b"]
}`, `3:12-3:19: Invalid scope: The scope "a b" is empty or holds a space`},
		{`tool "x" {
  description = "d"
  max_result_bytes = 0
}`, `3:22-3:23: Invalid max_result_bytes`},
		{`server {
  max_result_bytes = -1
}`, `2:22-2:24: Invalid max_result_bytes`},
		{`audit {
  file = ""
}`, `2:10-2:12: Invalid audit file`},
		{`audit {
  colour = 1
}`, `Unsupported argument`},
		{"audit {}\naudit {}", `2:1-2:6: Duplicate audit block`},
	}
	for _, tt := range tests {
		_, diags := loadString(t, tt.src, nil, nil)
		if got := describe(diags); !strings.Contains(got, tt.want) {
			t.Errorf("%s\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestRateLimits(t *testing.T) {
	cfg, diags := loadString(t, `
rate_limit {
  requests = 3
  per      = "1h"
}

tool "default" {
  description = "The server's limit."
  text = "ok"
}

tool "own" {
  description = "A limit of its own."
  rate_limit {
    requests = 1
    per      = "1h"
  }
  text = "ok"
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	defer cfg.Close()
	call := func(tool, caller string) *engine.Result {
		t.Helper()
		tl, _ := cfg.Tool(tool)
		return tl.Call(engine.WithCaller(context.Background(), engine.Caller{ID: caller}), nil)
	}
	for i := range 3 {
		if res := call("default", "alice"); res.IsError {
			t.Fatalf("call %d refused: %s", i+1, res.Text())
		}
	}
	res := call("default", "alice")
	if !res.IsError || !strings.HasPrefix(res.Text(), "rate limit exceeded for this tool: 3 calls per 1h; retry in ") {
		t.Errorf("4th call: %v %q", res.IsError, res.Text())
	}
	if res := call("default", "bob"); res.IsError {
		t.Errorf("bob is limited by alice's calls: %s", res.Text())
	}
	if res := call("own", "alice"); res.IsError {
		t.Errorf("the tools share a bucket: %s", res.Text())
	}
	if res := call("own", "alice"); !res.IsError || !strings.Contains(res.Text(), "1 call per 1h") {
		t.Errorf("own limit: %v %q", res.IsError, res.Text())
	}
}
