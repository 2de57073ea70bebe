package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/internal/testservice"
)

// These tests serve examples/guarded.hcl as a user would, and check what a
// client on the network meets: health endpoints, tokens, scopes, rate
// limits, redaction and the audit log.

func randomHex(t *testing.T) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type guarded struct {
	team, admin, prefix string
}

func newGuarded(t *testing.T) guarded {
	return guarded{team: randomHex(t), admin: randomHex(t), prefix: "mcpdecl-test-" + randomHex(t)}
}

func (g guarded) env(extra ...string) []string {
	return append([]string{"TEAM_TOKEN=" + g.team, "ADMIN_TOKEN=" + g.admin, "RATE_LIMIT_PREFIX=" + g.prefix}, extra...)
}

// withToken sends a bearer token with every request.
type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

func session(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withToken{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "guard-test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func guardedExample(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", "guarded.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGuardedExample(t *testing.T) {
	g := newGuarded(t)
	// JSON logs: the audit on standard error is then JSON lines too.
	endpoint, _, logs := startHTTPEnv(t, g.env(), "--log-format", "json", guardedExample(t))
	base := strings.TrimSuffix(endpoint, "/mcp")

	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != want {
			t.Errorf("GET %s = %d %q", path, resp.StatusCode, body)
		}
	}
	for _, token := range []string{"", "wrong-" + g.team} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer realm="mcpdecl"`) {
			t.Errorf("token %q: %d, WWW-Authenticate %q; want 401 and a challenge", token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	list := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	team := session(t, endpoint, g.team)
	if got := list(team); !slices.Equal(got, []string{"shout"}) {
		t.Errorf("team lists %v, want [shout]", got)
	}
	for i := range 3 {
		if text, isErr := callText(t, team, "shout", map[string]any{"text": "hi"}); isErr || text != "HI" {
			t.Fatalf("call %d: %q %v", i+1, text, isErr)
		}
	}
	text, isErr := callText(t, team, "shout", map[string]any{"text": "hi"})
	if !isErr || !strings.HasPrefix(text, "rate limit exceeded for this tool: 3 calls per 1m; retry in ") {
		t.Errorf("4th call: %q %v", text, isErr)
	}
	if text, isErr := callText(t, team, "rotate_key", map[string]any{"key": "k1", "password": "hunter2-horse"}); !isErr || !strings.HasPrefix(text, "access denied") {
		t.Errorf("team calling an admin tool: %q %v", text, isErr)
	}

	admin := session(t, endpoint, g.admin)
	if got := list(admin); !slices.Equal(got, []string{"rotate_key", "shout"}) {
		t.Errorf("admin lists %v", got)
	}
	if text, isErr := callText(t, admin, "rotate_key", map[string]any{"key": "k1", "password": "hunter2-horse"}); isErr || text != "rotating k1 as (sensitive)" {
		t.Errorf("rotate_key: %q %v", text, isErr)
	}

	// The audit log: a line per call, with the client's name and its
	// arguments, never a password or a token.
	var audit []map[string]any
	deadline := time.After(enginetest.Patience)
	for len(audit) < 6 {
		select {
		case line := <-logs:
			for _, secret := range []string{g.team, g.admin, "hunter2"} {
				if strings.Contains(line, secret) {
					t.Errorf("a log line holds a secret: %s", line)
				}
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "tool call" {
				audit = append(audit, m)
			}
		case <-deadline:
			t.Fatalf("%d audit lines, want 6", len(audit))
		}
	}
	last := audit[5]
	args, _ := json.Marshal(last["arguments"])
	if last["tool"] != "rotate_key" || last["client"] != "token:admin" || last["outcome"] != "ok" || string(args) != `{"key":"k1","password":"(sensitive)"}` {
		t.Errorf("last audit line = %v", last)
	}
	if audit[3]["outcome"] != "error" || audit[3]["client"] != "token:team" {
		t.Errorf("the refused call's line = %v", audit[3])
	}
}

// TestGuardedReplicasShareRedis runs two servers on one Redis, as two
// replicas behind a load balancer: together they allow one limit.
func TestGuardedReplicasShareRedis(t *testing.T) {
	addr := testservice.Redis(t)
	g := newGuarded(t)
	env := g.env("RATE_LIMIT_REDIS_URL=redis://" + addr)
	a, _, _ := startHTTPEnv(t, env, guardedExample(t))
	b, _, _ := startHTTPEnv(t, env, guardedExample(t))
	replicas := []*mcp.ClientSession{session(t, a, g.team), session(t, b, g.team)}
	allowed := 0
	for i := range 8 {
		if _, isErr := callText(t, replicas[i%2], "shout", map[string]any{"text": "x"}); !isErr {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("two replicas allowed %d calls of a tool limited to 3 a minute, want 3", allowed)
	}
}
