package httpaction_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// TestCache checks a tool's cache block as a user relies on it: the same
// call (arguments written in any order) is answered from the cache and
// says so in _meta, another call or another caller reaches the upstream,
// a public cache is shared by every caller, a failed call is not kept,
// and an entry is kept for its ttl only.
func TestCache(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		if r.URL.Query().Get("id") == "fail" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + r.URL.Query().Get("id") + `","hit":` + string(rune('0'+n%10)) + `}`))
	}))
	t.Cleanup(upstream.Close)
	cfg, diags := loadSource(t, `
tool "item" {
  description = "Reads an item."
  annotations { read_only_hint = true }
  arg "id" { type = string }
  arg "lang" {
    type    = string
    default = "en"
  }
  http {
    url   = "`+upstream.URL+`/item"
    query = { id = expr("args.id"), lang = expr("args.lang") }
  }
  output "id" {
    type  = string
    value = expr("body.id")
  }
  cache { ttl = "300ms" }
}
tool "shared" {
  description = "Reads an item, the same for everyone."
  annotations { read_only_hint = true }
  arg "id" { type = string }
  http {
    url   = "`+upstream.URL+`/item"
    query = { id = expr("args.id") }
  }
  cache {
    ttl    = "1m"
    public = true
  }
}
`, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	ann := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:ann", Authenticated: true})
	bob := engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:bob", Authenticated: true})
	call := func(ctx context.Context, tool, args string) *engine.Result {
		t.Helper()
		tl, _ := cfg.Tool(tool)
		res := tl.Call(ctx, []byte(args))
		return res
	}
	cached := func(res *engine.Result) bool { _, ok := res.Meta[engine.CacheMetaKey]; return ok }

	first := call(ann, "item", `{"id":"a","lang":"en"}`)
	again := call(ann, "item", `{ "lang": "en", "id": "a" }`)
	if first.IsError || cached(first) || !cached(again) || again.Text() != first.Text() || hits.Load() != 1 {
		t.Fatalf("the same call twice: %q (cached %v), then %q (cached %v); %d upstream calls, want 1",
			first.Text(), cached(first), again.Text(), cached(again), hits.Load())
	}
	if again.Structured["id"] != "a" {
		t.Errorf("the cached structured content: %v", again.Structured)
	}
	if res := call(ann, "item", `{"id":"a","lang":"fr"}`); cached(res) || hits.Load() != 2 {
		t.Error("other arguments were answered from the cache")
	}
	if res := call(bob, "item", `{"id":"a","lang":"en"}`); cached(res) || hits.Load() != 3 {
		t.Error("another caller was answered from ann's cache")
	}
	for range 2 {
		if res := call(ann, "item", `{"id":"fail"}`); !res.IsError || cached(res) {
			t.Fatalf("a failing call: %q", res.Text())
		}
	}
	if hits.Load() != 5 {
		t.Errorf("a failed result was kept: %d upstream calls, want 5", hits.Load())
	}
	time.Sleep(400 * time.Millisecond)
	if res := call(ann, "item", `{"id":"a","lang":"en"}`); cached(res) {
		t.Error("an entry outlived its ttl")
	}

	call(ann, "shared", `{"id":"s"}`)
	before := hits.Load()
	if res := call(bob, "shared", `{"id":"s"}`); !cached(res) || hits.Load() != before {
		t.Error("a public cache is not shared between callers")
	}
}

// TestCacheConfigErrors checks the cache blocks a user can get wrong.
func TestCacheConfigErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"not read-only", `tool "t" {
  description = "d"
  http { url = "http://127.0.0.1:1/x" }
  cache { ttl = "1m" }
}`, "Cache of a tool that is not read-only; Only a tool that changes nothing may answer from a cache. If this one only reads, say so with annotations { read_only_hint = true }; otherwise remove the cache block."},
		{"no ttl", `tool "t" {
  description = "d"
  annotations { read_only_hint = true }
  http { url = "http://127.0.0.1:1/x" }
  cache {}
}`, `Missing required argument; The argument "ttl" is required`},
		{"ttl too long", `tool "t" {
  description = "d"
  annotations { read_only_hint = true }
  http { url = "http://127.0.0.1:1/x" }
  cache { ttl = "800h" }
}`, "Invalid ttl; ttl is how long a result is kept: at most 720h0m0s (30 days), not 800h0m0s."},
		{"redis without URL", `cache { store = "redis" }`, `Missing redis_url; With store = "redis" the cached results live in Redis`},
		{"max_entries with redis", `cache {
  store       = "redis"
  redis_url   = "redis://127.0.0.1:6379"
  max_entries = 5
}`, "Unexpected max_entries"},
		{"bad redis URL, password hidden", `cache {
  store     = "redis"
  redis_url = "redis://:hunter2@h:port"
}`, "Invalid redis_url; This is not a Redis URL (invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadSource(t, tt.src, nil)
			got := diags.Error()
			if !strings.Contains(got, tt.want) || strings.Contains(got, "hunter2") {
				t.Errorf("diagnostics:\n%s\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCacheNamespace checks, through one Redis, that two loads of the same
// configuration share their results, and that a configuration whose
// mapping or variable changed reads none of them.
func TestCacheNamespace(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"a":"x","b":"y"}`))
	}))
	t.Cleanup(upstream.Close)
	prefix := fmt.Sprintf("mcpdecl-test-%d", time.Now().UnixNano())
	src := func(field, label string) string {
		return `
variable "label" {
  type    = string
  default = "` + label + `"
}
cache {
  store     = "redis"
  redis_url = "redis://` + testservice.Redis(t) + `"
  prefix    = "` + prefix + `"
}
tool "get" {
  description = "Reads one field."
  annotations { read_only_hint = true }
  http { url = "` + upstream.URL + `/x" }
  output "v" {
    type  = string
    value = expr("body.` + field + ` + '${var.label}'")
  }
  cache { ttl = "1m" }
}
`
	}
	call := func(s string, env map[string]string) string {
		t.Helper()
		cfg, diags := loadSource(t, s, env)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		tool, _ := cfg.Tool("get")
		res := tool.Call(context.Background(), nil)
		if res.IsError {
			t.Fatal(res.Text())
		}
		return fmt.Sprint(res.Structured["v"])
	}
	if got := call(src("a", "1"), nil); got != "x1" || hits.Load() != 1 {
		t.Fatalf("first: %q after %d upstream calls", got, hits.Load())
	}
	if got := call(src("a", "1"), nil); got != "x1" || hits.Load() != 1 {
		t.Errorf("the same configuration again: %q after %d upstream calls, want the kept result", got, hits.Load())
	}
	if got := call(src("b", "1"), nil); got != "y1" || hits.Load() != 2 {
		t.Errorf("a changed mapping: %q after %d upstream calls, want a new call", got, hits.Load())
	}
	if got := call(src("a", "1"), map[string]string{"MCPDECL_VAR_label": "2"}); got != "x2" || hits.Load() != 3 {
		t.Errorf("the same file with another value of its variable: %q after %d upstream calls, want a new call", got, hits.Load())
	}
}
