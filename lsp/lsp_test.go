package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/adapters"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/lsp"
)

func registry() *engine.Registry {
	return adapters.Registry()
}

// client is an LSP client on one end of a pipe, the server on the other.
type client struct {
	t     *testing.T
	conn  *jsonrpc2.Conn
	done  chan struct{}
	mu    sync.Mutex
	diags map[protocol.DocumentUri][]chan []protocol.Diagnostic
	last  map[protocol.DocumentUri][]protocol.Diagnostic
	vers  map[protocol.DocumentUri]protocol.UInteger // of the last diagnostics
	seen  chan protocol.DocumentUri
}

func start(t *testing.T, root string) *client {
	t.Helper()
	return startWith(t, root, map[string]any{})
}

// startWith starts a server for a client with caps.
func startWith(t *testing.T, root string, caps map[string]any) *client {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	c := &client{t: t, done: make(chan struct{}), last: map[protocol.DocumentUri][]protocol.Diagnostic{}, vers: map[protocol.DocumentUri]protocol.UInteger{}, seen: make(chan protocol.DocumentUri, 1000)}
	go func() {
		defer close(c.done)
		_ = lsp.Serve(context.Background(), serverEnd, lsp.Options{
			Registry:  registry(),
			LookupEnv: func(string) (string, bool) { return "", false },
			Debounce:  10 * time.Millisecond,
			Version:   "test",
		})
		serverEnd.Close()
	}()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(clientEnd, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*req.Params, &p); err != nil {
					t.Errorf("publishDiagnostics: %v", err)
				}
				c.mu.Lock()
				c.last[p.URI] = p.Diagnostics
				if p.Version != nil {
					c.vers[p.URI] = *p.Version
				}
				c.mu.Unlock()
				c.seen <- p.URI
			}
			return nil, nil
		}))
	t.Cleanup(func() { c.conn.Close() })
	var init protocol.InitializeResult
	c.call(protocol.MethodInitialize, map[string]any{"processId": nil, "rootUri": uri(root), "capabilities": caps}, &init)
	if init.ServerInfo == nil || init.ServerInfo.Name != "mcpdecl" {
		t.Fatalf("initialize: server info %+v", init.ServerInfo)
	}
	if err := c.conn.Notify(context.Background(), protocol.MethodInitialized, protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.conn.Call(context.Background(), method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// waitVersion waits for the diagnostics of version v of u, or a later.
func (c *client) waitVersion(u protocol.DocumentUri, v protocol.UInteger) {
	c.t.Helper()
	for {
		c.mu.Lock()
		got := c.vers[u]
		c.mu.Unlock()
		if got >= v {
			return
		}
		<-c.seen
	}
}

// waitDiagnostics waits for the diagnostics of u that satisfy ok.
func (c *client) waitDiagnostics(u protocol.DocumentUri, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	for {
		c.mu.Lock()
		d, published := c.last[u]
		c.mu.Unlock()
		if published && ok(d) {
			return d
		}
		<-c.seen
	}
}

func uri(path string) protocol.DocumentUri {
	return protocol.DocumentUri("file://" + filepath.ToSlash(path))
}

// messageContaining reports whether one of diags has words in its message.
func messageContaining(words string) func([]protocol.Diagnostic) bool {
	return func(diags []protocol.Diagnostic) bool {
		return slices.ContainsFunc(diags, func(d protocol.Diagnostic) bool { return strings.Contains(d.Message, words) })
	}
}

const config = `server {
  name    = "weather"
  verison = "1.0.0"
}

variable "base_url" {
  type        = string
  default     = "https://api.example.com/v1"
  description = "Where the weather API lives."
}

variable "api_key" {
  type      = string
  default   = "s3cr3t-token-value"
  sensitive = true
}

locals {
  region = "eu"
}

http_api "weather" {
  base_url = var.base_url
}

tool "get_weather" {
  description = "Current weather for a city."

  arg "city" {
    type        = string
    description = "City name"
  }
  arg "units" {
    type    = string
    default = "metric"
  }

  http {
    api    = http_api.weather
    method = "GET"
    path   = "/weather/{city}"
    path_params = { city = expr("args.city") }
    headers = { Authorization = "Bearer ${var.api_key}", Region = local.region }
  }
}
`

// at is the position of the first occurrence of what in text, plus n
// characters.
func at(t *testing.T, text, what string, n int) protocol.Position {
	t.Helper()
	i := strings.Index(text, what)
	if i < 0 {
		t.Fatalf("%q is not in the text", what)
	}
	i += n
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndexByte(text[:i], '\n') + 1)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

func labels(t *testing.T, c *client, u protocol.DocumentUri, pos protocol.Position) []string {
	t.Helper()
	var list protocol.CompletionList
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &list)
	var out []string
	for _, item := range list.Items {
		out = append(out, item.Label)
	}
	return out
}

func TestEditorSession(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "weather.hcl")
	// On disk, the file is valid; the buffer has a typo.
	if err := os.WriteFile(path, []byte(strings.Replace(config, "verison", "version", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir)
	u := uri(path)
	text := config
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "hcl", Version: 1, Text: text}})

	// Diagnostics: validate's, of the buffer, at the typo.
	diags := c.waitDiagnostics(u, messageContaining(`Did you mean "version"?`))
	typo := diags[slices.IndexFunc(diags, func(d protocol.Diagnostic) bool { return strings.Contains(d.Message, "verison") })]
	if want := (protocol.Range{Start: at(t, text, "verison", 0), End: at(t, text, "verison", 7)}); typo.Range != want {
		t.Errorf("the typo's range is %+v, want %+v", typo.Range, want)
	}
	sameAsValidate(t, dir, text, diags)
	for _, d := range diags {
		if strings.Contains(d.Message, "s3cr3t") {
			t.Errorf("a diagnostic shows the secret: %s", d.Message)
		}
	}

	// The code action takes the suggestion.
	var actions []protocol.CodeAction
	c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: typo.Range,
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{typo}},
	}, &actions)
	if len(actions) != 1 || actions[0].Edit == nil || len(actions[0].Edit.Changes[u]) != 1 {
		t.Fatalf("code actions: %+v", actions)
	}
	edit := actions[0].Edit.Changes[u][0]
	if edit.NewText != "version" || edit.Range != typo.Range {
		t.Errorf("the fix is %+v, want version over the typo", edit)
	}
	text = strings.Replace(text, "verison", "version", 1)
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEvent{Range: &typo.Range, Text: "version"}},
	})
	c.waitDiagnostics(u, func(d []protocol.Diagnostic) bool { return !messageContaining("verison")(d) })

	// Completion: references, arguments inside expr, attributes, enum values.
	if got := labels(t, c, u, at(t, text, "var.base_url", 4)); !slices.Equal(got, []string{"api_key", "base_url"}) {
		t.Errorf("completion after var.: %v", got)
	}
	if got := labels(t, c, u, at(t, text, `expr("args.city`, 11)); !slices.Equal(got, []string{"city", "units"}) {
		t.Errorf(`completion after expr("args.: %v`, got)
	}
	if got := labels(t, c, u, at(t, text, "  version", 0)); !slices.Contains(got, "instructions") || slices.Contains(got, "name") {
		t.Errorf("completion in server: %v (want instructions, and not name, written already)", got)
	}
	if got := labels(t, c, u, at(t, text, "sensitive = true", 12)); !slices.Equal(got, []string{"true", "false"}) {
		t.Errorf("completion of a bool: %v", got)
	}
	if got := labels(t, c, u, protocol.Position{}); !slices.Contains(got, "tool") || !slices.Contains(got, "http_api") {
		t.Errorf("completion at the top: %v", got)
	}
	withLevel := strings.Replace(text, `  version = "1.0.0"`, `  version = "1.0.0"`+"\n  log_level = ", 1)
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 3},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: withLevel}},
	})
	if got := labels(t, c, u, at(t, withLevel, "log_level = ", 12)); !slices.Contains(got, "debug") || !slices.Contains(got, "error") {
		t.Errorf("completion of log_level's values: %v", got)
	}
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 4},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}},
	})

	// Hover: an attribute's spec; a variable, its secret hidden.
	hover := func(pos protocol.Position) string {
		var h *protocol.Hover
		c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &h)
		if h == nil {
			return ""
		}
		b, _ := json.Marshal(h.Contents)
		var m protocol.MarkupContent
		_ = json.Unmarshal(b, &m)
		return m.Value
	}
	if got := hover(at(t, text, "name    =", 1)); !strings.Contains(got, "**name**") || !strings.Contains(got, "server") {
		t.Errorf("hover on name: %q", got)
	}
	got := hover(at(t, text, "var.api_key", 6))
	if !strings.Contains(got, "(sensitive)") || strings.Contains(got, "s3cr3t") {
		t.Errorf("hover on var.api_key: %q", got)
	}
	got = hover(at(t, text, `variable "api_key"`, 11))
	if !strings.Contains(got, "**var.api_key** (string) (sensitive)") || strings.Contains(got, "s3cr3t") {
		t.Errorf("hover on the variable api_key where it is declared: %q", got)
	}
	if got := hover(at(t, text, `expr("args.city`, 12)); !strings.Contains(got, "**args.city** (string)") || !strings.Contains(got, "City name") {
		t.Errorf("hover on args.city: %q", got)
	}
	if got := hover(at(t, text, "var.base_url", 6)); !strings.Contains(got, "Where the weather API lives.") || !strings.Contains(got, "https://api.example.com/v1") {
		t.Errorf("hover on var.base_url: %q", got)
	}

	// Go to definition.
	var loc protocol.Location
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, "http_api.weather", 10)}}, &loc)
	if want := at(t, text, `http_api "weather"`, 9); loc.URI != u || loc.Range.Start != want {
		t.Errorf("definition of http_api.weather: %+v, want %s at %+v", loc, u, want)
	}
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, "local.region", 7)}}, &loc)
	if want := at(t, text, `region = "eu"`, 0); loc.URI != u || loc.Range.Start != want {
		t.Errorf("definition of local.region: %+v, want %s at %+v", loc, u, want)
	}
	var refs []protocol.Location
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, `variable "api_key"`, 0)},
	}, &refs)
	if len(refs) != 0 {
		t.Errorf("references from a block header: %+v", refs)
	}
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, "var.base_url", 5)},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
	}, &refs)
	if len(refs) != 2 || refs[0].Range.Start != at(t, text, `variable "base_url"`, 9) || refs[1].Range.Start != at(t, text, "var.base_url", 0) {
		t.Errorf("references of var.base_url: %+v", refs)
	}
	if got := labels(t, c, u, at(t, text, "local.region", 6)); !slices.Equal(got, []string{"region"}) {
		t.Errorf("completion after local.: %v", got)
	}

	// The outline.
	var symbols []protocol.DocumentSymbol
	c.call(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &symbols)
	i := slices.IndexFunc(symbols, func(s protocol.DocumentSymbol) bool { return s.Name == "get_weather" })
	if i < 0 || symbols[i].Kind != protocol.SymbolKindFunction || len(symbols[i].Children) != 2 {
		t.Errorf("symbols: %+v", symbols)
	}

	// Formatting, as mcpdecl fmt does.
	var edits []protocol.TextEdit
	c.call(protocol.MethodTextDocumentFormatting, protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}, &edits)
	if want := string(hclwrite.Format([]byte(text))); want == text || len(edits) != 1 || edits[0].NewText != want {
		t.Errorf("formatting: %+v", edits)
	}

	// An unknown method is an error, and the server goes on.
	err := c.conn.Call(context.Background(), "mcpdecl/unknown", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Errorf("an unknown method: %v", err)
	}

	// A test file: the diagnostics mcpdecl test gives before it runs.
	tu := uri(filepath.Join(dir, "weather.test.hcl"))
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: tu, Version: 1, Text: `config = "weather.hcl"

test "paris" {
  tool = "get_weather"
  argz = { city = "Paris" }
  assert {
    condition = expr("args.ctiy == 'Paris'")
  }
}
`}})
	td := c.waitDiagnostics(tu, func(d []protocol.Diagnostic) bool { return len(d) == 2 })
	if !strings.Contains(td[0].Message, `Did you mean "args"?`) || !strings.Contains(td[1].Message, "Did you mean args.city?") {
		t.Errorf("the test file's diagnostics: %+v", td)
	}

	c.call(protocol.MethodShutdown, nil, nil)
	c.notify(protocol.MethodExit, nil)
	<-c.done
}

