package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
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
	if method == "tools/call" {
		req.Header.Set("Mcp-Name", "one") // the tool every call of these tests calls
	}
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
// notification can be delivered, that is with Watch over stdio, or over
// stateless streamable HTTP to 2026-07-28 clients, on their
// subscriptions/listen stream (earlier ones would need a session).
func TestListChangedCapability(t *testing.T) {
	tests := []struct {
		opts    server.Options
		version string // "" for the client's latest
		want    bool
	}{
		{server.Options{Watch: true}, "", true},
		{server.Options{Watch: true}, "2025-11-25", true},
		{server.Options{}, "", false},
		{server.Options{Watch: true, HTTP: true}, "", true}, // on a subscriptions/listen stream
		{server.Options{Watch: true, HTTP: true}, "2025-11-25", false},
		{server.Options{HTTP: true}, "", false},
	}
	for _, tt := range tests {
		live := server.NewLive(newConfig(t, 0, "one"), nil, tt.opts)
		t.Cleanup(func() { _ = live.Close() })
		var caps *mcp.ServerCapabilities
		opts := &mcp.ClientSessionOptions{ProtocolVersion: tt.version}
		if tt.opts.HTTP {
			ts := httptest.NewServer(live.HTTPHandler())
			t.Cleanup(ts.Close)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + server.Path}, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			caps = cs.InitializeResult().Capabilities
		} else {
			caps = connectLive(t, live, tt.version, nil).InitializeResult().Capabilities
		}
		if got := caps.Tools != nil && caps.Tools.ListChanged; got != tt.want {
			t.Errorf("%+v %q: tools.listChanged = %v, want %v", tt.opts, tt.version, got, tt.want)
		}
	}
}

// slowAction answers after a while, so that its call is still running when
// the client closes its end.
type slowAction struct{}

func (slowAction) Run(ctx context.Context, _ map[string]any) (*engine.Response, error) {
	select {
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &engine.Response{Content: []engine.Content{{Type: engine.TextContent, Text: "slow done"}}}, nil
}

// stdioSession serves cfg with ServeIO over pipes, writes lines to it, closes
// its input, and returns every line it answered, once ServeIO has returned.
func stdioSession(t *testing.T, cfg *engine.Config, lines ...string) []string {
	t.Helper()
	live := server.NewLive(cfg, nil, server.Options{})
	t.Cleanup(func() { _ = live.Close() })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := live.ServeIO(context.Background(), inR, outW)
		_ = outW.Close()
		served <- err
	}()
	answers := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		answers <- got
	}()
	for _, line := range lines {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("writing %.40q: %v (the server stopped reading)", line, err)
		}
	}
	_ = inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeIO = %v, want nil at the end of the input", err)
		}
	case <-time.After(enginetest.Patience):
		t.Fatal("ServeIO did not return after its input ended")
	}
	return <-answers
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// answer finds the answer with the given id (raw JSON) among lines.
func answer(t *testing.T, lines []string, id string) (result json.RawMessage, code int, ok bool) {
	t.Helper()
	for _, line := range lines {
		var msg struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("the server wrote %q, not JSON: %v", line, err)
		}
		if string(msg.ID) == id {
			if msg.Error != nil {
				return nil, msg.Error.Code, true
			}
			return msg.Result, 0, true
		}
	}
	return nil, 0, false
}

