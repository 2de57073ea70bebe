package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// at follows a path of property names and "items" into a JSON Schema,
// looking into the parts of an allOf; a schema with $defs has its
// references written in place first.
func at(s map[string]any, path ...string) map[string]any {
	if _, ok := s["$defs"]; ok {
		s, _ = schema.Inline(s, 1<<30)
	}
	for _, p := range path {
		if p == "items" {
			s = obj(s["items"])
			continue
		}
		next := obj(obj(s["properties"])[p])
		for _, part := range list(s["allOf"]) {
			if next == nil {
				next = at(obj(part), p)
			}
		}
		s = next
	}
	return s
}

// callTool calls a tool of cfg with args (JSON) and fails the test when
// the tool does not exist.
func callTool(t *testing.T, cfg *engine.Config, name, args string) *engine.Result {
	t.Helper()
	tool, ok := cfg.Tool(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool.Call(context.Background(), json.RawMessage(args))
}

// TestSaveTransaction imports YNAB's document (trimmed to its transaction
// writes in testdata/ynab.json), whose SaveTransaction is
// allOf [{required: [account_id, date, amount]}, {$ref: SaveTransactionWithOptionalFields}]
// inside a body flattened into arguments: every tool that takes a
// transaction types its fields and requires the three.
func TestSaveTransaction(t *testing.T) {
	up := newUpstream(t, map[string]string{})
	cfg := loadImport(t, "ynab.json", up.srv.URL+"/v1", map[string]string{"YNAB_API_ENDPOINTS_API_KEY": "k"})
	for _, c := range []struct{ tool, path string }{
		{"create_transaction", "transaction"},
		{"create_transaction", "transactions items"},
		{"update_transaction", "transaction"},
		{"bulk_create_transactions", "transactions items"},
		{"update_transactions", "transactions items"},
	} {
		tool, ok := cfg.Tool(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		s := at(tool.InputSchema(), strings.Fields(c.path)...)
		for _, field := range []string{"account_id", "date", "amount", "payee_name", "memo", "subtransactions"} {
			if at(s, field) == nil {
				t.Errorf("%s: %s has no property %s: %v", c.tool, c.path, field, s)
			}
		}
		if at(s, "amount")["type"] != "integer" {
			t.Errorf("%s: %s.amount is not typed: %v", c.tool, c.path, s)
		}
		// A transaction's subtransactions are typed too, at any depth.
		if at(s, "subtransactions", "items", "amount")["type"] != "integer" {
			t.Errorf("%s: %s.subtransactions are not typed: %v", c.tool, c.path, at(s, "subtransactions"))
		}
	}
	for _, tool := range []string{"create_transaction", "update_transaction"} {
		s := at(mustTool(t, cfg, tool).InputSchema(), "transaction")
		if fmt.Sprint(s["required"]) != "[account_id date amount]" {
			t.Errorf("%s: transaction requires %v, want account_id, date and amount", tool, s["required"])
		}
	}

	// A transaction without its amount is refused before anything is sent;
	// one with it is sent as given.
	res := callTool(t, cfg, "create_transaction", `{"budget_id": "b1", "transaction": {"account_id": "0c3e4f1a-6b2d-4c5e-9f7a-1b2c3d4e5f60", "date": "2024-05-01"}}`)
	if !res.IsError || !strings.Contains(res.Text(), "amount") {
		t.Errorf("a transaction without amount: %v %s", res.IsError, res.Text())
	}
	res = callTool(t, cfg, "create_transaction", `{"budget_id": "b1", "transaction": {"account_id": "0c3e4f1a-6b2d-4c5e-9f7a-1b2c3d4e5f60", "date": "2024-05-01", "amount": -1200, "payee_name": "Bakery"}}`)
	if res.IsError {
		t.Fatalf("create_transaction: %s", res.Text())
	}
	if got := up.request(); got.uri != "/v1/budgets/b1/transactions" ||
		got.body != `{"transaction":{"account_id":"0c3e4f1a-6b2d-4c5e-9f7a-1b2c3d4e5f60","amount":-1200,"date":"2024-05-01","payee_name":"Bakery"}}` {
		t.Errorf("create_transaction sent %s %s", got.uri, got.body)
	}
}

func mustTool(t *testing.T, cfg *engine.Config, name string) *engine.Tool {
	t.Helper()
	tool, ok := cfg.Tool(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}

// TestAllOfRequiredNotStubbed: past the named levels, a schema that a
// sibling's required list names the properties of is written out, not
// cut to its type: a tool never requires fields it does not type.
func TestAllOfRequiredNotStubbed(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: Deep, version: "1"}
servers: [{url: /api}]
paths:
  /a:
    post:
      operationId: postA
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/A"}
      responses:
        "204": {description: Done.}
components:
  schemas:
    A: {type: object, properties: {b: {$ref: "#/components/schemas/B"}}}
    B: {type: object, properties: {c: {$ref: "#/components/schemas/C"}}}
    C:
      type: object
      properties:
        d:
          allOf:
            - {required: [x]}
            - {$ref: "#/components/schemas/E"}
            - {properties: {y: {type: string}}}
    E: {type: object, properties: {x: {type: integer}}}
`
	res := importDoc(t, doc)
	main := string(res.Files[0].Data)
	if strings.Contains(main, `description = "A E."`) {
		t.Errorf("E, whose x a sibling requires, was cut to a stub:\n%s", main)
	}
	cfg := loadResult(t, res)
	d := at(mustTool(t, cfg, "post_a").InputSchema(), "b", "c", "d")
	found := false
	for _, part := range list(d["allOf"]) {
		found = found || at(obj(part), "x")["type"] == "integer"
	}
	if !found {
		t.Errorf("d's x is not typed: %v", d)
	}
}

// importDoc imports an OpenAPI document given as text.
func importDoc(t *testing.T, doc string) *Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), "doc.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, res, err := importPath(p, Options{Source: "doc.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// loadResult writes an import and loads it as serve does.
func loadResult(t *testing.T, res *Result) *engine.Config {
	t.Helper()
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Cleanup(func() { _ = cfg.Close() })
	return cfg
}

// TestBinaryUploads: a raw binary body is taken base64-encoded and sent
// decoded; a multipart form whose file is required (or all it has) is
// skipped with its reason, since the http action sends multipart fields as
// text and not as files; an optional file beside other fields is left out,
// noted.
func TestBinaryUploads(t *testing.T) {
	res, err := importFile(t, "uploads.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Imported, " "); got != "save_profile put_raw" {
		t.Errorf("tools = %s, want save_profile put_raw", got)
	}
	want := `its multipart field "file" is a file (binary content), which a tool cannot send: the http action sends multipart fields as text, not as files`
	if len(res.Skipped) != 1 || res.Skipped[0].Reason != want {
		t.Errorf("skipped = %v\nwant %s", res.Skipped, want)
	}
	main := string(res.Files[0].Data)
	for _, s := range []string{
		"#   POST /photo (uploadPhoto): " + want,
		`# Note: left out the multipart field "avatar", a file (binary content) a tool cannot send.`,
		`description = "A signature of the name. Base64-encoded."`,
	} {
		if !strings.Contains(main, s) {
			t.Errorf("the import does not say %q:\n%s", s, main)
		}
	}

	galaxy, err := importFile(t, "galaxy.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(galaxy.Skipped) != 1 || !strings.HasPrefix(galaxy.Skipped[0].Reason, `its multipart field "image" is a file`) {
		t.Errorf("Scalar Galaxy's upload_image: skipped = %v", galaxy.Skipped)
	}

	up := newUpstream(t, map[string]string{})
	cfg := loadImport(t, "uploads.yaml", up.srv.URL+"/files", nil)
	if res := callTool(t, cfg, "put_raw", `{"name": "a.bin", "body": "AAEC/w=="}`); res.IsError {
		t.Fatalf("put_raw: %s", res.Text())
	}
	if got := up.request(); got.uri != "/files/raw/a.bin" || got.contentType != "application/octet-stream" || got.body != "\x00\x01\x02\xff" {
		t.Errorf("put_raw sent %q as %q to %s, want the bytes 00 01 02 ff", got.body, got.contentType, got.uri)
	}
	if res := callTool(t, cfg, "put_raw", `{"name": "a.bin", "body": "not base64!"}`); !res.IsError || !strings.Contains(res.Text(), "body") {
		t.Errorf("put_raw with text that is not base64: %v %s", res.IsError, res.Text())
	}
	if res := callTool(t, cfg, "save_profile", `{"name": "Ann", "signature": "c2ln"}`); res.IsError {
		t.Fatalf("save_profile: %s", res.Text())
	}
	if got := up.request(); !strings.HasPrefix(got.contentType, "multipart/form-data; boundary=") ||
		!strings.Contains(got.body, "name=\"name\"\r\n\r\nAnn\r\n") || !strings.Contains(got.body, "name=\"signature\"\r\n\r\nc2ln\r\n") {
		t.Errorf("save_profile sent %q as %q", got.body, got.contentType)
	}
}

// TestOptionalBodyRequiredFields: a body the document makes optional, whose
// schema requires fields, is one optional argument whose schema requires
// them: left out, no body is sent; given, it must hold them.
func TestOptionalBodyRequiredFields(t *testing.T) {
	up := newUpstream(t, map[string]string{"POST /planets": `{"id": 1, "name": "Mars"}`})
	cfg := loadImport(t, "galaxy.yaml", up.srv.URL, nil)
	tool := mustTool(t, cfg, "create_planet")
	body := at(tool.InputSchema(), "body")
	if fmt.Sprint(body["required"]) != "[name]" || at(body, "id") != nil {
		t.Errorf("the body requires %v, properties %v; want name, and no read-only id", body["required"], body["properties"])
	}
	if d := str(body["description"]); !strings.Contains(d, "name") || !strings.Contains(d, "required") {
		t.Errorf("the body's description does not say name is required: %q", d)
	}
	res := callTool(t, cfg, "create_planet", `{"body": {"description": "red"}}`)
	if !res.IsError || !strings.Contains(res.Text(), "name") {
		t.Errorf("a planet without a name: %v %s", res.IsError, res.Text())
	}
	if res := callTool(t, cfg, "create_planet", `{"body": {"name": "Mars", "type": "terrestrial"}}`); res.IsError {
		t.Errorf("create_planet: %s", res.Text())
	} else if got := up.request(); got.body != `{"name":"Mars","type":"terrestrial"}` || got.contentType != "application/json" {
		t.Errorf("create_planet sent %q as %q", got.body, got.contentType)
	}
	if res := callTool(t, cfg, "create_planet", `{}`); res.IsError {
		t.Errorf("create_planet without a body: %s", res.Text())
	} else if got := up.request(); got.body != "" {
		t.Errorf("create_planet with nothing given sent %q, want no body", got.body)
	}
}

// TestAnnotationsFromMethod: every imported tool says what its method
// means in HTTP: GET reads, PUT and DELETE are idempotent, DELETE, PUT and
// PATCH may destroy, POST creates; all reach the open world, which MCP
// assumes when open_world_hint is not given (none is written). The
// document's x-mcp-annotations (an overlay can add it) overrides them.
func TestAnnotationsFromMethod(t *testing.T) {
	tr, fa := true, false
	want := map[string]engine.Annotations{
		"list_pets":         {ReadOnlyHint: &tr, IdempotentHint: &tr},
		"create_pet":        {ReadOnlyHint: &fa, DestructiveHint: &fa, IdempotentHint: &fa},
		"patch_pets_pet_id": {ReadOnlyHint: &fa, DestructiveHint: &tr, IdempotentHint: &fa},
		"delete_pet":        {ReadOnlyHint: &fa, DestructiveHint: &tr, IdempotentHint: &tr},
	}
	cfg := loadImport(t, "petstore.yaml", "https://pets.example.com", nil)
	for name, w := range want {
		if got := annotations(mustTool(t, cfg, name)); got != show(w) {
			t.Errorf("%s: annotations %s, want %s", name, got, show(w))
		}
	}

	ynab := loadImport(t, "ynab.json", "https://ynab.example.com", nil)
	w := engine.Annotations{ReadOnlyHint: &fa, DestructiveHint: &tr, IdempotentHint: &tr}
	if got := annotations(mustTool(t, ynab, "update_transaction")); got != show(w) {
		t.Errorf("update_transaction (PUT): annotations %s, want %s", got, show(w))
	}

	p := filepath.Join("testdata", "petstore.yaml")
	data, _ := ReadFile(p)
	spec, err := Parse(data, p, ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	overlay := `overlay: 1.0.0
info: {title: A search by POST reads, version: "1"}
actions:
  - target: $.paths['/pets'].post
    update:
      x-mcp-annotations: {readOnlyHint: true, idempotentHint: true, openWorldHint: false, readOnly: true}
`
	if _, err := spec.ApplyOverlay([]byte(overlay), "o.yaml"); err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(spec, Options{BaseURL: "https://pets.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	note := `# Note: ignored "readOnly" in x-mcp-annotations, which takes readOnlyHint, destructiveHint, idempotentHint and openWorldHint.`
	if !strings.Contains(string(res.Files[0].Data), note) {
		t.Errorf("a name x-mcp-annotations does not take is not noted:\n%s", res.Files[0].Data)
	}
	cfg = loadResult(t, res)
	w = engine.Annotations{ReadOnlyHint: &tr, DestructiveHint: &fa, IdempotentHint: &tr, OpenWorldHint: &fa}
	if got := annotations(mustTool(t, cfg, "create_pet")); got != show(w) {
		t.Errorf("create_pet with x-mcp-annotations: %s, want %s", got, show(w))
	}
}

func annotations(tool *engine.Tool) string {
	a := tool.Annotations()
	if a == nil {
		return "none"
	}
	return show(*a)
}

func show(a engine.Annotations) string {
	b := func(p *bool) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("readOnly=%s destructive=%s idempotent=%s openWorld=%s",
		b(a.ReadOnlyHint), b(a.DestructiveHint), b(a.IdempotentHint), b(a.OpenWorldHint))
}

// TestDynamicRef: Scalar Galaxy's list of planets is a PaginatedResource
// whose items are a $dynamicRef, bound to Planet by the response's
// $dynamicAnchor: the data output is a list of planets, checked as such.
func TestDynamicRef(t *testing.T) {
	up := newUpstream(t, map[string]string{"GET /planets": `{"data": [{"id": 1, "name": "Mars"}], "meta": {"limit": 10, "total": 1}}`})
	cfg := loadImport(t, "galaxy.yaml", up.srv.URL, nil)
	tool := mustTool(t, cfg, "get_all_data")
	if item := at(tool.OutputSchema(), "data", "items"); at(item, "name")["type"] != "string" {
		t.Errorf("data's items are not planets: %v", item)
	}
	if res := callTool(t, cfg, "get_all_data", `{}`); res.IsError {
		t.Errorf("get_all_data: %s", res.Text())
	}
	bad := newUpstream(t, map[string]string{"GET /planets": `{"data": [{"id": 1, "name": 5}]}`})
	cfg = loadImport(t, "galaxy.yaml", bad.srv.URL, nil)
	if res := callTool(t, cfg, "get_all_data", `{}`); !res.IsError || !strings.Contains(res.Text(), "/data/0/name") {
		t.Errorf("a planet whose name is a number: %v %s", res.IsError, res.Text())
	}
}

// TestDescriptionsSayThingsOnce: a tool's description does not repeat its
// title, and sentences are joined as sentences.
func TestDescriptionsSayThingsOnce(t *testing.T) {
	cfg := loadImport(t, "galaxy.yaml", "https://galaxy.example.com", nil)
	tool := mustTool(t, cfg, "get_all_data")
	if tool.Title() != "Get all planets" || !strings.HasPrefix(tool.Description(), "It's easy to say you know them all") {
		t.Errorf("title %q, description %q: the description repeats the title", tool.Title(), tool.Description())
	}
	for in, want := range map[string]string{
		"The image file to upload|The file's content.": "The image file to upload. The file's content.",
		"Ends well.|Next.":  "Ends well. Next.",
		"Asks why?|Next.":   "Asks why? Next.",
		"|Only this.":       "Only this.",
		"Lists: a, b|":      "Lists: a, b",
		"Quoted \"end.\"|x": "Quoted \"end.\" x",
	} {
		a, b, _ := strings.Cut(in, "|")
		if got := sentences(a, b); got != want {
			t.Errorf("sentences(%q, %q) = %q, want %q", a, b, got, want)
		}
	}
}
