package overlay

import "testing"

// TestParsePath reads the JSONPath subset of overlays.
func TestParsePath(t *testing.T) {
	doc := map[string]any{"paths": map[string]any{
		"/a": map[string]any{"get": map[string]any{"summary": "A"}, "post": map[string]any{"summary": "B"}},
		"/b": map[string]any{"get": map[string]any{"summary": "C", "tags": []any{"x", "y"}}},
	}}
	tests := map[string]int{
		"$.paths['/a'].get":         1,
		`$.paths["/a"].*`:           2,
		"$.paths.*.get":             2,
		"$..summary":                3,
		"$.paths['/b'].get.tags[1]": 1,
		"$.paths['/b'].get.tags[*]": 2,
		"$.nothing":                 0,
	}
	for p, want := range tests {
		steps, err := parsePath(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := len(selectPath([]node{{value: doc}}, steps)); got != want {
			t.Errorf("%s selects %d, want %d", p, got, want)
		}
	}
	for _, bad := range []string{"paths", "$.", "$[", "$['a", "$[?@.x]"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestApply updates, removes a list element, and reports a target that
// selects nothing.
func TestApply(t *testing.T) {
	doc := map[string]any{"ops": map[string]any{
		"a": map[string]any{"name": "a", "tags": []any{"x", "y"}},
		"b": map[string]any{"name": "b"},
	}}
	overlay := `overlay: 1.0.0
actions:
  - target: $.ops.a
    update: {name: renamed, tags: [z]}
  - target: $.ops.a.tags[0]
    remove: true
  - target: $.ops.b
    remove: true
  - target: $.ops.gone
    update: {name: x}
`
	out, unmatched, err := Apply(doc, []byte(overlay), "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := out["ops"].(map[string]any)["a"].(map[string]any)
	if a["name"] != "renamed" || len(a["tags"].([]any)) != 2 || a["tags"].([]any)[0] != "y" {
		t.Errorf("a is %v", a)
	}
	if _, ok := out["ops"].(map[string]any)["b"]; ok {
		t.Error("b was not removed")
	}
	if len(unmatched) != 1 || unmatched[0] != "o.yaml: actions[3]: the target $.ops.gone" {
		t.Errorf("unmatched %q", unmatched)
	}
	if _, _, err := Apply(doc, []byte("openapi: 3.0.0\n"), "x.yaml"); err == nil || err.Error() != "x.yaml is not an OpenAPI Overlay: it has no overlay field at its top" {
		t.Errorf("not an overlay: %v", err)
	}
}