// sameAsValidate checks that diags are those validate gives for the same
// text on disk.
func sameAsValidate(t *testing.T, dir, text string, diags []protocol.Diagnostic) {
	t.Helper()
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "weather.hcl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, want := load.Load(load.Options{Registry: registry(), LookupEnv: func(string) (string, bool) { return "", false }}, other)
	if len(want) != len(diags) {
		t.Fatalf("%d diagnostics, validate gives %d: %v", len(diags), len(want), diags)
	}
	for i, w := range want {
		msg := w.Summary
		if w.Detail != "" {
			msg += ": " + w.Detail
		}
		msg = strings.ReplaceAll(msg, other, dir)
		if diags[i].Message != msg || diags[i].Range.Start.Line != uint32(w.Subject.Start.Line-1) || diags[i].Range.Start.Character != uint32(w.Subject.Start.Column-1) {
			t.Errorf("diagnostic %d: %q at %+v, validate says %q at %d:%d", i, diags[i].Message, diags[i].Range.Start, msg, w.Subject.Start.Line, w.Subject.Start.Column)
		}
	}
}

// hoverText is the Markdown of the hover at pos in u, "" for none.
func (c *client) hoverText(u protocol.DocumentUri, pos protocol.Position) string {
	c.t.Helper()
	var h *protocol.Hover
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &h)
	if h == nil {
		return ""
	}
	b, _ := json.Marshal(h.Contents)
	var m protocol.MarkupContent
	_ = json.Unmarshal(b, &m)
	return m.Value
}

