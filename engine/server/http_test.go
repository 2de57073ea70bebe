package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// tokens is an Authenticator for tests: each token maps to a subject and
// its scopes.
type tokens map[string]*sdkauth.TokenInfo

func (tk tokens) Wrap(next http.Handler) http.Handler {
	verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if info, ok := tk[token]; ok {
			return info, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}
	return sdkauth.RequireBearerToken(verify, nil)(next)
}

func (tokens) MetadataPath() string { return "/.well-known/oauth-protected-resource/mcp" }

func (tokens) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"resource":"x"}`) })
}

// checker is a resource whose Check fails while err is set.
type checker struct {
	mu  sync.Mutex
	err error
}

func (c *checker) Check(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// keys is a rate-limit store that records the keys it is asked about,
// and allows all.
type keys struct {
	mu  sync.Mutex
	got []string
}

func (k *keys) Allow(_ context.Context, key string, _ ratelimit.Limit) (ratelimit.Decision, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.got = append(k.got, key)
	return ratelimit.Decision{Allowed: true}, nil
}

func (k *keys) Close() error { return nil }

// frontConfig has an open tool, limited by limiter when it is not nil, a
// scoped one, and one with a sensitive argument; resources are added to it.
func frontConfig(t *testing.T, limiter *ratelimit.Limiter, log *audit.Log, resources ...any) *engine.Config {
	t.Helper()
	settings := engine.DefaultSettings()
	redactor := &text.Redactor{}
	redactor.Add("s3cr3t-api-key")
	specs := []engine.ToolSpec{
		{Name: "open", Description: "d", Text: mapping.Const("open")},
		{Name: "admin", Description: "d", Text: mapping.Const("admin"), Scopes: []string{"admin"}},
		{Name: "login", Description: "d", Text: mapping.Const("in"), Args: []schema.Arg{
			{Name: "user", Type: &schema.Type{Kind: schema.String}},
			{Name: "note", Type: &schema.Type{Kind: schema.String}, Optional: true},
			{Name: "password", Type: &schema.Type{Kind: schema.String}, Sensitive: true},
		}},
	}
	var tools []*engine.Tool
	var outer []engine.CallLayer
	if log != nil {
		outer = append(outer, log)
	}
	if limiter != nil {
		specs[0].Layers = []engine.CallLayer{limiter}
	}
	for _, spec := range specs {
		spec.Outer = outer
		tool, err := engine.NewTool(spec, settings, redactor)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	cfg := engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, settings, tools, redactor, resources)
	cfg.Layers = outer
	return cfg
}

// serveFront serves cfg's HTTP front on a test server.
func serveFront(t *testing.T, cfg *engine.Config) *httptest.Server {
	t.Helper()
	live := server.NewLive(cfg, nil, server.Options{})
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(func() {
		ts.Close()
		_ = live.Close()
	})
	return ts
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url + server.Path}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer{token}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHealth(t *testing.T) {
	db := &checker{}
	ts := serveFront(t, frontConfig(t, nil, nil, db))
	if code, body := get(t, ts.URL+server.HealthPath); code != 200 || body != "ok\n" {
		t.Errorf("healthz = %d %q", code, body)
	}
	if code, body := get(t, ts.URL+server.ReadyPath); code != 200 || body != "ready\n" {
		t.Errorf("readyz = %d %q", code, body)
	}
	db.mu.Lock()
	db.err = errors.New("dial tcp 10.0.0.7:5432: password=hunter2 refused")
	db.mu.Unlock()
	time.Sleep(1100 * time.Millisecond) // past the cached answer
	code, body := get(t, ts.URL+server.ReadyPath)
	if code != 503 || body != "not ready\n" {
		t.Errorf("readyz with a database down = %d %q, want 503 and nothing about why", code, body)
	}
	if code, _ := get(t, ts.URL+"/elsewhere"); code != 404 {
		t.Errorf("unknown path = %d, want 404", code)
	}
}

func TestAuthFront(t *testing.T) {
	tk := tokens{
		"reader-token": {UserID: "alice", Scopes: []string{"read"}, Expiration: time.Now().Add(time.Hour)},
		"admin-token":  {UserID: "root", Scopes: []string{"admin"}, Expiration: time.Now().Add(time.Hour)},
	}
	ts := serveFront(t, frontConfig(t, nil, nil, tk))

	// Health and metadata need no token; the MCP endpoint does.
	if code, _ := get(t, ts.URL+server.HealthPath); code != 200 {
		t.Errorf("healthz behind auth = %d", code)
	}
	if code, body := get(t, ts.URL+tk.MetadataPath()); code != 200 || body != `{"resource":"x"}` {
		t.Errorf("metadata = %d %q", code, body)
	}
	resp, err := http.Post(ts.URL+server.Path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("no token: %d, want 401", resp.StatusCode)
	}
	if _, err := connectHTTP(t, ts.URL, "wrong-token"); err == nil {
		t.Error("a wrong token connected")
	}

	names := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	reader, err := connectHTTP(t, ts.URL, "reader-token")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(reader); !slices.Equal(got, []string{"login", "open"}) {
		t.Errorf("reader lists %v, want the tools without scopes only", got)
	}
	res, err := reader.CallTool(context.Background(), &mcp.CallToolParams{Name: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "access denied") {
		t.Errorf("reader calling admin: %+v", res)
	}
	admin, err := connectHTTP(t, ts.URL, "admin-token")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(admin); !slices.Equal(got, []string{"admin", "login", "open"}) {
		t.Errorf("admin lists %v", got)
	}
	res, err = admin.CallTool(context.Background(), &mcp.CallToolParams{Name: "admin"})
	if err != nil || res.IsError {
		t.Errorf("admin calling admin: %v %+v", err, res)
	}
}

func TestAuditAndIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	lim := &keys{}
	ts := serveFront(t, frontConfig(t, ratelimit.Bind(lim, ratelimit.Limit{Requests: 1, Per: time.Second}), &audit.Log{File: path, Arguments: true}))
	cs, err := connectHTTP(t, ts.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open"}); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"user": "bob", "password": "hunter2-horse", "note": "my key is s3cr3t-api-key, pw hunter2-horse"}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "login", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "login", Arguments: map[string]any{"user": 1}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lim.got, []string{"open:127.0.0.1"}) {
		t.Errorf("rate-limit keys = %q, want the tool and the client's address without its port", lim.got)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, _ := io.ReadAll(f)
	if strings.Contains(string(raw), "hunter2") || strings.Contains(string(raw), "s3cr3t") {
		t.Errorf("the audit log holds a secret:\n%s", raw)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("audit line is not JSON: %s", sc.Text())
		}
		lines = append(lines, line)
	}
	if len(lines) != 3 {
		t.Fatalf("%d audit lines, want 3:\n%s", len(lines), raw)
	}
	for i, want := range []struct{ tool, outcome string }{{"open", "ok"}, {"login", "ok"}, {"login", "error"}} {
		l := lines[i]
		if l["tool"] != want.tool || l["outcome"] != want.outcome || l["client"] != "127.0.0.1" || l["time"] == nil || l["duration_ms"] == nil || l["bytes"] == nil {
			t.Errorf("line %d = %v, want tool %s, outcome %s, client, time, duration and size", i, l, want.tool, want.outcome)
		}
	}
	got, _ := json.Marshal(lines[1]["arguments"])
	if want := `{"note":"my key is (sensitive), pw (sensitive)","password":"(sensitive)","user":"bob"}`; string(got) != want {
		t.Errorf("arguments = %s, want %s", got, want)
	}
	if lines[2]["error"] == nil {
		t.Errorf("an error line says nothing of the error: %v", lines[2])
	}
}
