package graphql

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpdecl/mcpdecl/adapters"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/internal/gqlschema"
)

// language is the spec of a configuration file that mcpdecl reads.
var language = load.FileSpec(adapters.Registry())

// importChecked imports as mcpdecl import graphql does, and checks that
// every block and attribute written is one the language declares by its
// current name.
func importChecked(schema *ast.Schema, ops []Operation, opts Options) (*Result, error) {
	if opts.Language == nil {
		opts.Language = language
	}
	res, err := Import(schema, ops, opts)
	if err != nil {
		return nil, err
	}
	file, diags := hclsyntax.ParseConfig(res.Data, "api.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	if diags := opts.Language.CheckNames(file.Body.(*hclsyntax.Body)); diags.HasErrors() {
		return nil, diags
	}
	return res, nil
}

const testSDL = `
type Query { node(id: ID!): Node, search(q: Query2!, kind: Kind): [Node!]! }
type Subscription { node(id: ID!): Node }
type Mutation { rename(input: RenameInput!): Node }
"Something with a name."
type Node { id: ID!, name: String, kind: Kind!, parent: Node }
enum Kind { A B }
"A search, which may nest."
input Query2 { text: String!, kind: Kind, and: [Query2!], limit: Int = 10 }
input RenameInput { id: ID!, name: String! }
`

