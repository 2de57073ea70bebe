package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// quickSchemas are the documents the quick path is checked against: what
// InputSchema and OutputSchema write for every type and constraint, and a
// user's schema with type lists, exclusive bounds and nulls.
func quickSchemas(t testing.TB) map[string]*Validator {
	str := &Type{Kind: String}
	num := &Type{Kind: Number}
	docs := map[string]map[string]any{
		"input": InputSchema([]Arg{
			{Name: "s", Type: str, MinLength: new(2), MaxLength: new(8)},
			{Name: "p", Type: str, Pattern: "^[a-z]+$", Optional: true},
			{Name: "e", Type: str, Enum: []any{"a", "b"}, Optional: true},
			{Name: "mail", Type: str, Format: "email", Optional: true},
			{Name: "n", Type: num, Minimum: new(0.5), Maximum: new(10.0), Optional: true},
			{Name: "i", Type: &Type{Kind: Integer}, Minimum: new(-3.0), Optional: true},
			{Name: "b", Type: &Type{Kind: Bool}, Optional: true},
			{Name: "l", Type: &Type{Kind: List, Elem: &Type{Kind: Integer}, Unique: true}, MinItems: new(1), MaxItems: new(3), Optional: true},
			{Name: "m", Type: &Type{Kind: Map, Elem: str}, Optional: true},
			{Name: "o", Type: &Type{Kind: Object, Fields: []Field{{Name: "x", Type: num}, {Name: "y", Type: str, Optional: true}}}, Optional: true},
			{Name: "a", Optional: true},
		}),
		"output": OutputSchema([]Output{
			{Name: "rows", Type: &Type{Kind: List, Elem: &Type{Kind: Object, Fields: []Field{{Name: "name", Type: str}, {Name: "price", Type: num}}}}},
			{Name: "count", Type: &Type{Kind: Integer}, Optional: true},
			{Name: "tags", Type: &Type{Kind: List, Elem: str, Unique: true}, Optional: true},
		}),
		"user": {
			"type": "object",
			"properties": map[string]any{
				"t":   map[string]any{"type": []any{"string", "null"}, "enum": []any{"x", nil, true}},
				"ex":  map[string]any{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
				"any": true,
				"u":   map[string]any{"type": "array", "uniqueItems": true},
			},
			"additionalProperties": map[string]any{"type": "integer", "maximum": 1e15},
		},
	}
	out := map[string]*Validator{}
	for name, doc := range docs {
		v, err := Compile(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.quick == nil {
			t.Fatalf("%s: the schema has no quick path", name)
		}
		out[name] = v
	}
	return out
}

// fullAccepts is the verdict of the full validator alone.
func (v *Validator) fullAccepts(t testing.TB, value any) bool {
	full, err := v.full()
	if err != nil {
		t.Fatalf("the schema does not compile in full: %v", err)
	}
	nv, _, err := native(value)
	return err == nil && full.schema.Validate(nv) == nil
}

func TestQuick(t *testing.T) {
	vs := quickSchemas(t)
	tests := []struct {
		schema, value string
		quick         bool // whether the quick path decides alone
	}{
		{"input", `{"s": "abcd"}`, true},
		{"input", `{"s": "ab", "n": 10, "i": -3, "b": false, "l": [1, 2, 3], "m": {"k": "v"}, "o": {"x": 1.5}, "a": [{}]}`, true},
		{"input", `{"s": "日本語"}`, true},
		{"input", `{"s": "abcd", "e": "b"}`, true},
		{"input", `{"s": "abcd", "n": 0.5}`, false}, // a json.Number on a bound
		{"input", `{"s": "abcd", "n": 1.25}`, true},
		{"input", `{"s": "abcd", "i": 2.0}`, false}, // an integer, for the full validator to see
		// Valid, but for the full validator to say.
		{"input", `{"s": "abcd", "p": "abc"}`, false},
		{"input", `{"s": "abcd", "mail": "a@example.com"}`, false},
		{"input", `{"s": "abcd", "n": 10.0}`, false}, // a json.Number on a bound
		// Invalid.
		{"input", `{}`, false},
		{"input", `{"s": "a"}`, false},
		{"input", `{"s": "abcdefghi"}`, false},
		{"input", `{"s": "abcd", "extra": 1}`, false},
		{"input", `{"s": "abcd", "e": "c"}`, false},
		{"input", `{"s": "abcd", "n": 0.25}`, false},
		{"input", `{"s": "abcd", "n": 11}`, false},
		{"input", `{"s": "abcd", "i": 1.5}`, false},
		{"input", `{"s": "abcd", "i": -4}`, false},
		{"input", `{"s": "abcd", "l": []}`, false},
		{"input", `{"s": "abcd", "l": [1, 2, 3, 4]}`, false},
		{"input", `{"s": "abcd", "l": [1, 1]}`, false},
		{"input", `{"s": "abcd", "m": {"k": 1}}`, false},
		{"input", `{"s": "abcd", "o": {"y": "z"}}`, false},
		{"input", `{"s": "abcd", "o": {"x": 1, "z": 1}}`, false},
		{"input", `{"s": "abcd", "b": "true"}`, false},
		{"output", `{"rows": [{"name": "a", "price": 1}, {"name": "b", "price": 2.5}], "count": 2, "tags": ["x", "y"]}`, true},
		{"output", `{"rows": []}`, true},
		{"output", `{"rows": [{"name": "a"}]}`, false},
		{"output", `{"rows": [{"name": "a", "price": "1"}]}`, false},
		{"output", `{"rows": [], "tags": ["x", "x"]}`, false},
		{"output", `{"rows": [], "count": 1e400}`, false},
		{"user", `{"t": null, "ex": 0.5, "any": {"deep": [1]}, "u": [1, "1", true, null], "n": 999999999999999}`, true},
		{"user", `{"t": "x"}`, true},
		{"user", `{"t": true}`, false},
		{"user", `{"t": "y"}`, false},
		{"user", `{"ex": 0}`, false},
		{"user", `{"ex": 1}`, false},
		{"user", `{"u": [1, 1.0]}`, false},
		{"user", `{"u": [{}, {}]}`, false},
		{"user", `{"n": 1000000000000001}`, false},
		{"user", `{"n": 1.5}`, false},
	}
	for _, tc := range tests {
		v := vs[tc.schema]
		for _, useNumber := range []bool{true, false} {
			value, ok := decodeWith(tc.value, useNumber)
			if !ok {
				continue // 1e400 is no float64
			}
			got := v.quick.accepts(value)
			if useNumber && got != tc.quick {
				t.Errorf("%s %s (json.Number): quick accepts = %v, want %v", tc.schema, tc.value, got, tc.quick)
			}
			if got && !v.fullAccepts(t, value) {
				t.Errorf("%s %s (json.Number %v): quick accepts what the full validator refuses", tc.schema, tc.value, useNumber)
			}
			// Validate's verdict is the full validator's, whichever path.
			if valid := v.Validate(value) == nil; valid != v.fullAccepts(t, value) {
				t.Errorf("%s %s (json.Number %v): Validate says valid = %v, the full validator %v", tc.schema, tc.value, useNumber, valid, !valid)
			}
		}
	}
}

// TestQuickGoValues checks the Go values that expr programs and adapters
// produce: the quick path takes the JSON ones and leaves the rest.
func TestQuickGoValues(t *testing.T) {
	v := quickSchemas(t)["output"]
	rows := []any{map[string]any{"name": "a", "price": int64(3)}, map[string]any{"name": "b", "price": float32(1.5)}}
	if !v.quick.accepts(map[string]any{"rows": rows, "count": 7}) {
		t.Error("quick refuses rows of int64 and float32 prices")
	}
	for _, value := range []map[string]any{
		{"rows": []map[string]any{{"name": "a", "price": 1}}}, // valid, not []any
		{"rows": rows, "tags": []string{"x"}},                 // valid, not []any
		{"rows": rows, "count": int64(1) << 60},               // valid, beyond float64's exact integers
	} {
		if v.quick.accepts(value) {
			t.Errorf("quick accepts %v, which only the full validator can judge", value)
		}
		if v.Validate(value) != nil {
			t.Errorf("Validate refuses the valid %v", value)
		}
	}
}

// TestQuickUnknownKeywords checks that a schema with a keyword the quick
// path does not know has none.
func TestQuickUnknownKeywords(t *testing.T) {
	for _, doc := range []map[string]any{
		{"$defs": map[string]any{"a": map[string]any{"type": "string"}}, "$ref": "#/$defs/a"},
		{"type": "object", "properties": map[string]any{"a": map[string]any{"allOf": []any{true}}}},
		{"type": "array", "items": false},
		{"type": "string", "enum": []any{1, 2}},
		{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
	} {
		v, err := Compile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if v.quick != nil {
			t.Errorf("%v has a quick path", doc)
		}
	}
}

// TestQuickInvalidDocuments checks that documents the full compiler
// refuses get no quick form, so that Compile still refuses them at once.
func TestQuickInvalidDocuments(t *testing.T) {
	for _, doc := range []map[string]any{
		{"type": "object", "required": []any{"a", "a"}},
		{"type": []any{"string", "string"}},
		{"type": []any{}},
		{"type": "text"},
		{"type": "string", "minLength": -1},
		{"type": "string", "maxLength": 1.5},
		{"type": "string", "pattern": "("},
		{"type": "string", "format": 7},
		{"type": "string", "pattern": 1},
		{"type": "string", "description": 5},
		{"type": "string", "examples": "x"},
		{"type": "string", "deprecated": "yes"},
		{"type": "object", "properties": map[string]any{"a": "string"}},
	} {
		if q := compileQuick(doc, true); q != nil {
			t.Errorf("%v has a quick form", doc)
		}
		if _, err := Compile(doc); err == nil {
			t.Errorf("Compile(%v) = no error", doc)
		}
	}
}

// FuzzQuick checks that the quick path never accepts a value the full
// validator refuses, for values decoded with and without json.Number, and
// that every document with a quick form compiles in full.
func FuzzQuick(f *testing.F) {
	for _, seed := range []string{
		`{"s": "abcd", "n": 10, "i": 3, "l": [1, 2], "m": {"k": "v"}, "o": {"x": 1.5}}`,
		`{"rows": [{"name": "a", "price": 1}], "count": 2, "tags": ["x"]}`,
		`{"t": null, "ex": 0.5, "u": [1, "1"], "n": 5}`,
		`{"s": "ab", "i": -3.0, "n": 1e1}`,
		`{"type": ["string", "null"], "minLength": 1, "required": ["a"], "properties": {"a": {"enum": ["x", null]}}}`,
		`{"type": "array", "items": {"type": "integer", "maximum": 3}, "uniqueItems": true, "description": "d"}`,
	} {
		f.Add([]byte(seed))
	}
	vs := quickSchemas(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 4096 {
			return
		}
		for _, useNumber := range []bool{true, false} {
			value, ok := decodeWith(string(raw), useNumber)
			if !ok {
				return
			}
			// The value as a document: one with a quick form compiles in
			// full, as Compile takes for granted.
			if doc, ok := value.(map[string]any); ok && compileQuick(doc, true) != nil {
				if _, err := compileFull(clone(doc)); err != nil {
					t.Fatalf("%s has a quick form but does not compile: %v", raw, err)
				}
			}
			for name, v := range vs {
				if v.quick.accepts(value) && !v.fullAccepts(t, value) {
					t.Fatalf("%s (json.Number %v): quick accepts %s, which the full validator refuses", name, useNumber, raw)
				}
			}
		}
	})
}

func decodeWith(s string, useNumber bool) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if useNumber {
		dec.UseNumber()
	}
	var v any
	err := dec.Decode(&v)
	return v, err == nil
}

// TestValidatePartial checks defaults the way the loader does: missing
// arguments are fine, a default that breaks its own argument is not,
// whichever path decides.
func TestValidatePartial(t *testing.T) {
	v := quickSchemas(t)["input"]
	for _, tt := range []struct {
		value string
		quick bool
		want  []string // pointers of the violations
	}{
		{`{}`, true, nil},
		{`{"n": 5, "b": true}`, true, nil},
		{`{"p": "abc"}`, false, nil}, // a pattern: the full validator decides
		{`{"n": 50}`, false, []string{"/n"}},
		{`{"e": "c", "i": 1.5}`, false, []string{"/e", "/i"}},
	} {
		obj, _ := decodeWith(tt.value, true)
		if got := v.quick.acceptsObject(obj.(map[string]any), false); got != tt.quick {
			t.Errorf("%s: quick accepts = %v, want %v", tt.value, got, tt.quick)
		}
		var got []string
		for _, viol := range v.ValidatePartial(obj.(map[string]any)) {
			got = append(got, viol.Pointer)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: violations at %v, want %v", tt.value, got, tt.want)
		}
	}
}
