package httpaction_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
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

// TestCacheNamespaceFiles checks, through one Redis, that the files a
// configuration reads with file() are part of what identifies it: a
// changed file, read in a tool (after its cache block) or in a local,
// reads none of the results kept before it changed; nor does one whose
// sensitive variable (here read from a file) changed, since its results
// were fetched with another credential.
func TestCacheNamespaceFiles(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"a":"x"}`))
	}))
	t.Cleanup(upstream.Close)
	prefix := fmt.Sprintf("mcpdecl-test-%d", time.Now().UnixNano())
	dir := t.TempDir()
	src := `
variable "secret" {
  type      = string
  default   = file("secret.txt")
  sensitive = true
}
locals {
  label = trimspace(file("label.txt"))
}
cache {
  store     = "redis"
  redis_url = "redis://` + testservice.Redis(t) + `"
  prefix    = "` + prefix + `"
}
tool "get" {
  description = "Reads one field."
  annotations { read_only_hint = true }
  cache { ttl = "1m" }
  http {
    url     = "` + upstream.URL + `/x"
    headers = { "X-Key" = var.secret }
  }
  output "v" {
    type  = string
    value = expr("body.a + '${local.label}' + '${trimspace(file("suffix.txt"))}'")
  }
}
`
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("tools.hcl", src)
	call := func() string {
		t.Helper()
		cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New()), LookupEnv: func(string) (string, bool) { return "", false }}, filepath.Join(dir, "tools.hcl"))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		defer cfg.Close()
		tool, _ := cfg.Tool("get")
		res := tool.Call(context.Background(), nil)
		if res.IsError {
			t.Fatal(res.Text())
		}
		return fmt.Sprint(res.Structured["v"])
	}
	write("label.txt", "L1")
	write("suffix.txt", "S1")
	write("secret.txt", "secret-one")
	if got := call(); got != "xL1S1" || hits.Load() != 1 {
		t.Fatalf("first: %q after %d upstream calls", got, hits.Load())
	}
	if got := call(); got != "xL1S1" || hits.Load() != 1 {
		t.Errorf("the same files again: %q after %d upstream calls, want the kept result", got, hits.Load())
	}
	write("suffix.txt", "S2")
	if got := call(); got != "xL1S2" || hits.Load() != 2 {
		t.Errorf("a file read in the tool changed: %q after %d upstream calls, want a new call", got, hits.Load())
	}
	write("label.txt", "L2")
	if got := call(); got != "xL2S2" || hits.Load() != 3 {
		t.Errorf("a file read in a local changed: %q after %d upstream calls, want a new call", got, hits.Load())
	}
	write("secret.txt", "secret-two")
	if got := call(); got != "xL2S2" || hits.Load() != 4 {
		t.Errorf("a file read only for a sensitive variable changed: %q after %d upstream calls, want a new call", got, hits.Load())
	}
	if got := call(); got != "xL2S2" || hits.Load() != 4 {
		t.Errorf("the same secret again: %q after %d upstream calls, want the kept result", got, hits.Load())
	}
}

// TestCacheNamespaceSecrets checks, through one Redis, that two servers
// sharing it with the same files but other credentials (a sensitive
// variable, or a value env() reads) never answer each other's calls from
// the cache: a result fetched with one tenant's key is not the other's to
// read. The keys in Redis hold no secret.
func TestCacheNamespaceSecrets(t *testing.T) {
	var hits atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"who":%q}`, r.Header.Get("X-Tenant")+"/"+r.Header.Get("X-Key"))
	}))
	t.Cleanup(upstream.Close)
	prefix := fmt.Sprintf("mcpdecl-test-%d", time.Now().UnixNano())
	src := `
variable "key" {
  type      = string
  sensitive = true
}
cache {
  store     = "redis"
  redis_url = "redis://` + testservice.Redis(t) + `"
  prefix    = "` + prefix + `"
}
tool "who" {
  description = "Says whom the upstream sees."
  annotations { read_only_hint = true }
  cache { ttl = "1m" }
  http {
    url     = "` + upstream.URL + `/who"
    headers = { "X-Tenant" = env("TENANT"), "X-Key" = var.key }
  }
  output "who" {
    type  = string
    value = expr("body.who")
  }
}
`
	call := func(tenant, key string) string {
		t.Helper()
		cfg, diags := loadSource(t, src, map[string]string{"TENANT": tenant, "MCPDECL_VAR_key": key})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		tool, _ := cfg.Tool("who")
		res := tool.Call(context.Background(), nil)
		if res.IsError {
			t.Fatal(res.Text())
		}
		return fmt.Sprint(res.Structured["who"])
	}
	for i, c := range []struct {
		tenant, key, want string
		hits              int64
	}{
		{"alice", "key-of-alice", "alice/(sensitive)", 1},
		{"alice", "key-of-alice", "alice/(sensitive)", 1}, // the same server again: from the cache
		{"bob", "key-of-alice", "bob/(sensitive)", 2},     // env("TENANT") differs
		{"bob", "key-of-bob", "bob/(sensitive)", 3},       // the sensitive variable differs
		{"bob", "key-of-bob", "bob/(sensitive)", 3},
	} {
		if got := call(c.tenant, c.key); got != c.want || hits.Load() != c.hits {
			t.Errorf("call %d (TENANT=%s, key=%s): %q after %d upstream calls, want %q after %d", i, c.tenant, c.key, got, hits.Load(), c.want, c.hits)
		}
	}
	conn, err := redis.Dial("tcp", testservice.Redis(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	keys, err := redis.Strings(conn.Do("KEYS", prefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 {
		t.Errorf("Redis holds %d keys under the prefix, want 3 (one per server): %q", len(keys), keys)
	}
	for _, k := range keys {
		if strings.Contains(k, "key-of-") || strings.Contains(k, "alice") || strings.Contains(k, "bob") {
			t.Errorf("a key in Redis shows a secret or an env value: %q", k)
		}
	}
}

// TestCachePublicOfCaller checks that a public cache on a tool whose
// request depends on the caller is a load error at public = true that says
// which dependency and what to do: every caller would otherwise get the
// first caller's answer, fetched with the first caller's credentials.
func TestCachePublicOfCaller(t *testing.T) {
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
	tool := func(api, action string) string {
		return api + `
tool "t" {
  description = "d"
  annotations { read_only_hint = true }
  ` + action + `
  cache {
    ttl    = "1m"
    public = true
  }
}
`
	}
	tests := []struct{ name, src, want string }{
		{"caller_token", tool(`http_api "orders" {
  base_url = "http://127.0.0.1:1"
  auth {
    caller_token { audience = "https://orders.example.com" }
  }
}`, `http {
    api  = http_api.orders
    path = "/orders"
  }`), `http_api "orders" sends each caller's own token (auth { caller_token })`},
		{"token_exchange", tool(`http_api "orders" {
  base_url = "http://127.0.0.1:1"
  auth {
    token_exchange {
      token_url     = "http://127.0.0.1:1/token"
      client_id     = "c"
      client_secret = "s"
      audience      = "https://orders.example.com"
    }
  }
}`, `http {
    api  = http_api.orders
    path = "/orders"
  }`), `http_api "orders" exchanges each caller's token for one of its own (auth { token_exchange })`},
		{"program reads caller", tool(authBlock, `http {
    url   = "http://127.0.0.1:1/orders"
    query = { tenant = expr("caller.claims.tenant") }
  }`), `a program of this tool reads caller (at `},
		{"text reads caller", tool(authBlock, `text = expr("caller.sub")`), `a program of this tool reads caller (at `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadSource(t, tt.src, nil)
			var found bool
			for _, d := range diags {
				if d.Summary != "Public cache of a tool that depends on the caller" {
					continue
				}
				found = true
				// The subject is the public = true attribute.
				lines := strings.Split(tt.src, "\n")
				line := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "public = true") }) + 1
				col := strings.Index(lines[line-1], "public") + 1
				if d.Subject == nil || d.Subject.Start.Line != line || d.Subject.Start.Column != col || !strings.HasSuffix(d.Subject.Filename, "tools.hcl") {
					t.Errorf("the error is at %v, want tools.hcl:%d:%d", d.Subject, line, col)
				}
				if !strings.Contains(d.Detail, tt.want) || !strings.Contains(d.Detail, "Remove public = true") {
					t.Errorf("detail %q, want it to say %q and what to do", d.Detail, tt.want)
				}
			}
			if !found {
				t.Errorf("no error for a public cache that depends on the caller:\n%s", diags.Error())
			}
		})
	}
}