func TestImport(t *testing.T) {
	schema, err := gqlschema.Parse("s.graphql", []byte(testSDL))
	if err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(schema, []Operation{
		{Path: "ops/node.graphql", Text: "# One node,\n# by its id.\nquery getNode($id: ID!) { node(id: $id) { id name kind parent { id } } }"},
		{Path: "ops/search.graphql", Text: "query Search($q: Query2!, $kind: Kind = A) { search(q: $q, kind: $kind) { id ...F } } fragment F on Node { name @include(if: true) }"},
		{Path: "ops/rename-node.graphql", Text: "mutation($input: RenameInput!) { rename(input: $input) { id } }"},
		{Path: "ops/two.graphql", Text: "query A { node(id: 1) { id } } query B { node(id: 2) { id } }"},
		{Path: "ops/sub.graphql", Text: "subscription { node(id: 1) { id } }"},
		{Path: "ops/again.graphql", Text: "query GetNode { node(id: 1) { id } }"},
	}, Options{Name: "api", Endpoint: "https://example.com/graphql", BearerEnv: "API_TOKEN", Schema: "s.graphql"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Imported, ","); got != "get_node,search,rename_node,get_node_2" {
		t.Errorf("imported %s", got)
	}
	if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[0].Reason, "holds 2 operations") || !strings.Contains(res.Skipped[1].Reason, "subscription") {
		t.Errorf("skipped %+v", res.Skipped)
	}
	hcl := strings.Join(strings.Fields(string(res.Data)), " ")
	for _, want := range []string{
		`default = env("API_URL", "https://example.com/graphql")`,
		`bearer = var.api_token`,
		`description = "One node, by its id."`,
		`query = file("ops/node.graphql")`,
		`enum = ["A", "B"]`,         // an enum in an input object
		`default = "A"`,             // a variable's default
		`required = ["text"]`,       // limit has a default
		`type = ["string", "null"]`, // a nullable field of the output
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("the configuration lacks %s:\n%s", want, hcl)
		}
	}
	// The recursive input object is cut where it recurs: its "and" items
	// are objects without properties.
	if strings.Count(hcl, `text = {`) != 1 {
		t.Errorf("Query2 should be written once, and cut where it recurs:\n%s", hcl)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"getNode": "get_node", "HTTPStatus": "http_status", "rename-node": "rename_node", "Search": "search", "a1B": "a1_b"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOverlay curates an import with an overlay: a tool renamed, titled,
// described and annotated, an operation left out, a variable fixed, one
// given a default, one left out of the request, and one that cannot be.
func TestOverlay(t *testing.T) {
	schema, err := gqlschema.Parse("s.graphql", []byte(testSDL))
	if err != nil {
		t.Fatal(err)
	}
	ops := []Operation{
		{Path: "ops/node.graphql", Text: "query getNode($id: ID!) { node(id: $id) { id name } }"},
		{Path: "ops/search.graphql", Text: "query Search($q: Query2!, $kind: Kind = A) { search(q: $q, kind: $kind) { id } }"},
		{Path: "ops/rename.graphql", Text: "mutation($input: RenameInput!) { rename(input: $input) { id } }"},
		{Path: "ops/other.graphql", Text: "query Other($id: ID!) { node(id: $id) { id } }"},
	}
	overlay := `overlay: 1.0.0
info: {title: curation, version: "1"}
actions:
  - target: $.operations.getNode
    update:
      name: node_by_id
      title: One node
      description: One node by its id.
      annotations: {idempotentHint: true, openWorldHint: false}
  - target: $.operations.getNode.variables.id
    update: {description: The node's id., default: "1"}
  - target: $.operations.rename
    remove: true
  - target: $.operations.Search.variables.kind
    remove: true
  - target: $.operations.Search.variables.q
    update: {value: {text: widgets}}
  - target: $.operations.Other.variables.id
    remove: true
  - target: $.operations.gone
    update: {name: x}
`
	res, err := importChecked(schema, ops, Options{Name: "api", Schema: "s.graphql", Overlays: []Overlay{{Location: "o.yaml", Data: []byte(overlay)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Imported, ","); got != "node_by_id,search" {
		t.Errorf("imported %s", got)
	}
	if len(res.Hidden) != 1 || res.Hidden[0] != "rename" {
		t.Errorf("hidden %v", res.Hidden)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "ops/other.graphql" || !strings.Contains(res.Skipped[0].Reason, "take $id out of its arguments, but the operation requires it") {
		t.Errorf("skipped %+v", res.Skipped)
	}
	if len(res.Unmatched) != 1 || res.Unmatched[0] != "o.yaml: actions[6]: the target $.operations.gone" {
		t.Errorf("unmatched %q", res.Unmatched)
	}
	hcl := strings.Join(strings.Fields(string(res.Data)), " ")
	for _, want := range []string{
		`tool "node_by_id" { title = "One node" description = "One node by its id." annotations { idempotent_hint = true open_world_hint = false }`,
		`arg "id" { description = "The node's id." default = "1" }`,
		`variables = { q = { text = "widgets" } }`, // kind left out, q fixed
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("the configuration lacks %s:\n%s", want, hcl)
		}
	}
	if strings.Contains(hcl, `arg "q"`) || strings.Contains(hcl, `arg "kind"`) {
		t.Errorf("a fixed or removed variable is still an argument:\n%s", hcl)
	}

	for overlay, want := range map[string]string{
		"update: {descripton: x}":         "the overlays make operations.getNode have descripton, which import graphql does not read: it reads name, title, description, annotations, variables",
		"update: {name: 'a b'}":           `the overlays make operations.getNode named "a b"`,
		"update: {annotations: {ro: 1}}":  "the overlays make operations.getNode have annotations.ro: annotations take readOnlyHint",
		"update: {variables: {nope: {}}}": "the overlays make operations.getNode have variables.nope, which the operation does not declare",
	} {
		doc := "overlay: 1.0.0\nactions:\n  - target: $.operations.getNode\n    " + overlay + "\n"
		_, err := importChecked(schema, ops[:1], Options{Name: "api", Schema: "s.graphql", Overlays: []Overlay{{Location: "o.yaml", Data: []byte(doc)}}})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %s…", overlay, err, want)
		}
	}
	add := "overlay: 1.0.0\nactions:\n  - target: $.operations\n    update: {made_up: {name: x}}\n"
	if _, err := importChecked(schema, ops[:1], Options{Name: "api", Schema: "s.graphql", Overlays: []Overlay{{Location: "o.yaml", Data: []byte(add)}}}); err == nil || !strings.Contains(err.Error(), "operations.made_up, which no operation file holds") {
		t.Errorf("an added operation: %v", err)
	}
}

// TestImportFollowsTheSpecs: the import names blocks and attributes
// through the specs: were the graphql block's variables renamed (variables
// its former name), the import would fail, saying so, rather than write
// the former name.
func TestImportFollowsTheSpecs(t *testing.T) {
	schema, err := gqlschema.Parse("s.graphql", []byte(testSDL))
	if err != nil {
		t.Fatal(err)
	}
	var tool, action *spec.Block
	for _, n := range language.Blocks {
		if n.Block.Name == "tool" {
			tool = n.Block
		}
	}
	for _, n := range tool.Blocks {
		if n.Block.Name == "graphql" {
			action = n.Block
		}
	}
	gq := &spec.Block{Name: action.Name, In: action.In, Blocks: action.Blocks}
	for _, a := range action.Attrs {
		if a.Name == "variables" {
			r := *a
			r.Name, r.Aliases = "vars", []string{"variables"}
			a = &r
		}
		gq.Attrs = append(gq.Attrs, a)
	}
	tl := &spec.Block{Name: tool.Name, Labels: tool.Labels, Attrs: tool.Attrs}
	for _, n := range tool.Blocks {
		if n.Block == action {
			n.Block = gq
		}
		tl.Blocks = append(tl.Blocks, n)
	}
	root := &spec.Block{Name: language.Name}
	for _, n := range language.Blocks {
		if n.Block == tool {
			n.Block = tl
		}
		root.Blocks = append(root.Blocks, n)
	}
	ops := []Operation{{Path: "ops/node.graphql", Text: "query getNode($id: ID!) { node(id: $id) { id } }"}}
	_, err = Import(schema, ops, Options{Name: "api", Schema: "s.graphql", Language: root})
	if want := `cannot write the attribute "variables" in tool › graphql: it is a former name of vars`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := Import(schema, ops, Options{Name: "api", Schema: "s.graphql"}); err == nil || !strings.Contains(err.Error(), "set Options.Language") {
		t.Errorf("without a language: err = %v", err)
	}
}

// TestKeywordKeys: input fields, variables and values whose names are
// HCL's keywords (for, null, in, true, if, else, endif) or hold a hyphen
// are written as keys that HCL reads back as those names: the file loads
// as serve loads it, and a call sends the defaults (an empty list too) and
// the fixed value as the operation and the overlay give them.
func TestKeywordKeys(t *testing.T) {
	const sdl = `scalar JSON
type Query { find(f: Filter!, meta: JSON, extra: JSON, for: String, in: String): [String!]! }
input Filter { for: String, null: Int, in: [String!], true: Boolean, if: String }
`
	const op = `query Find($f: Filter! = {for: "me", null: 1, in: ["a"], true: false, if: "x"}, $meta: JSON = {else: 1, endif: 2, none: []},
  $extra: JSON, $for: String = "f", $in: String = "i") { find(f: $f, meta: $meta, extra: $extra, for: $for, in: $in) }`
	const overlay = `overlay: 1.0.0
info: {title: fixed, version: "1"}
actions:
  - target: $.operations.Find.variables.extra
    update: {value: {for: 1, a-b: [true], "null": null}}
`
	schema, err := gqlschema.Parse("s.graphql", []byte(sdl))
	if err != nil {
		t.Fatal(err)
	}
	res, err := importChecked(schema, []Operation{{Path: "find.graphql", Text: op}},
		Options{Name: "api", Schema: "s.graphql", Overlays: []Overlay{{Location: "o.yaml", Data: []byte(overlay)}}})
	if err != nil {
		t.Fatal(err)
	}

	var sent struct {
		Variables map[string]any `json:"variables"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := json.NewDecoder(r.Body).Decode(&sent); err != nil {
			t.Errorf("the request is not JSON: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data": {"find": ["x"]}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	for name, text := range map[string]string{"s.graphql": sdl, "find.graphql": op, "api.hcl": string(res.Data)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) (string, bool) { return srv.URL, k == "API_URL" }
	cfg, _, diags := load.Load(load.Options{Registry: adapters.Registry(), LookupEnv: env}, filepath.Join(dir, "api.hcl"))
	if diags.HasErrors() {
		t.Fatalf("the file written does not load: %s\n%s", diags.Error(), res.Data)
	}
	defer cfg.Close()
	tool, ok := cfg.Tool("find")
	if !ok {
		t.Fatal("no tool find")
	}
	in, _ := json.Marshal(tool.InputSchema()["properties"].(map[string]any)["f"])
	if want := `"properties":{"for":{"type":"string"},"if":{"type":"string"},"in":{"items":{"type":"string"},"type":"array"},"null":{"type":"integer"},"true":{"type":"boolean"}}`; !strings.Contains(string(in), want) {
		t.Errorf("the argument f's schema is %s, want its properties %s", in, want)
	}
	if r := tool.Call(context.Background(), json.RawMessage(`{}`)); r.IsError {
		t.Fatalf("the call failed: %s", r.Text())
	}
	got, _ := json.Marshal(sent.Variables)
	want := `{"extra":{"a-b":[true],"for":1,"null":null},"f":{"for":"me","if":"x","in":["a"],"null":1,"true":false},"for":"f","in":"i","meta":{"else":1,"endif":2,"none":[]}}`
	if string(got) != want {
		t.Errorf("the call sent the variables %s, want %s\nthe file written:\n%s", got, want, res.Data)
	}
}
