package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/adapters/exec"
	"github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// tracedTools calls an HTTP API (its key in the query string), a SQLite
// database and a program; echo sends back a sensitive argument.
const tracedTools = `
variable "key" {
  default   = "the-api-key-7f3a"
  sensitive = true
}

http_api "up" {
  base_url = %[1]q
  auth {
    api_key {
      query = "key"
      value = var.key
    }
  }
}

database "db" {
  driver = "sqlite"
  dsn    = %[2]q
}

tool "fetch" {
  description = "An item."
  arg "id" { type = string }
  http {
    api  = http_api.up
    path = "/items/{id}"
    path_params = { id = expr("args.id") }
  }
}

tool "count" {
  description = "Counts."
  arg "n" { type = integer }
  sql {
    database = database.db
    query    = "SELECT ? + 1 AS n"
    params   = [expr("args.n")]
  }
}

tool "fail" {
  description = "Fails."
  exec {
    command = ["sh", "-c", "exit 3"]
  }
}

tool "echo" {
  description = "Echoes a password."
  arg "password" {
    type      = string
    sensitive = true
  }
  arg "note" { type = string }
  text = expr("args.note + ' ' + args.password")
}

tool "fetch_url" {
  description = "An item, by a url of its own."
  arg "id" { type = string }
  http {
    url         = %[4]q
    path_params = { id = expr("args.id") }
  }
}
%[3]s`

