package openapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// TestResourceSelection checks which operations become resources: those
// --resources names (operationIds, tool names, paths, globs), or whose
// x-mcp-resource is true, and only GETs a URI can carry; the others stay
// tools, each saying why.
func TestResourceSelection(t *testing.T) {
	tests := []struct {
		name, resources, templates string
		sel                        []string
	}{
		{"none", "", "", nil},
		{"all", "list_books export_stats", "get_book get_cover search_books", []string{"*"}},
		{"path glob", "", "get_book get_cover", []string{"/books/*"}},
		{"operationId and tool name", "export_stats", "search_books", []string{"searchBooks", "export_*"}},
		// x-mcp-resource: false wins over the selection.
		{"kept a tool", "", "", []string{"getMember", "/members/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A toolset per tag: of the tools (catalogue has none).
			res, err := importFile(t, "library.yaml", Options{Resources: tt.sel, Toolsets: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Resources, " "); got != tt.resources {
				t.Errorf("resources = %q, want %q", got, tt.resources)
			}
			if got := strings.Join(res.Templates, " "); got != tt.templates {
				t.Errorf("templates = %q, want %q", got, tt.templates)
			}
			if len(res.Imported) != 9 {
				t.Errorf("imported = %v, want all 9 operations", res.Imported)
			}
			// What is written loads, as import checks before writing.
			paths, err := writeFiles(t.TempDir(), res.Files)
			if err != nil {
				t.Fatal(err)
			}
			cfg, diags := loadFiles(paths, nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			defer cfg.Close()
			if len(cfg.Resources) != len(res.Resources) || len(cfg.Templates) != len(res.Templates) {
				t.Errorf("loaded %d resources and %d templates", len(cfg.Resources), len(cfg.Templates))
			}
		})
	}

	res, err := importFile(t, "library.yaml", Options{Resources: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	main := string(res.Files[0].Data)
	for _, want := range []string{
		"# Note: x-mcp-resource is for GET operations; a POST stays a tool.\ntool \"add_book\"",
		"# Note: not a resource: it needs the header \"X-Librarian\", which a URI does not carry.\ntool \"list_loans\"",
		"# Note: not a resource: its response is application/pdf, which the http action returns as text only when it is an image or audio.\ntool \"get_scan\"",
		"# Note: left out the optional query parameter \"limit\": a resource is read at one URI, so the upstream's defaults apply.\n" +
			"# Note: left out the optional header \"X-Trace\": a URI carries no headers.\nresource \"list_books\"",
		"# Note: left out the optional query parameters \"fields\" and \"year\": a variable of a URI template holds one plain value.\nresource_template \"search_books\"",
	} {
		if !strings.Contains(main, want) {
			t.Errorf("the file lacks %q", want)
		}
	}
}

// TestResourceOverlay marks an operation as a resource with an overlay's
// x-mcp-resource, without --resources.
func TestResourceOverlay(t *testing.T) {
	p := filepath.Join("testdata", "library.yaml")
	data, _ := ReadFile(p)
	spec, err := Parse(data, p, ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	overlay := `overlay: 1.0.0
info: {title: Resources, version: "1"}
actions:
  - target: $.paths['/books/{isbn}'].get
    update: {x-mcp-resource: true}
  - target: $.paths['/stats.csv'].get
    update: {x-mcp-resource: "yes"}
`
	if _, err := spec.ApplyOverlay([]byte(overlay), "resources.yaml"); err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 0 || strings.Join(res.Templates, " ") != "get_book" {
		t.Errorf("resources %v, templates %v; want the template get_book alone", res.Resources, res.Templates)
	}
	if main := string(res.Files[0].Data); !strings.Contains(main, "# Note: ignored x-mcp-resource: it is neither true nor false.\ntool \"export_stats\"") {
		t.Errorf("a value of x-mcp-resource that is not a boolean is not noted:\n%s", main)
	}
}

// TestResourceURIs checks the URIs made of paths: RFC 6570 literals
// escaped, a fixed path parameter written in, renamed placeholders; two
// operations with one URI make one resource, the other stays a tool.
func TestResourceURIs(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: Odd Paths, version: "1"}
servers: [{url: "https://odd.example.com"}]
paths:
  /a b/{item-id}:
    get:
      operationId: spaced
      parameters: [{name: item-id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /v/{version}/x:
    get:
      operationId: fixed
      parameters: [{name: version, in: path, required: true, schema: {type: string, enum: ["2"]}}]
      responses: {"200": {description: ok}}
  /#Action=One:
    get:
      operationId: one
      responses: {"200": {description: ok}}
  /#Action=Two:
    get:
      operationId: two
      responses: {"200": {description: ok}}
  /#Action=Find:
    get:
      operationId: find
      parameters: [{name: name, in: query, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /x#X-Target=One:
    get:
      operationId: x_one
      responses: {"200": {description: ok}}
  /x#X-Target=Two:
    get:
      operationId: x_two
      responses: {"200": {description: ok}}
`
	spec, err := Parse([]byte(doc), "odd.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{Resources: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	main := string(res.Files[0].Data)
	for _, want := range []string{
		`uri_template = "odd-paths://a%20b/{item_id}"`,
		`uri         = "odd-paths://v/2/x"`,
		`uri         = "odd-paths://?Action=One"`,
		`uri         = "odd-paths://?Action=Two"`,
		`uri_template = "odd-paths://?Action=Find{&name}"`,
		`uri         = "odd-paths://x"`,
		"# Note: not a resource: its URI odd-paths://x is already another resource's.\ntool \"x_two\"",
	} {
		if !strings.Contains(main, want) {
			t.Errorf("the file lacks %q:\n%s", want, main)
		}
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer cfg.Close()
	if r, tm := cfg.ResourceAt("odd-paths://?Action=Find&name=a%20b"); r != nil || tm == nil || tm.Name != "find" {
		t.Errorf("odd-paths://?Action=Find&name=a%%20b is read by %v, %v; want the template find", r, tm)
	}
}

// TestImportedResourcesRead imports the library's GET operations as
// resources, serves them, and reads each through an MCP client: the
// upstream is sent the request the tool would send, and the response body
// is the contents, with its media type.
func TestImportedResourcesRead(t *testing.T) {
	var mu sync.Mutex
	var got []string // the requests the upstream received
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		switch r.URL.Path {
		case "/api/books":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `[{"isbn": "978-1", "title": "Dune"}]`)
		case "/api/books/978-1":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"isbn": "978-1", "title": "Dune"}`)
		case "/api/books/978-1/cover":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(png)
		case "/api/search":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `[{"isbn": "978-1", "title": "Dune"}]`)
		case "/api/stats.csv":
			w.Header().Set("Content-Type", "text/csv")
			_, _ = io.WriteString(w, "month,loans\n2026-01,12\n")
		default:
			http.Error(w, `{"error": "no such book"}`, http.StatusNotFound)
		}
	}))
	defer up.Close()
	res, err := importFile(t, "library.yaml", Options{BaseURL: up.URL + "/api", Resources: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	defer cfg.Close()

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.New(cfg, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range list.Resources {
		listed = append(listed, r.URI+" "+r.MIMEType+" "+r.Title+" / "+r.Description)
	}
	if want := "library://books application/json List books / The books of the library, newest first.|library://stats.csv text/csv  / Loan statistics, as CSV"; strings.Join(listed, "|") != want {
		t.Errorf("resources/list: %q\nwant %q", strings.Join(listed, "|"), want)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed = nil
	for _, r := range templates.ResourceTemplates {
		listed = append(listed, r.URITemplate+" "+r.MIMEType)
	}
	if want := "library://books/{isbn} application/json|library://books/{isbn}/cover{?size} image/png|library://search{?q,limit,lang} application/json"; strings.Join(listed, "|") != want {
		t.Errorf("resources/templates/list: %q\nwant %q", strings.Join(listed, "|"), want)
	}

	tests := []struct {
		uri, request, mimeType, text string
		blob                         []byte
	}{
		{"library://books", "GET /api/books", "application/json", `[{"isbn": "978-1", "title": "Dune"}]`, nil},
		{"library://books/978-1", "GET /api/books/978-1", "application/json", `{"isbn": "978-1", "title": "Dune"}`, nil},
		{"library://books/978-1/cover?size=large", "GET /api/books/978-1/cover?size=large", "image/png", "", png},
		{"library://books/978-1/cover", "GET /api/books/978-1/cover", "image/png", "", png},
		{"library://search?q=dune%20messiah&limit=5", "GET /api/search?limit=5&q=dune+messiah", "application/json", `[{"isbn": "978-1", "title": "Dune"}]`, nil},
		{"library://search?q=dune&lang=en", "GET /api/search?lang=en&q=dune", "application/json", `[{"isbn": "978-1", "title": "Dune"}]`, nil},
		{"library://stats.csv", "GET /api/stats.csv", "text/csv", "month,loans\n2026-01,12\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			sent := strings.Join(got, ", ")
			mu.Unlock()
			if sent != tt.request {
				t.Errorf("the upstream got %q, want %q", sent, tt.request)
			}
			if len(r.Contents) != 1 {
				t.Fatalf("contents = %+v", r.Contents)
			}
			c := r.Contents[0]
			if c.URI != tt.uri || c.MIMEType != tt.mimeType || c.Text != tt.text || !bytes.Equal(c.Blob, tt.blob) {
				t.Errorf("contents = %s %s %q %q\nwant %s %s %q %q", c.URI, c.MIMEType, c.Text, c.Blob, tt.uri, tt.mimeType, tt.text, tt.blob)
			}
		})
	}

	// The upstream's error fails the read, saying what it answered; a
	// missing required variable, or one that breaks its argument's
	// constraints, is refused before anything is sent.
	for uri, want := range map[string]string{
		"library://books/978-9":        "HTTP 404",
		"library://books/x1":           "isbn",
		"library://search":             "q",
		"library://search?q=a&limit=0": "limit",
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one that says %q", uri, err, want)
		}
		mu.Lock()
		sent := len(got)
		mu.Unlock()
		if want != "HTTP 404" && sent != 0 {
			t.Errorf("%s: sent %d requests, want none", uri, sent)
		}
	}
}