// items are the completion items at pos in u.
func (c *client) items(u protocol.DocumentUri, pos protocol.Position) []protocol.CompletionItem {
	c.t.Helper()
	var list protocol.CompletionList
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &list)
	return list.Items
}

// open opens the file at path with text, and waits for its diagnostics.
func (c *client) open(path, text string) protocol.DocumentUri {
	c.t.Helper()
	u := uri(path)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "hcl", Version: 1, Text: text}})
	c.waitDiagnostics(u, func([]protocol.Diagnostic) bool { return true })
	return u
}

// detail is the detail of the item labelled label, "" when there is none.
func detail(items []protocol.CompletionItem, label string) (string, bool) {
	for _, it := range items {
		if it.Label == label {
			if it.Detail == nil {
				return "", true
			}
			return *it.Detail, true
		}
	}
	return "", false
}

const programs = `server {
  name    = "shop"
  version = "1.0.0"
}

http_api "shop" {
  base_url = "https://shop.example.com"
}

database "stock" {
  driver = "sqlite"
  dsn    = "file:stock.db"
}

tool "lookup" {
  description = "Looks a product up."
  arg "sku" {
    type        = string
    description = "The product's code"
  }
  arg "count" {
    type = number
  }
  http {
    api  = http_api.shop
    path        = "/products/{sku}"
    path_params = { sku = expr("args.sku") }
  }
  output "price" {
    type  = number
    value = expr("body.price")
  }
  text = expr("upper(args.sku) + ' ' + caller.sub")
}

tool "restock" {
  description = "Restocks what is low."
  step "low" {
    sql {
      database = database.stock
      query    = "SELECT sku FROM stock WHERE n < 3"
    }
  }
  step "order" {
    for_each  = expr("steps.low.rows")
    max_items = 10
    http {
      api  = http_api.shop
      path        = "/order/{sku}"
      path_params = { sku = expr("each.value.sku") }
    }
  }
  text = expr("string(len(steps.order))")
}

toolset "reading" {
  tools = ["lookup", "rest*"]
}
`