// tracedServer serves tracedTools over HTTP, as opts say, with a tracer
// whose spans exp receives, extra appended to the configuration. It returns the
// server's URL and the traceparent headers the upstream was sent.
func tracedServer(t *testing.T, exp sdktrace.SpanExporter, extra string, opts server.Options) (string, *tracing.Tracing, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Header.Get("Traceparent"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q}`, strings.TrimPrefix(r.URL.Path, "/items/"))
	}))
	t.Cleanup(up.Close)
	dir := t.TempDir()
	src := fmt.Sprintf(tracedTools, up.URL, filepath.Join(dir, "db.sqlite"), extra, up.URL+"/items/{id}")
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(httpaction.New(), sqlaction.New(), execaction.New()), src, enginetest.Options{Dir: dir})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tr, err := tracing.FromEnv(tracing.Options{Version: "test", Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	opts.HTTP, opts.Tracing = true, tr
	live := server.NewLive(cfg, nil, opts)
	ts := httptest.NewServer(live.HTTPHandler())
	t.Cleanup(func() {
		ts.Close()
		_ = live.Close()
		_ = tr.Shutdown(context.Background())
	})
	return ts.URL, tr, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sent...)
	}
}

// withHeader adds a header to every request.
type withHeader struct{ name, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// tracedClient connects to url; header, when not "", is sent as the
// traceparent of every HTTP request.
func tracedClient(t *testing.T, url, header string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url + server.Path}
	if header != "" {
		tr.HTTPClient = &http.Client{Transport: withHeader{"Traceparent", header}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// attrs are a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// spansOf flushes tr and returns the spans of the trace id, by name.
func spansOf(t *testing.T, tr *tracing.Tracing, exp *tracetest.InMemoryExporter, id trace.TraceID) map[string]sdktrace.ReadOnlySpan {
	t.Helper()
	if err := tr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range exp.GetSpans().Snapshots() {
		if s.SpanContext().TraceID() == id {
			m[s.Name()] = s
		}
	}
	return m
}

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan   = "00f067aa0ba902b7"
	clientTrace2 = "5bf92f3577b34da6a3ce929d0e0e4737"
	headerTrace  = "0af7651916cd43dd8448eb211c80319c"
	headerSpan   = "b7ad6b7169203331"
	metaParent   = "00-" + clientTrace + "-" + clientSpan + "-01"
	headerParent = "00-" + headerTrace + "-" + headerSpan + "-01"
)

// TestSpans calls tools of each kind and checks their traces as a backend
// would show them: a server span per request, named and described as the
// OpenTelemetry conventions for MCP say, whose parent is the traceparent
// of the request's _meta (else of its HTTP headers), with a child span per
// upstream request, statement and program run; the upstream is sent the
// trace context; no secret and no value is recorded.
func TestSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	url, tr, sent := tracedServer(t, exp, "", server.Options{})
	cs := tracedClient(t, url, "")
	call := func(name string, args map[string]any, traceparent string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		if traceparent != "" {
			p.Meta = mcp.Meta{"traceparent": traceparent}
		}
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	traceID := func(s string) trace.TraceID { id, _ := trace.TraceIDFromHex(s); return id }

	t.Run("http", func(t *testing.T) {
		if res := call("fetch", map[string]any{"id": "a1"}, metaParent); res.IsError {
			t.Fatalf("call failed: %v", res.Content)
		}
		spans := spansOf(t, tr, exp, traceID(clientTrace))
		srv, ok := spans["tools/call fetch"]
		if !ok {
			t.Fatalf("no span tools/call fetch in the client's trace; got %v", spanNames(spans))
		}
		if srv.SpanKind() != trace.SpanKindServer || srv.Parent().SpanID().String() != clientSpan || !srv.Parent().IsRemote() {
			t.Errorf("server span: kind %v, parent %v; want server, child of the _meta traceparent", srv.SpanKind(), srv.Parent())
		}
		a := attrs(srv)
		for k, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fetch", "gen_ai.operation.name": "execute_tool", "network.transport": "tcp"} {
			if got := a[k].AsString(); got != want {
				t.Errorf("server span %s = %q, want %q", k, got, want)
			}
		}
		if v := a["mcp.protocol.version"].AsString(); !slices.Contains(server.ProtocolVersions(), v) {
			t.Errorf("server span mcp.protocol.version = %q, want one of %v", v, server.ProtocolVersions())
		}
		if a["jsonrpc.request.id"].AsString() == "" {
			t.Error("server span has no jsonrpc.request.id")
		}
		if _, failed := a["error.type"]; failed || srv.Status().Code == codes.Error {
			t.Errorf("a call that succeeded is marked failed: %v %v", a["error.type"], srv.Status())
		}
		up, ok := spans["GET"]
		if !ok {
			t.Fatalf("no span of the upstream request; got %v", spanNames(spans))
		}
		if up.Parent().SpanID() != srv.SpanContext().SpanID() || up.SpanKind() != trace.SpanKindClient {
			t.Errorf("upstream span: parent %v kind %v, want a client child of the server span", up.Parent().SpanID(), up.SpanKind())
		}
		ua := attrs(up)
		if got := ua["url.full"].AsString(); !strings.HasSuffix(got, "/items/a1") || strings.Contains(got, "?") {
			t.Errorf("url.full = %q, want the URL without its query string", got)
		}
		if ua["http.response.status_code"].AsInt64() != 200 || ua["http.request.method"].AsString() != "GET" || ua["server.address"].AsString() != "127.0.0.1" ||
			ua["url.scheme"].AsString() != "http" || ua["server.port"].AsInt64() == 0 || !strings.Contains(ua["url.full"].AsString(), fmt.Sprintf(":%d/", ua["server.port"].AsInt64())) {
			t.Errorf("upstream span attributes: %v", ua)
		}
		got := sent()
		if len(got) == 0 || got[len(got)-1] != "00-"+clientTrace+"-"+up.SpanContext().SpanID().String()+"-01" {
			t.Errorf("the upstream was sent traceparent %q, want the upstream span's", got)
		}
	})

	t.Run("http with a url of its own", func(t *testing.T) {
		const parent = "00-" + clientTrace2 + "-" + clientSpan + "-01"
		if res := call("fetch_url", map[string]any{"id": "b2"}, parent); res.IsError {
			t.Fatalf("call failed: %v", res.Content)
		}
		up, ok := spansOf(t, tr, exp, traceID(clientTrace2))["GET"]
		if !ok {
			t.Fatal("no span of the upstream request")
		}
		ua := attrs(up)
		if ua["server.address"].AsString() != "127.0.0.1" || ua["url.scheme"].AsString() != "http" || ua["server.port"].AsInt64() == 0 ||
			!strings.HasSuffix(ua["url.full"].AsString(), fmt.Sprintf(":%d/items/b2", ua["server.port"].AsInt64())) {
			t.Errorf("upstream span attributes: %v", ua)
		}
	})

	t.Run("parent from the HTTP headers", func(t *testing.T) {
		hc := tracedClient(t, url, headerParent)
		if _, err := hc.CallTool(context.Background(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 41}}); err != nil {
			t.Fatal(err)
		}
		spans := spansOf(t, tr, exp, traceID(headerTrace))
		srv, ok := spans["tools/call count"]
		if !ok {
			t.Fatalf("no span tools/call count in the header's trace; got %v", spanNames(spans))
		}
		if srv.Parent().SpanID().String() != headerSpan {
			t.Errorf("parent %v, want the HTTP traceparent's span", srv.Parent().SpanID())
		}
		st, ok := spans["SELECT db"]
		if !ok {
			t.Fatalf("no span of the statement; got %v", spanNames(spans))
		}
		sa := attrs(st)
		if sa["db.query.text"].AsString() != "SELECT ? + 1 AS n" || sa["db.system.name"].AsString() != "sqlite" || st.SpanKind() != trace.SpanKindClient {
			t.Errorf("statement span: %v", sa)
		}
		if sa["db.response.returned_rows"].AsInt64() != 1 {
			t.Errorf("returned rows %v, want 1", sa["db.response.returned_rows"])
		}
	})

	t.Run("both: _meta is the parent, the HTTP one a link", func(t *testing.T) {
		hc := tracedClient(t, url, headerParent)
		if _, err := hc.CallTool(context.Background(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 1}, Meta: mcp.Meta{"traceparent": metaParent}}); err != nil {
			t.Fatal(err)
		}
		srv := spansOf(t, tr, exp, traceID(clientTrace))["tools/call count"]
		if srv == nil {
			t.Fatal("no span in the _meta's trace")
		}
		links := srv.Links()
		if srv.Parent().SpanID().String() != clientSpan || len(links) != 1 || links[0].SpanContext.SpanID().String() != headerSpan {
			t.Errorf("parent %v, links %v; want the _meta span as parent and the header's as a link", srv.Parent().SpanID(), links)
		}
	})

	t.Run("malformed traceparent ignored", func(t *testing.T) {
		exp.Reset()
		res := call("count", map[string]any{"n": 2}, "00-nothex-00f067aa0ba902b7-01")
		if res.IsError {
			t.Fatalf("call failed: %v", res.Content)
		}
		if err := tr.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range exp.GetSpans().Snapshots() {
			if s.Name() == "tools/call count" {
				found = true
				if s.Parent().IsValid() {
					t.Errorf("a malformed traceparent became the parent: %v", s.Parent())
				}
			}
		}
		if !found {
			t.Error("no span for the call")
		}
	})

	t.Run("exec and a tool error", func(t *testing.T) {
		if res := call("fail", nil, metaParent); !res.IsError {
			t.Fatal("want a tool error")
		}
		spans := spansOf(t, tr, exp, traceID(clientTrace))
		srv, run := spans["tools/call fail"], spans["exec sh"]
		if srv == nil || run == nil {
			t.Fatalf("want the call's and the run's spans; got %v", spanNames(spans))
		}
		if a := attrs(srv); a["error.type"].AsString() != "tool_error" || srv.Status().Code != codes.Error {
			t.Errorf("server span: error.type %q, status %v; want tool_error, error", a["error.type"].AsString(), srv.Status())
		}
		ra := attrs(run)
		if ra["process.exit.code"].AsInt64() != 3 || ra["error.type"].AsString() != "exit_code" || run.Parent().SpanID() != srv.SpanContext().SpanID() {
			t.Errorf("run span: %v, parent %v", ra, run.Parent().SpanID())
		}
	})

	t.Run("a refused request", func(t *testing.T) {
		p := &mcp.CallToolParams{Name: "nope", Meta: mcp.Meta{"traceparent": metaParent}}
		if _, err := cs.CallTool(context.Background(), p); err == nil {
			t.Fatal("want an error for an unknown tool")
		}
		// Named by its method alone: the tool is not served.
		srv := spansOf(t, tr, exp, traceID(clientTrace))["tools/call"]
		if srv == nil {
			t.Fatal("no span for a refused request")
		}
		if a := attrs(srv); a["error.type"].AsString() != "-32602" || a["rpc.response.status_code"].AsString() != "-32602" || a["gen_ai.tool.name"].AsString() != "nope" {
			t.Errorf("error.type %q, rpc.response.status_code %q, gen_ai.tool.name %q; want -32602 and nope", a["error.type"].AsString(), a["rpc.response.status_code"].AsString(), a["gen_ai.tool.name"].AsString())
		}
	})

	t.Run("no values recorded by default", func(t *testing.T) {
		call("echo", map[string]any{"note": "hello", "password": "hunter2-secret"}, metaParent)
		call("fetch", map[string]any{"id": "b2"}, metaParent)
		if err := tr.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(exp.GetSpans()) == 0 {
			t.Fatal("no spans")
		}
		for _, s := range exp.GetSpans().Snapshots() {
			for _, kv := range s.Attributes() {
				v := kv.Value.Emit()
				if strings.Contains(v, "hunter2-secret") || strings.Contains(v, "the-api-key-7f3a") || strings.Contains(v, "hello") {
					t.Errorf("span %s records %s = %q", s.Name(), kv.Key, v)
				}
			}
			if strings.Contains(s.Status().Description, "hunter2-secret") || strings.Contains(s.Status().Description, "the-api-key-7f3a") {
				t.Errorf("span %s has a secret in its status: %q", s.Name(), s.Status().Description)
			}
		}
	})
}

// TestSpanValues records arguments and results as the tracing block asks,
// with the sensitive ones masked and secrets redacted.
func TestSpanValues(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	url, tr, _ := tracedServer(t, exp, "tracing {\n  arguments = true\n  results   = true\n}\n", server.Options{})
	cs := tracedClient(t, url, "")
	p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"note": "hello", "password": "hunter2-secret"}, Meta: mcp.Meta{"traceparent": metaParent}}
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	id, _ := trace.TraceIDFromHex(clientTrace)
	srv := spansOf(t, tr, exp, id)["tools/call echo"]
	if srv == nil {
		t.Fatal("no span for the call")
	}
	a := attrs(srv)
	args, result := a["gen_ai.tool.call.arguments"].AsString(), a["gen_ai.tool.call.result"].AsString()
	if !strings.Contains(args, `"note":"hello"`) || !strings.Contains(args, text.Mask) || strings.Contains(args, "hunter2") {
		t.Errorf("arguments recorded as %q, want the note and the password masked", args)
	}
	if !strings.Contains(result, "hello") || strings.Contains(result, "hunter2") {
		t.Errorf("result recorded as %q, want it with the password redacted", result)
	}
}

// TestDiscoverySpan calls a tool through discovery's call_tool: the
// request's span says which tool it called, and the tool's statement is its
// child.
func TestDiscoverySpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	url, tr, _ := tracedServer(t, exp, "", server.Options{Discovery: true})
	cs := tracedClient(t, url, "")
	p := &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "count", "arguments": map[string]any{"n": 4}}, Meta: mcp.Meta{"traceparent": metaParent}}
	if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
		t.Fatalf("call_tool: %v %v", err, res)
	}
	id, _ := trace.TraceIDFromHex(clientTrace)
	spans := spansOf(t, tr, exp, id)
	srv, st := spans["tools/call call_tool"], spans["SELECT db"]
	if srv == nil || st == nil {
		t.Fatalf("want the request's and the statement's spans, got %v", spanNames(spans))
	}
	if got := attrs(srv)["mcpdecl.discovery.tool"].AsString(); got != "count" {
		t.Errorf("mcpdecl.discovery.tool = %q, want count", got)
	}
	if st.Parent().SpanID() != srv.SpanContext().SpanID() {
		t.Errorf("the statement's span is not a child of the request's")
	}
}

// spanNames are the names of spans, for messages.
func spanNames(spans map[string]sdktrace.ReadOnlySpan) []string {
	var out []string
	for n := range spans {
		out = append(out, n)
	}
	return out
}

// TestSpansOfUnknownNames: what a client names that the server does not
// serve (a tool, a prompt), and whatever else of its request a span
// records (the JSON-RPC id, a URI), cannot make span names without bound
// nor attributes of any size: a request for an unknown tool or prompt is
// named by its method alone, and each value taken from a request is cut at
// 256 bytes, on a character boundary.
func TestSpansOfUnknownNames(t *testing.T) {
	const maxValue = 256 + len("…")
	exp := tracetest.NewInMemoryExporter()
	url, tr, _ := tracedServer(t, exp, "", server.Options{})
	cs := tracedClient(t, url, "")
	if err := tr.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	exp.Reset() // the spans of connecting
	ended := func(t *testing.T) []sdktrace.ReadOnlySpan {
		t.Helper()
		if err := tr.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		spans := exp.GetSpans().Snapshots()
		exp.Reset()
		for _, s := range spans {
			for _, kv := range s.Attributes() {
				if v := kv.Value.Emit(); len(v) > maxValue || !utf8.ValidString(v) {
					t.Errorf("span %.40q: %s is %d bytes (valid UTF-8: %v), want at most %d", s.Name(), kv.Key, len(v), utf8.ValidString(v), maxValue)
				}
			}
			if d := s.Status().Description; len(d) > 4096+len("…") {
				t.Errorf("span %.40q: its status is %d bytes", s.Name(), len(d))
			}
		}
		return spans
	}
	names := func(spans []sdktrace.ReadOnlySpan) []string {
		var out []string
		for _, s := range spans {
			out = append(out, s.Name())
		}
		return out
	}

	t.Run("unknown tools", func(t *testing.T) {
		for i := range 3 {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: fmt.Sprintf("zz_unknown_%d", i)}); err == nil {
				t.Fatal("want an error for an unknown tool")
			}
		}
		if got := names(ended(t)); !slices.Equal(got, []string{"tools/call", "tools/call", "tools/call"}) {
			t.Errorf("spans %q, want three named tools/call", got)
		}
	})

	t.Run("a long unknown tool name", func(t *testing.T) {
		long := strings.Repeat("é", 50000) // 100 KB; cut on a character boundary
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: long}); err == nil {
			t.Fatal("want an error for an unknown tool")
		}
		spans := ended(t)
		if len(spans) != 1 || spans[0].Name() != "tools/call" {
			t.Fatalf("spans %.80q, want one named tools/call", names(spans))
		}
		if got := attrs(spans[0])["gen_ai.tool.name"].AsString(); !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) || len(got) < 200 {
			t.Errorf("gen_ai.tool.name = %.40q… (%d bytes), want the start of the name", got, len(got))
		}
	})

	t.Run("a long JSON-RPC id", func(t *testing.T) {
		id := strings.Repeat("7", 5000)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}`, id)
		req, err := http.NewRequest(http.MethodPost, url+server.Path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("tools/call: %d", resp.StatusCode)
		}
		var srv sdktrace.ReadOnlySpan
		for _, s := range ended(t) {
			if s.Name() == "tools/call count" {
				srv = s
			}
		}
		if srv == nil {
			t.Fatal("no span tools/call count")
		}
		if got := attrs(srv)["jsonrpc.request.id"].AsString(); !strings.HasPrefix(got, "777") {
			t.Errorf("jsonrpc.request.id = %.40q, want the start of the id", got)
		}
	})

	t.Run("a long URI and an unknown prompt", func(t *testing.T) {
		_, _ = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///" + strings.Repeat("a", 10000)})
		_, _ = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: strings.Repeat("p", 10000)})
		got := names(ended(t))
		slices.Sort(got)
		if !slices.Equal(got, []string{"prompts/get", "resources/read"}) {
			t.Errorf("spans %.80q, want prompts/get and resources/read", got)
		}
	})
}