// TestStdioMalformedLines: a line that is not a JSON-RPC message is
// answered with a JSON-RPC error with a null id (but a malformed response
// is not answered), and the session goes on.
func TestStdioMalformedLines(t *testing.T) {
	cfg := newConfig(t, 0, "one")
	cfg.Settings.MaxArgumentBytes = 1024
	long := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"one","arguments":{"s":"` + strings.Repeat("x", int(server.MaxRequestBody(cfg.Settings))) + `"}}}`
	tests := []struct {
		name, line string
		code       int
	}{
		{"not JSON", "hello", -32700},
		{"two values on a line", `{"jsonrpc":"2.0","id":5,"method":"ping"} {}`, -32700},
		{"JSON, not a message", `{"a":1}`, -32600},
		{"a number", `42`, -32600},
		{"an empty batch", `[]`, -32600},
		{"longer than the limit", long, -32600},
		{"a client's null-id error, never answered", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"one"}}`
			got := stdioSession(t, cfg, initialize, initialized, tt.line, "", call)
			if _, code, ok := answer(t, got, "null"); ok != (tt.code != 0) || code != tt.code {
				t.Errorf("answer to %.40q: code %d (found %v), want %d; all: %q", tt.line, code, ok, tt.code, got)
			}
			res, _, ok := answer(t, got, "2")
			if !ok || !strings.Contains(string(res), "hi from one") {
				t.Errorf("the call after the bad line: %s (found %v); all: %q", res, ok, got)
			}
		})
	}
}

// TestHTTPMalformedBody: over streamable HTTP, a POST whose body is not
// JSON, or not a JSON-RPC message, is answered with status 400 and a
// JSON-RPC error with a null id (-32700 parse error, -32600 invalid
// request), as JSON, for clients of every revision.
func TestHTTPMalformedBody(t *testing.T) {
	ts := serveFront(t, newConfig(t, 0, "one"))
	tests := []struct {
		name, body string
		code       int
	}{
		{"not JSON", "garbage", -32700},
		{"cut short", `{"jsonrpc":"2.0"`, -32700},
		{"empty", "", -32700},
		{"an empty batch", `[]`, -32600},
		{"JSON, not a message", `{"foo":1}`, -32600},
		{"a number", `42`, -32600},
		{"a batch, after 2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
	}
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				req, err := http.NewRequest(http.MethodPost, ts.URL+server.Path, strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", version)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				raw, _ := io.ReadAll(resp.Body)
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				err = json.Unmarshal(raw, &msg)
				if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" || err != nil ||
					msg.JSONRPC != "2.0" || string(msg.ID) != "null" || msg.Error.Code != tt.code || msg.Error.Message == "" {
					t.Errorf("POST %q: %d %s %s, want 400 application/json with a null-id error %d",
						tt.body, resp.StatusCode, resp.Header.Get("Content-Type"), raw, tt.code)
				}
			})
		}
	}
}

// TestStdioAnswersBeforeEOF: a client that writes its requests and closes
// its end gets every answer, the one to a call still running included.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	tool, err := engine.NewTool(engine.ToolSpec{Name: "slow", Description: "d", Action: slowAction{}}, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, engine.DefaultSettings(), []*engine.Tool{tool}, &text.Redactor{}, nil)
	got := stdioSession(t, cfg, initialize, initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
	if res, _, ok := answer(t, got, "1"); !ok || !strings.Contains(string(res), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize: %s (found %v); all: %q", res, ok, got)
	}
	if res, _, ok := answer(t, got, "2"); !ok || !strings.Contains(string(res), "slow done") {
		t.Errorf("tools/call: %s (found %v); all: %q", res, ok, got)
	}
}

