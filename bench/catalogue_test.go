package main

import (
	"strings"
	"testing"
)

// TestSchemaCounts: properties at any depth, enums and required names,
// through references; a recursive reference counts once, and a named
// schema used twice counts twice, as it is written out where it is used.
func TestSchemaCounts(t *testing.T) {
	root := map[string]any{"components": map[string]any{"schemas": map[string]any{
		"Node": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
			"name": map[string]any{"type": "string"},
			"kind": map[string]any{"enum": []any{"a", "b"}},
			"next": map[string]any{"$ref": "#/components/schemas/Node"},
		}},
	}}}
	r := &refCounter{root: root, memo: map[string]counts{}, open: map[string]bool{}}
	s := map[string]any{"type": "object", "properties": map[string]any{
		"first":  map[string]any{"$ref": "#/components/schemas/Node"},
		"second": map[string]any{"allOf": []any{map[string]any{"$ref": "#/components/schemas/Node"}}},
		"list":   map[string]any{"type": "array", "items": map[string]any{"properties": map[string]any{"x": map[string]any{}}}},
	}}
	if got, want := schemaCounts(s, r), (counts{props: 3 + 3 + 3 + 1, enums: 2, required: 2}); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
}

// TestCatalogues measures what the table shows: every example and every
// document of the repository, smaller with each output_schemas, and the
// documents of APIs.guru's directory said to be skipped when they are
// not on the machine.
func TestCatalogues(t *testing.T) {
	t.Setenv("MCPDECL_OPENAPI_DIR", t.TempDir()) // an empty directory: none is there
	t.Chdir("..")
	cs, err := catalogues()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]catalogue{}
	for _, c := range cs {
		seen[c.name] = c
	}
	for _, name := range []string{"`examples/weather.hcl`", "`examples/shop.hcl`", "`importer/openapi/testdata/petstore.yaml`", "`examples/testdata/httpbin.org.json`"} {
		c, ok := seen[name]
		if !ok || c.skipped != "" {
			t.Errorf("%s: not measured (%+v)", name, c)
			continue
		}
		if !(c.bytes[0] > c.bytes[1] && c.bytes[1] > c.bytes[2]) && name != "`examples/testdata/httpbin.org.json`" {
			t.Errorf("%s: bytes full, compact, none = %v: each should list less", name, c.bytes)
		}
		if c.tokens[2] <= 0 || c.tokens[0] < c.tokens[2] || c.tokens[0] > c.bytes[0] {
			t.Errorf("%s: tokens %v for bytes %v", name, c.tokens, c.bytes)
		}
	}
	// openapi31.yaml asks for text and pinned in an optional body (none
	// of them required of a call) and a required path parameter id.
	if c := seen["`importer/openapi/testdata/openapi31.yaml`"]; c.doc != (counts{props: 3, required: 1}) || c.read != 2 {
		t.Errorf("openapi31.yaml: %d operations, document counts %+v", c.read, c.doc)
	}
	var b strings.Builder
	(&report{catalogues: cs}).catalogueTable(&b)
	if !strings.Contains(b.String(), "Skipped, not found on this machine") || !strings.Contains(b.String(), "Google Fitness (APIs.guru, `googleapis.com/fitness.json`)") {
		t.Errorf("the table does not say which documents were skipped:\n%s", b.String())
	}
}
