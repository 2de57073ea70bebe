package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// meta2026 is the _meta that every request of a 2026-07-28 client carries.
const meta2026 = `"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}`

// post sends one JSON-RPC message to the MCP endpoint of ts as a client of
// revision version, with a bearer token unless it is "", and returns the
// answer's result members as raw JSON.
func post(t *testing.T, ts *httptest.Server, version, token, method, params string) map[string]json.RawMessage {
	t.Helper()
	body := `{"jsonrpc": "2.0", "id": 1, "method": "` + method + `", "params": {` + params + `}}`
	req, err := http.NewRequest(http.MethodPost, ts.URL+server.Path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", method)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Result == nil {
		t.Fatalf("%s %s as %s: %d %s", method, params, version, resp.StatusCode, raw)
	}
	return msg.Result
}

// TestListCacheScope: a tools/list filtered by the caller's token is
// labelled private, so that no shared cache serves it to another caller;
// a list that is the same for everyone is public.
func TestListCacheScope(t *testing.T) {
	tk := tokens{"reader-token": {UserID: "alice", Scopes: []string{"read"}, Expiration: time.Now().Add(time.Hour)}}
	tests := []struct {
		name      string
		resources []any
		token     string
		want      string
	}{
		{"scoped tools behind an auth block", []any{tk}, "reader-token", `"private"`},
		{"scoped tools, no auth block", nil, "", `"public"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := frontConfig(t, nil, nil, tt.resources...)
			ts := serveFront(t, cfg)
			res := post(t, ts, "2026-07-28", tt.token, "tools/list", meta2026)
			if got := string(res["cacheScope"]); got != tt.want {
				t.Errorf("tools/list cacheScope = %s, want %s", got, tt.want)
			}
			b, err := server.ListJSON(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var listed struct{ CacheScope string }
			if err := json.Unmarshal(b, &listed); err != nil || `"`+listed.CacheScope+`"` != tt.want {
				t.Errorf("ListJSON cacheScope = %q (%v), want %s", listed.CacheScope, err, tt.want)
			}
		})
	}
}

// TestListChangedCapability: tools.listChanged is declared only where the
// notification can be delivered, that is with Watch over stdio; stateless
// streamable HTTP has no stream for it.
func TestListChangedCapability(t *testing.T) {
	tests := []struct {
		opts server.Options
		want bool
	}{
		{server.Options{Watch: true}, true},
		{server.Options{}, false},
		{server.Options{Watch: true, HTTP: true}, false},
		{server.Options{HTTP: true}, false},
	}
	for _, tt := range tests {
		live := server.NewLive(newConfig(t, 0, "one"), nil, tt.opts)
		t.Cleanup(func() { _ = live.Close() })
		var caps *mcp.ServerCapabilities
		if tt.opts.HTTP {
			ts := httptest.NewServer(live.HTTPHandler())
			t.Cleanup(ts.Close)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			caps = cs.InitializeResult().Capabilities
		} else {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := live.Server().Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ss.Close() })
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			caps = cs.InitializeResult().Capabilities
		}
		if got := caps.Tools != nil && caps.Tools.ListChanged; got != tt.want {
			t.Errorf("%+v: tools.listChanged = %v, want %v", tt.opts, got, tt.want)
		}
	}
}
