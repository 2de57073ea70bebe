package schema

import (
	"encoding/json"
	"testing"
)

// TestCompact: the annotations go wherever a schema may stand (under
// properties, items, the applicators, $defs…); the assertions, data
// (enum, const) and property names stay, whatever they are called; the
// document given is left as it was.
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
	    "map": {"type": "object", "additionalProperties": {"type": "number", "description": "v"}, "propertyNames": {"pattern": "^[a-z]+$", "title": "p"}, "patternProperties": {"^x": {"description": "y"}}}
	  },
	  "$defs": {"named": {"type": "boolean", "description": "a definition"}}
	}`
	const compact = `{
	  "type": "object",
	  "required": ["title", "description"],
	  "additionalProperties": false,
	  "properties": {
	    "title": {"type": "string", "minLength": 1},
	    "description": {"type": ["string", "null"]},
	    "kind": {"enum": [{"description": "data, not a schema"}, "b"], "const": {"title": "kept"}},
	    "when": {"type": "string", "format": "date-time"},
	    "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}},
	    "pair": {"prefixItems": [{"type": "integer"}], "items": false},
	    "blob": {"type": "string"},
	    "odd": {"not": {"type": "string"}},
	    "either": {"oneOf": [{"type": "integer"}, {"$ref": "#/$defs/named"}]},
	    "cond": {"if": {"minimum": 0}, "then": {"multipleOf": 2}, "else": {}},
	    "map": {"type": "object", "additionalProperties": {"type": "number"}, "propertyNames": {"pattern": "^[a-z]+$"}, "patternProperties": {"^x": {}}}
	  },
	  "$defs": {"named": {"type": "boolean"}}
	}`
	var doc map[string]any
	if err := json.Unmarshal([]byte(full), &doc); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(doc)
	got := Compact(doc)
	sameJSON(t, got, compact)
	if after, _ := json.Marshal(doc); string(after) != string(before) {
		t.Errorf("Compact changed the document it was given:\n%s", after)
	}

	// Both accept and refuse the same values: only annotations went.
	fullV, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	compactV, err := Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{
		`{"title": "a", "description": null}`,
		`{"title": "", "description": "x"}`,
		`{"title": "a"}`,
		`{"title": "a", "description": "x", "other": 1}`,
		`{"title": "a", "description": "x", "odd": "s"}`,
		`{"title": "a", "description": "x", "either": true, "cond": 4, "tags": ["a"], "map": {"ab": 1}}`,
		`{"title": "a", "description": "x", "either": "no", "cond": 3, "tags": ["b"], "map": {"A": 1}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			t.Fatal(err)
		}
		if f, c := len(fullV.Validate(v)) == 0, len(compactV.Validate(v)) == 0; f != c {
			t.Errorf("%s: the whole schema accepts it %v, the compact one %v", value, f, c)
		}
	}

	if Compact(nil) != nil {
		t.Error("Compact(nil) is not nil")
	}
}