// Inside expr("…"), completion offers what the program may read there,
// as the load compiled it, with the types; hover gives a path's type and
// the program's result type.
func TestProgramCompletion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.hcl")
	if err := os.WriteFile(path, []byte(programs), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, dir)
	u := c.open(path, programs)
	text := programs

	// At the start of a tool's text: its variables, the action's result,
	// expr's builtins and mcpdecl's functions.
	items := c.items(u, at(t, text, `text = expr("upper`, len(`text = expr("`)))
	for _, want := range []string{"args", "body", "status", "headers", "content_type", "caller", "upper", "len", "urlencode", "pathescape", "compact"} {
		if _, ok := detail(items, want); !ok {
			t.Errorf("completion at the start of text: no %s in %v", want, labelsOf(items))
		}
	}
	if d, _ := detail(items, "urlencode"); d != "func(string) string" {
		t.Errorf("urlencode's detail: %q", d)
	}
	if d, _ := detail(items, "status"); d != "int" {
		t.Errorf("status's detail: %q", d)
	}
	// The http block's programs run before the response: no body there.
	items = c.items(u, at(t, text, `sku = expr("args.sku")`, len(`sku = expr("`)))
	if _, ok := detail(items, "body"); ok {
		t.Errorf("completion in the request's path offers body: %v", labelsOf(items))
	}
	// args. with the declared types; caller. with its fields.
	items = c.items(u, at(t, text, `args.sku) + ' '`, len("args.")))
	if d, _ := detail(items, "count"); !slices.Equal(labelsOf(items), []string{"count", "sku"}) || d != "number" {
		t.Errorf("completion after args.: %v (count: %q)", labelsOf(items), d)
	}
	if got := labelsOf(c.items(u, at(t, text, `caller.sub`, len("caller.")))); !slices.Equal(got, []string{"authenticated", "claims", "id", "scopes", "sub"}) {
		t.Errorf("completion after caller.: %v", got)
	}
	// In a multi-step tool: steps.<name>. and each.
	if got := labelsOf(c.items(u, at(t, text, `steps.low.rows`, len("steps.low.")))); !slices.Contains(got, "rows") || !slices.Contains(got, "rows_affected") {
		t.Errorf("completion after steps.low.: %v", got)
	}
	if got := labelsOf(c.items(u, at(t, text, `steps.low.rows`, len("steps.")))); !slices.Equal(got, []string{"low"}) {
		t.Errorf("completion after steps. in the second step: %v", got)
	}
	if got := labelsOf(c.items(u, at(t, text, `each.value.sku`, len("each.")))); !slices.Equal(got, []string{"index", "value"}) {
		t.Errorf("completion after each.: %v", got)
	}
	if got := labelsOf(c.items(u, at(t, text, `steps.order))`, len("steps.")))); !slices.Equal(got, []string{"low", "order"}) {
		t.Errorf("completion after steps. in the tool's text: %v", got)
	}

	// Typed since the last load: the block's neighbours tell.
	edited := strings.Replace(text, `  text = expr("upper(args.sku) + ' ' + caller.sub")`, `  text = expr("upper(args.sku) + ' ' + caller.sub")`+"\n  error_if = expr(\"caller.", 1)
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: edited}},
	})
	if got := labelsOf(c.items(u, at(t, edited, `error_if = expr("caller.`, len(`error_if = expr("caller.`)))); !slices.Contains(got, "sub") {
		t.Errorf("completion after caller. in a program typed since the load: %v", got)
	}
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 3},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}},
	})
	// The syntax error's parse gone (the parse of an edit is the last load's).
	c.waitVersion(u, 3)

	// Hover: what a path reads, and what the program yields.
	if got := c.hoverText(u, at(t, text, `upper(args.sku)`, 1)); !strings.Contains(got, "yields string") {
		t.Errorf("hover on a text program: %q", got)
	}
	if got := c.hoverText(u, at(t, text, `caller.sub")`, 8)); !strings.Contains(got, "`caller.sub`: string") {
		t.Errorf("hover on caller.sub: %q", got)
	}
	if got := c.hoverText(u, at(t, text, `args.sku) + ' '`, 6)); !strings.Contains(got, "**args.sku** (string)") || !strings.Contains(got, "The product's code") || !strings.Contains(got, "yields string") {
		t.Errorf("hover on args.sku: %q", got)
	}
	if got := c.hoverText(u, at(t, text, `arg "sku"`, 6)); !strings.Contains(got, "**args.sku** (string)") || !strings.Contains(got, "The product's code") ||
		!strings.Contains(got, "Its JSON Schema:\n```json\n{\n  \"description\": \"The product's code\",\n  \"type\": \"string\"\n}\n```") {
		t.Errorf("hover on an arg's name: %q", got)
	}
	if got := c.hoverText(u, at(t, text, `string(len(steps.order))`, 2)); !strings.Contains(got, "yields string") {
		t.Errorf("hover on the steps tool's text: %q", got)
	}

	// A test's assertions read the tool's result: its outputs, typed.
	testText := `config = "shop.hcl"

mock "http_api" "shop" {
  response {
    body = { price = 3 }
  }
}

test "lookup" {
  tool = "lookup"
  args = { sku = "A1" }
  assert {
    condition = expr("structured.price > 0 && args.sku != ''")
  }
}
`
	tu := c.open(filepath.Join(dir, "shop.test.hcl"), testText)
	if got := labelsOf(c.items(tu, at(t, testText, "structured.price", len("structured.")))); !slices.Equal(got, []string{"price"}) {
		t.Errorf("completion after structured. in an assertion: %v", got)
	}
	if got := labelsOf(c.items(tu, at(t, testText, "args.sku !=", len("args.")))); !slices.Equal(got, []string{"count", "sku"}) {
		t.Errorf("completion after args. in an assertion: %v", got)
	}
	if got := c.hoverText(tu, at(t, testText, "structured.price", 12)); !strings.Contains(got, "`structured.price`: number") || !strings.Contains(got, "yields bool") {
		t.Errorf("hover on structured.price: %q", got)
	}

	// Tools, prompts and mocks' targets by name: completion, definition,
	// references.
	if got := labelsOf(c.items(tu, at(t, testText, `tool = "lookup"`, len(`tool = "`)))); !slices.Equal(got, []string{"lookup", "restock"}) {
		t.Errorf("completion of a test's tool: %v", got)
	}
	if got := labelsOf(c.items(tu, at(t, testText, `mock "http_api" "shop"`, len(`mock "http_api" "`)))); !slices.Equal(got, []string{"shop"}) {
		t.Errorf("completion of a mock's http_api: %v", got)
	}
	if got := labelsOf(c.items(u, at(t, text, `"rest*"]`, 1))); !slices.Equal(got, []string{"lookup", "restock"}) {
		t.Errorf("completion in a toolset's tools: %v", got)
	}
	definition := func(u protocol.DocumentUri, pos protocol.Position) []protocol.Location {
		var raw json.RawMessage
		c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}}, &raw)
		var one protocol.Location
		if err := json.Unmarshal(raw, &one); err == nil && one.URI != "" {
			return []protocol.Location{one}
		}
		var many []protocol.Location
		_ = json.Unmarshal(raw, &many)
		return many
	}
	if locs := definition(tu, at(t, testText, `tool = "lookup"`, 9)); len(locs) != 1 || locs[0].URI != u || locs[0].Range.Start != at(t, text, `tool "lookup"`, 5) {
		t.Errorf("definition of a test's tool: %+v", locs)
	}
	if locs := definition(tu, at(t, testText, `"shop" {`, 2)); len(locs) != 1 || locs[0].URI != u || locs[0].Range.Start != at(t, text, `http_api "shop"`, 9) {
		t.Errorf("definition of a mock's target: %+v", locs)
	}
	if locs := definition(u, at(t, text, `"rest*"`, 2)); len(locs) != 1 || locs[0].Range.Start != at(t, text, `tool "restock"`, 5) {
		t.Errorf("definition of a toolset's pattern: %+v", locs)
	}
	var refs []protocol.Location
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, `tool "lookup"`, 7)},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
	}, &refs)
	if len(refs) != 3 || refs[0].Range.Start != at(t, text, `tool "lookup"`, 5) || refs[1].Range.Start != at(t, text, `"lookup", "rest*"`, 1) || refs[2].URI != tu || refs[2].Range.Start != at(t, testText, `tool = "lookup"`, 8) {
		t.Errorf("references of tool lookup: %+v", refs)
	}
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(t, text, `api  = http_api.shop`, 17)},
	}, &refs)
	if len(refs) != 3 || refs[2].URI != tu || refs[2].Range.Start != at(t, testText, `"shop" {`, 1) {
		t.Errorf("references of http_api.shop: %+v", refs)
	}
}

