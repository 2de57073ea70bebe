package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// imageAction returns a fixed PNG, as the HTTP action does for binary bodies.
type imageAction struct{}

func (imageAction) Run(context.Context, map[string]any) (*engine.Response, error) {
	return &engine.Response{Content: []engine.Content{{Type: engine.ImageContent, Data: []byte("\x89PNG"), MIMEType: "image/png"}}}, nil
}

func newConfig(t testing.TB, pageSize int, names ...string) *engine.Config {
	t.Helper()
	settings := engine.DefaultSettings()
	settings.PageSize = pageSize
	var tools []*engine.Tool
	// The layer a loaded configuration's tools have, there without a
	// tracing block too.
	spans, _ := tracing.Decode(nil, &engine.DecodeContext{Redactor: &text.Redactor{}})
	outer := []engine.CallLayer{spans}
	for _, name := range names {
		spec := engine.ToolSpec{Name: name, Description: "Tool " + name, Text: mapping.Const("hi from " + name), Outer: outer}
		if name == "image" {
			spec.Text, spec.Action = nil, imageAction{}
		}
		if name == "typed" {
			spec.Args = []schema.Arg{{Name: "n", Type: &schema.Type{Kind: schema.Integer}}}
			spec.Outputs = []engine.Output{{Output: schema.Output{Name: "n", Type: &schema.Type{Kind: schema.Integer}}, Value: passN{}}}
			spec.Text = nil
		}
		tool, err := engine.NewTool(spec, settings, &text.Redactor{})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, settings, tools, &text.Redactor{}, nil)
}

// passN is a mapping that passes args.n through, built without HCL.
type passN struct{}

func (passN) Eval(env map[string]any) (any, error) { return env["args"].(map[string]any)["n"], nil }

func connect(t *testing.T, cfg *engine.Config) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.New(cfg, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestListIsSortedAndPaginated(t *testing.T) {
	cs := connect(t, newConfig(t, 2, "zeta", "alpha", "mid"))
	ctx := context.Background()
	page, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tools) != 2 || page.Tools[0].Name != "alpha" || page.Tools[1].Name != "mid" || page.NextCursor == "" {
		t.Fatalf("first page = %+v", page)
	}
	page, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: page.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tools) != 1 || page.Tools[0].Name != "zeta" || page.NextCursor != "" {
		t.Fatalf("second page = %+v", page)
	}
}

func TestCallResults(t *testing.T) {
	cs := connect(t, newConfig(t, 100, "image", "typed", "plain"))
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "image"})
	if err != nil {
		t.Fatal(err)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG" {
		t.Errorf("image content = %#v", res.Content)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "typed", Arguments: map[string]any{"n": 7}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(got) != `{"n":7}` {
		t.Errorf("typed: isError %v, structured %s, content %v", res.IsError, got, res.Content)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "typed", Arguments: map[string]any{"n": "seven"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.StructuredContent != nil {
		t.Errorf("bad argument: want a tool error without structured content, got %+v", res)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "hi from plain" {
		t.Errorf("plain text = %q", text)
	}
}

func TestListJSON(t *testing.T) {
	b, err := server.ListJSON(newConfig(t, 100, "typed"))
	if err != nil {
		t.Fatal(err)
	}
	var payload struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.Tools) != 1 || payload.Tools[0].Name != "typed" || len(payload.Tools[0].OutputSchema) == 0 {
		t.Errorf("payload = %s", b)
	}
}

func TestInvalidCursor(t *testing.T) {
	cs := connect(t, newConfig(t, 1, "a", "b"))
	_, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: "not-a-cursor"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("err = %v, want JSON-RPC error -32602", err)
	}
}

// TestResultStructuredJSON: the structured content that Result writes
// itself goes on the wire exactly as the SDK would have written the map.
func TestResultStructuredJSON(t *testing.T) {
	structured := map[string]any{
		"zeta":  "<b>&amp; \u2028 héllo \x00",
		"alpha": []any{json.Number("1e3"), 2.5, int64(-7), true, nil, map[string]any{"b": 1, "a": []any{}}},
		"mid":   map[string]any{},
	}
	r := &engine.Result{Structured: structured, Content: []engine.Content{{Type: engine.TextContent, Text: "t"}}}
	got, err := json.Marshal(server.Result(r))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(&mcp.CallToolResult{StructuredContent: structured, Content: []mcp.Content{&mcp.TextContent{Text: "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("on the wire:\n got %s\nwant %s", got, want)
	}
	indented, err := server.ResultJSON(r)
	if err != nil || !strings.Contains(string(indented), "\n  \"structuredContent\": {\n    \"alpha\": [") {
		t.Errorf("ResultJSON = %s, %v", indented, err)
	}
}

// TestResultJSONReadable: what the CLI prints shows "&", "<" and ">" as
// they are, not as \u0026, and keeps the escapes JSON needs.
func TestResultJSONReadable(t *testing.T) {
	text := `a & b <c> "q" \u0026 back\slash` + "\n"
	r := &engine.Result{
		Structured: map[string]any{"s": text},
		Content:    []engine.Content{{Type: engine.TextContent, Text: text}},
	}
	b, err := server.ResultJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"a & b <c> \"q\" \\u0026 back\\slash\n"`} {
		if n := strings.Count(string(b), want); n != 2 {
			t.Errorf("ResultJSON holds %s %d times, want 2 (text and structured):\n%s", want, n, b)
		}
	}
	var back mcp.CallToolResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Content[0].(*mcp.TextContent).Text; got != text {
		t.Errorf("decoded text = %q, want %q", got, text)
	}
}

// TestListJSONReadable: list --json shows "&" in descriptions as it is.
func TestListJSONReadable(t *testing.T) {
	settings := engine.DefaultSettings()
	tool, err := engine.NewTool(engine.ToolSpec{Name: "plain", Description: "Search & <find>", Text: mapping.Const("x")}, settings, &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.NewConfig(engine.ServerInfo{Name: "test", Version: "1"}, settings, []*engine.Tool{tool}, &text.Redactor{}, nil)
	b, err := server.ListJSON(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"description": "Search & <find>"`) {
		t.Errorf("ListJSON = %s", b)
	}
}

// connectLive connects a client of version ("" for its latest) with
// options to live in memory, as over stdio.
func connectLive(t *testing.T, live *server.Live, version string, options *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := live.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, options).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
