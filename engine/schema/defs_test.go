package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/schema"
)

func TestDefRefRoundTrip(t *testing.T) {
	for _, name := range []string{"Pet", "a/b~c d", "é%"} {
		ref := schema.DefRef(name)
		if got, ok := schema.DefName(ref); !ok || got != name {
			t.Errorf("DefName(%q) = %q, %v; want %q", ref, got, ok, name)
		}
		doc := schema.WithDefs(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": ref}}},
			map[string]any{name: map[string]any{"type": "integer"}})
		v, err := schema.Compile(doc)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if len(v.Validate(map[string]any{"x": 1})) != 0 || len(v.Validate(map[string]any{"x": "a"})) == 0 {
			t.Errorf("%q: the reference is not followed", name)
		}
	}
}

// TestInlineBounded: past the bound, definitions are cut shallower, and a
// cut one says so; the result never refers to a definition.
func TestInlineBounded(t *testing.T) {
	long := strings.Repeat("A long description. ", 40)
	defs := map[string]any{}
	for i := range 6 {
		next := map[string]any{"type": "string"}
		if i < 5 {
			next = map[string]any{"$ref": schema.DefRef(string(rune('a' + i + 1)))}
		}
		defs[string(rune('a'+i))] = map[string]any{"type": "object", "description": long, "properties": map[string]any{
			"x": next, "y": next, "z": next}}
	}
	doc := schema.WithDefs(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/a"}}}, defs)
	full, cut := schema.Inline(doc, 1<<30)
	b, _ := json.Marshal(full)
	if cut || strings.Contains(string(b), "$ref") || strings.Contains(string(b), "$defs") {
		t.Fatalf("unbounded: cut %v, %d bytes", cut, len(b))
	}
	small, cut := schema.Inline(doc, 20_000)
	s, _ := json.Marshal(small)
	if !cut || len(s) > 20_000 || strings.Contains(string(s), "$ref") || !strings.Contains(string(s), "not written out this deep") {
		t.Fatalf("bounded: cut %v, %d bytes (of %d)", cut, len(s), len(b))
	}
	if _, err := schema.Compile(small); err != nil {
		t.Fatal(err)
	}
}