// TestStdioOutOfOrder: a request the session's state does not allow is an
// invalid request (-32600), not an error with code 0, which JSON-RPC does
// not define.
func TestStdioOutOfOrder(t *testing.T) {
	got := stdioSession(t, newConfig(t, 0, "one"),
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		initialize, initialized,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	for _, id := range []string{"7", "8"} {
		if _, code, ok := answer(t, got, id); !ok || code != -32600 {
			t.Errorf("request %s: code %d (found %v), want -32600; all: %q", id, code, ok, got)
		}
	}
}

// TestRevisionFields: each revision gets the result members it defines:
// ttlMs and cacheScope (on lists) and resultType (on every result) only
// exist in 2026-07-28, over stdio as over HTTP.
func TestRevisionFields(t *testing.T) {
	cfg := newConfig(t, 0, "one")
	ts := serveFront(t, cfg)
	for _, version := range server.ProtocolVersions() {
		meta, newer := "", version >= "2026-07-28"
		if newer {
			meta = meta2026
		}
		withMeta := func(params string) string {
			if meta == "" {
				return params
			}
			if params == "" {
				return meta
			}
			return params + ", " + meta
		}
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + withMeta("") + `}}`
		call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + withMeta(`"name":"one"`) + `}}`
		lines := []string{list, call}
		if !newer {
			lines = []string{strings.Replace(initialize, "2025-11-25", version, 1), initialized, list, call}
		}
		got := stdioSession(t, cfg, lines...)
		listed, _, _ := answer(t, got, "2")
		called, _, _ := answer(t, got, "3")
		results := map[string]map[string]json.RawMessage{
			"stdio tools/list": members(t, listed),
			"stdio tools/call": members(t, called),
			"HTTP tools/list":  post(t, ts, version, "", "tools/list", withMeta("")),
			"HTTP tools/call":  post(t, ts, version, "", "tools/call", withMeta(`"name":"one"`)),
		}
		for what, res := range results {
			want := []string{"resultType"}
			if strings.HasSuffix(what, "list") {
				want = append(want, "ttlMs", "cacheScope")
			}
			for _, field := range want {
				if _, ok := res[field]; ok != newer {
					t.Errorf("%s %s: %s present: %v, want %v", version, what, field, ok, newer)
				}
			}
		}
	}
}

// members decodes a result's members.
func members(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return m
}

// TestToolMembersByRevision: tools/list describes each tool with the
// members the client's revision defines.
func TestToolMembersByRevision(t *testing.T) {
	yes := true
	tool, err := engine.NewTool(engine.ToolSpec{
		Name: "rich", Title: "Rich", Description: "d", Text: mapping.Const("hi"),
		Annotations: &engine.Annotations{ReadOnlyHint: &yes},
		Icons:       []engine.Icon{{Src: "https://example.com/rich.png"}},
		Meta:        map[string]any{"example.com/owner": "team"},
		Outputs:     []engine.Output{{Output: schema.Output{Name: "n", Type: &schema.Type{Kind: schema.Integer}}, Value: mapping.Const(1)}},
	}, engine.DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, engine.DefaultSettings(), []*engine.Tool{tool}, &text.Redactor{}, nil)
	ts := serveFront(t, cfg)
	since := map[string]string{ // the revision that defined each member
		"name": "2024-11-05", "description": "2024-11-05", "inputSchema": "2024-11-05",
		"annotations": "2025-03-26",
		"title":       "2025-06-18", "outputSchema": "2025-06-18", "_meta": "2025-06-18",
		"icons": "2025-11-25",
	}
	for _, version := range server.ProtocolVersions() {
		meta := ""
		lines := []string{strings.Replace(initialize, "2025-11-25", version, 1), initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}
		if version >= "2026-07-28" {
			meta = meta2026
			lines = []string{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`}
		}
		listed, _, _ := answer(t, stdioSession(t, cfg, lines...), "2")
		for what, res := range map[string]map[string]json.RawMessage{
			"stdio": members(t, listed),
			"HTTP":  post(t, ts, version, "", "tools/list", meta),
		} {
			var tools []map[string]json.RawMessage
			if err := json.Unmarshal(res["tools"], &tools); err != nil || len(tools) != 1 {
				t.Fatalf("%s %s: tools %s", version, what, res["tools"])
			}
			for member, from := range since {
				if _, ok := tools[0][member]; ok != (version >= from) {
					t.Errorf("%s %s: %s present: %v, want %v (defined since %s)", version, what, member, ok, !ok, from)
				}
			}
			if len(tools[0]) > len(since) {
				t.Errorf("%s %s: members beyond those checked: %s", version, what, res["tools"])
			}
		}
	}
}