// TestCacheKeepsCallersApart checks, with the memory store and with Redis,
// that a private cache keys everything a request can depend on: the same
// subject with another token, another tenant claim or fewer scopes reaches
// the upstream with that token and gets its own answer; static-token,
// anonymous, local and JWT callers never share an entry; and no token
// shows in the store, in its keys or in its values.
func TestCacheKeepsCallersApart(t *testing.T) {
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			var hits atomic.Int64
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				// The answer names what the request carried; a token is
				// named by its last part, as the tool redacts the whole.
				tok := r.Header.Get("Authorization")
				_, _ = w.Write([]byte(r.URL.Path + " " + r.URL.RawQuery + " " + tok[strings.LastIndex(tok, ".")+1:]))
			}))
			t.Cleanup(upstream.Close)
			// The token endpoint gives a token for the upstream that ends
			// as the caller's does.
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				sub := r.PostForm.Get("subject_token")
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"access_token":"xch.%s","token_type":"Bearer","expires_in":3600}`, sub[strings.LastIndex(sub, ".")+1:])
			}))
			t.Cleanup(endpoint.Close)
			prefix := fmt.Sprintf("mcpdecl-test-%d", time.Now().UnixNano())
			storeBlock := ""
			if store == "redis" {
				storeBlock = `cache {
  store     = "redis"
  redis_url = "redis://` + testservice.Redis(t) + `"
  prefix    = "` + prefix + `"
}`
			}
			cfg, diags := loadSource(t, storeBlock+`