func labelsOf(items []protocol.CompletionItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	return out
}

// expand is the text a snippet inserts when each placeholder keeps its
// default.
func expand(snippet string) string {
	var out strings.Builder
	depth := 0
	for i := 0; i < len(snippet); i++ {
		switch c := snippet[i]; {
		case c == '\\' && i+1 < len(snippet):
			i++
			out.WriteByte(snippet[i])
		case c == '$' && i+1 < len(snippet) && snippet[i+1] == '{':
			j := i + 2
			for j < len(snippet) && snippet[j] >= '0' && snippet[j] <= '9' {
				j++
			}
			if j < len(snippet) && snippet[j] == ':' {
				j++
			}
			depth++
			i = j - 1
		case c == '$' && i+1 < len(snippet) && snippet[i+1] >= '0' && snippet[i+1] <= '9':
			i++
		case c == '}' && depth > 0:
			depth-- // the end of a placeholder
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

// Snippets, for a client that takes them: a block as its spec's example
// shows it, and whole blocks at the top of a file.
func TestSnippets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.hcl")
	if err := os.WriteFile(path, []byte(programs), 0o644); err != nil {
		t.Fatal(err)
	}
	caps := map[string]any{"textDocument": map[string]any{"completion": map[string]any{"completionItem": map[string]any{"snippetSupport": true}}}}
	c := startWith(t, dir, caps)
	u := c.open(path, programs)
	snippet := func(items []protocol.CompletionItem, label string) string {
		t.Helper()
		for _, it := range items {
			if it.Label == label {
				if it.InsertTextFormat == nil || *it.InsertTextFormat != protocol.InsertTextFormatSnippet || it.InsertText == nil {
					t.Fatalf("%s is not a snippet: %+v", label, it)
				}
				return *it.InsertText
			}
		}
		t.Fatalf("no %s in %v", label, labelsOf(items))
		return ""
	}
	top := c.items(u, protocol.Position{})
	whole := snippet(top, "tool with http")
	text := expand(whole)
	for _, want := range []string{`tool "echo" {`, `description = "Says the message back."`, `arg "units" {`, "http {", `path        = "/forecast/{city}"`, `output "greeting" {`} {
		if !strings.Contains(text, want) {
			t.Errorf("the tool snippet, expanded, has no %q:\n%s\n(snippet: %s)", want, text, whole)
		}
	}
	// Inserted as it comes next to the http_api its example names, it
	// validates: its parts read what the others declare.
	whole2 := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(whole2, []byte("http_api \"weather\" {\n  base_url = \"https://api.example.com\"\n}\n"+text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, diags := load.Load(load.Options{Registry: registry(), LookupEnv: func(string) (string, bool) { return "", false }}, whole2); len(diags) > 0 {
		t.Errorf("the tool snippet, expanded next to its http_api, does not validate: %v\n%s", diags, text)
	}
	if !strings.Contains(whole, `"${1:echo}"`) {
		t.Errorf("the tool's name is not the first placeholder: %s", whole)
	}
	// In a tool, an arg block as its example shows it.
	arg := expand(snippet(c.items(u, at(t, programs, "  arg \"sku\"", 0)), "arg"))
	if !strings.HasPrefix(arg, `arg "units" {`) || !strings.Contains(arg, `enum        = ["metric", "imperial"]`) {
		t.Errorf("the arg snippet, expanded: %s", arg)
	}

	// In a test file: a test with a mock.
	tu := c.open(filepath.Join(dir, "shop.test.hcl"), "\n")
	test := expand(snippet(c.items(tu, protocol.Position{}), "test with mock"))
	for _, want := range []string{`test "paris" {`, `tool = "get_weather"`, `mock "http_api" "weather" {`, "response {", "assert {"} {
		if !strings.Contains(test, want) {
			t.Errorf("the test snippet, expanded, has no %q:\n%s", want, test)
		}
	}
	if _, diags := hclsyntax.ParseConfig([]byte(test), "snippet.test.hcl", hcl.InitialPos); diags.HasErrors() {
		t.Errorf("the test snippet, expanded, does not parse: %v\n%s", diags, test)
	}

	// A client without snippets gets none.
	plain := start(t, dir)
	pu := plain.open(path, programs)
	for _, it := range plain.items(pu, protocol.Position{}) {
		if it.InsertTextFormat != nil && *it.InsertTextFormat == protocol.InsertTextFormatSnippet {
			t.Errorf("a snippet for a client without snippets: %+v", it)
		}
	}
}
