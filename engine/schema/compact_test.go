package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCompact: the annotations and the narrowing assertions go wherever
// a schema stands (under properties, items, the applicators, $defs…); the
// shape (types, properties, items, required, enum, const, references)
// and property names stay, whatever they are called; a oneOf becomes an
// anyOf; the document given is left as it was; and every value the whole
// schema accepts, the compact one accepts.
func TestCompact(t *testing.T) {
	const full = `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "title": "T", "description": "D", "$comment": "C", "x-origin": "doc",
	  "type": "object",
	  "required": ["title", "description"],
	  "additionalProperties": false,
	  "properties": {
	    "title": {"type": "string", "description": "a field named title", "minLength": 1, "examples": ["x"]},
	    "description": {"type": ["string", "null"], "default": "none", "deprecated": true},
	    "kind": {"enum": [{"description": "data, not a schema"}, "b"], "const": {"title": "kept"}},
	    "when": {"type": "string", "format": "date-time", "readOnly": true, "writeOnly": false},
	    "tags": {"type": "array", "items": {"type": "string", "title": "tag"}, "contains": {"const": "a", "description": "x"}},
	    "pair": {"prefixItems": [{"type": "integer", "description": "first"}], "items": false},
	    "blob": {"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"},
	    "odd": {"not": {"type": "string", "description": "not a string"}},
	    "either": {"oneOf": [{"type": "integer", "title": "n"}, {"$ref": "#/$defs/named"}]},
	    "cond": {"if": {"minimum": 0, "title": "i"}, "then": {"multipleOf": 2, "title": "t"}, "else": {"title": "e"}},
	    "map": {"type": "object", "additionalProperties": {"type": "number", "description": "v"}, "propertyNames": {"pattern": "^[a-z]+$", "title": "p"}, "patternProperties": {"^x": {"description": "y"}}},
	    "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}, "required": ["a"]}, {"type": "object", "description": "B", "properties": {"b": {"type": "integer"}}}]}
	  },
	  "$defs": {"named": {"type": "boolean", "description": "a definition"}}
	}`
	const compact = `{
	  "type": "object",
	  "required": ["title", "description"],
	  "properties": {
	    "title": {"type": "string"},
	    "description": {"type": ["string", "null"]},
	    "kind": {"enum": [{"description": "data, not a schema"}, "b"], "const": {"title": "kept"}},
	    "when": {"type": "string"},
	    "tags": {"type": "array", "items": {"type": "string"}},
	    "pair": {"prefixItems": [{"type": "integer"}], "items": false},
	    "blob": {"type": "string"},
	    "odd": {},
	    "either": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/named"}]},
	    "cond": {},
	    "map": {"type": "object", "additionalProperties": {"type": "number"}, "patternProperties": {"^x": {}}},
	    "both": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}
	  },
	  "$defs": {"named": {"type": "boolean"}}
	}`
	doc := decodeDoc(t, full)
	before, _ := json.Marshal(doc)
	got := Compact(doc)
	sameJSON(t, got, compact)
	if after, _ := json.Marshal(doc); string(after) != string(before) {
		t.Errorf("Compact changed the document it was given:\n%s", after)
	}
	acceptsAlike(t, doc, got, "compact", []string{
		`{"title": "a", "description": null}`,
		`{"title": "a", "description": "x", "either": true, "cond": 4, "tags": ["a"], "map": {"ab": 1}, "both": {"a": "xyz", "b": 2}}`,
		`{"title": "a", "description": "x", "when": "2026-01-02T03:04:05Z", "pair": [1]}`,
	}, []string{
		`{"title": 1, "description": "x"}`,                     // a type
		`{"title": "a"}`,                                       // required
		`{"title": "a", "description": "x", "both": {"b": 2}}`, // required in a merged part
	})

	if Compact(nil) != nil {
		t.Error("Compact(nil) is not nil")
	}
}

// decodeDoc is the JSON schema document text.
func decodeDoc(t *testing.T, text string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// acceptsAlike checks that the whole schema doc and its rewrite, named
// kind ("compact", "shared"), both accept every value of accepted and
// both refuse every value of refused.
func acceptsAlike(t *testing.T, doc, rewritten map[string]any, kind string, accepted, refused []string) {
	t.Helper()
	wholeV, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rewrittenV, err := Compile(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	for i, list := range [][]string{accepted, refused} {
		for _, value := range list {
			var v any
			if err := json.Unmarshal([]byte(value), &v); err != nil {
				t.Fatal(err)
			}
			w, r := len(wholeV.Validate(v)) == 0, len(rewrittenV.Validate(v)) == 0
			if w != (i == 0) || r != w {
				t.Errorf("%s: the whole schema accepts it %v, the %s one %v", value, w, kind, r)
			}
		}
	}
}

// TestCompactBudget: a schema longer than CompactBudget is cut from its
// deepest levels up until it fits, the names and types of its top level
// kept; it still accepts what the whole one does; a short one is not cut.
func TestCompactBudget(t *testing.T) {
	item := map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{}}
	for _, n := range strings.Fields("id name balance cleared_balance uncleared_balance on_budget closed note deleted transfer_payee_id direct_import_linked last_reconciled_at debt_original_balance") {
		item["properties"].(map[string]any)[n] = map[string]any{"type": "string", "description": "The account's " + n + "."}
	}
	doc := map[string]any{
		"type": "object", "required": []any{"data"},
		"properties": map[string]any{
			"data": map[string]any{
				"type": "object", "required": []any{"accounts"},
				"properties": map[string]any{
					"accounts":         map[string]any{"type": "array", "items": item},
					"server_knowledge": map[string]any{"type": "integer", "format": "int64"},
				},
			},
		},
	}
	got := Compact(doc)
	b, _ := json.Marshal(got)
	if len(b) > CompactBudget {
		t.Errorf("the compact schema takes %d bytes, more than %d: %s", len(b), CompactBudget, b)
	}
	sameJSON(t, got, `{"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "required": ["accounts"], "properties": {
	  "accounts": {"type": "array", "items": {"type": "object"}},
	  "server_knowledge": {"type": "integer"}}}}}`)
	acceptsAlike(t, doc, got, "compact", []string{
		`{"data": {"accounts": [{"id": "a", "name": "n"}], "server_knowledge": 3}}`,
	}, []string{
		`{"data": {"accounts": {}}}`,
		`{"data": {}}`,
	})

	// Deeper than the budget allows at any level: the top level's names
	// and types stay.
	wide := map[string]any{"type": "object", "properties": map[string]any{}}
	for i := range 60 {
		wide["properties"].(map[string]any)[strings.Repeat("x", 10)+string(rune('a'+i%26))+string(rune('a'+i/26))] = map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}}
	}
	if got := Compact(wide); len(got["properties"].(map[string]any)) != 60 || !strings.Contains(mustJSON(got), `"xxxxxxxxxxaa":{"type":"object"}`) {
		t.Errorf("a wide schema lost its top level: %s", mustJSON(got))
	}

	// Within the budget: only the annotations and narrowing go.
	small := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "string", "description": "B"}}}}}
	sameJSON(t, Compact(small), `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}`)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