auth {
  oauth {
    jwks_url = "https://idp.example.com/jwks"
    issuer   = "https://idp.example.com"
    audience = "https://mcp.example.com/mcp"
    claims   = ["tenant"]
  }
}
http_api "as_caller" {
  base_url = "`+upstream.URL+`"
  auth {
    caller_token { audience = "https://orders.example.com" }
  }
}
http_api "exchanged" {
  base_url = "`+upstream.URL+`"
  auth {
    token_exchange {
      token_url     = "`+endpoint.URL+`"
      client_id     = "c"
      client_secret = "s"
      audience      = "https://orders.example.com"
    }
  }
}
tool "theirs" {
  description = "The caller's orders, on the caller's behalf."
  annotations { read_only_hint = true }
  http {
    api  = http_api.exchanged
    path = "/theirs"
  }
  cache { ttl = "1m" }
}
tool "mine" {
  description = "The caller's orders, as the caller."
  annotations { read_only_hint = true }
  http {
    api  = http_api.as_caller
    path = "/mine"
  }
  cache { ttl = "1m" }
}
tool "tenant" {
  description = "The orders of the caller's tenant."
  annotations { read_only_hint = true }
  http {
    url   = "`+upstream.URL+`/tenant"
    query = { t = expr("caller.claims.tenant ?? ''") }
  }
  cache { ttl = "1m" }
}
tool "scoped" {
  description = "What the caller's scopes allow."
  annotations { read_only_hint = true }
  http {
    url   = "`+upstream.URL+`/scoped"
    query = { s = expr("join(caller.scopes, '+')") }
  }
  cache { ttl = "1m" }
}
tool "plain" {
  description = "The same for everyone, kept per caller."
  annotations { read_only_hint = true }
  http { url = "`+upstream.URL+`/plain" }
  cache { ttl = "1m" }
}
`, nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			aud := []string{"https://mcp.example.com/mcp", "https://orders.example.com"}
			jwt := func(token, tenant string, scopes ...string) context.Context {
				return engine.WithCaller(context.Background(), engine.Caller{ID: "jwt:ann", Authenticated: true, Subject: "ann",
					Scopes: scopes, Claims: map[string]any{"tenant": tenant}, Token: "eyJhbGciOiJSUzI1NiJ9.ann." + token, Audience: aud})
			}
			acme := jwt("acme", "acme", "read", "write")
			globex := jwt("globex", "globex", "read", "write") // the same subject, another organisation
			narrow := jwt("narrow", "acme", "read")            // the same subject and tenant, fewer scopes
			call := func(ctx context.Context, tool string) (string, bool) {
				t.Helper()
				tl, _ := cfg.Tool(tool)
				res := tl.Call(ctx, nil)
				if res.IsError {
					t.Fatalf("%s: %s", tool, res.Text())
				}
				_, cached := res.Meta[engine.CacheMetaKey]
				return res.Text(), cached
			}
			for _, tt := range []struct {
				tool   string
				ctx    context.Context
				want   string
				cached bool
			}{
				{"mine", acme, "/mine  acme", false},
				{"mine", globex, "/mine  globex", false},
				{"mine", narrow, "/mine  narrow", false},
				{"mine", acme, "/mine  acme", true},
				{"theirs", acme, "/theirs  acme", false},
				{"theirs", globex, "/theirs  globex", false},
				{"theirs", globex, "/theirs  globex", true},
				{"tenant", acme, "/tenant t=acme ", false},
				{"tenant", globex, "/tenant t=globex ", false},
				{"tenant", globex, "/tenant t=globex ", true},
				{"scoped", acme, "/scoped s=read%2Bwrite ", false},
				{"scoped", narrow, "/scoped s=read ", false},
				{"scoped", narrow, "/scoped s=read ", true},
			} {
				before := hits.Load()
				got, cached := call(tt.ctx, tt.tool)
				if got != tt.want || cached != tt.cached || (hits.Load() == before) != tt.cached {
					t.Errorf("%s for %v: %q (cached %v, %d upstream calls), want %q (cached %v)",
						tt.tool, engine.CallerFrom(tt.ctx).Token, got, cached, hits.Load()-before, tt.want, tt.cached)
				}
			}

			// Each kind of caller has entries of its own, even where the
			// names match.
			for _, c := range []engine.Caller{
				{ID: "jwt:ann", Authenticated: true, Subject: "ann"},
				{ID: "token:ann", Authenticated: true, Subject: "ann"},
				{ID: "127.0.0.1"},
				{ID: "10.0.0.2"},
				{ID: engine.LocalID},
			} {
				before := hits.Load()
				if _, cached := call(engine.WithCaller(context.Background(), c), "plain"); cached || hits.Load() != before+1 {
					t.Errorf("plain for %s was answered from another caller's entry", c.ID)
				}
			}

			if store == "redis" {
				conn, err := redis.Dial("tcp", testservice.Redis(t))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				keys, err := redis.Strings(conn.Do("KEYS", prefix+":*"))
				if err != nil || len(keys) != 14 {
					t.Fatalf("Redis holds %d keys (%v), want 14", len(keys), err)
				}
				for _, k := range keys {
					v, _ := redis.String(conn.Do("GET", k))
					if strings.Contains(k+v, "eyJ") || strings.Contains(k+v, "xch.") {
						t.Errorf("a token shows in Redis: %s = %s", k, v)
					}
				}
			}
		})
	}
}
