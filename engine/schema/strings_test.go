package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCoerceStrings(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		value  any
		want   any
	}{
		{"integer", `{"type": "integer"}`, "3", json.Number("3")},
		{"negative", `{"type": "integer"}`, "-3", json.Number("-3")},
		{"integer with a zero fraction", `{"type": "integer"}`, "3.0", json.Number("3.0")},
		{"integer with an exponent", `{"type": "integer"}`, "25e-1", "25e-1"},
		{"integer with a fraction", `{"type": "integer"}`, "3.5", "3.5"},
		{"integer of many digits", `{"type": "integer"}`, "120.000e-1", json.Number("120.000e-1")},
		{"number", `{"type": "number"}`, "2.5E+3", json.Number("2.5E+3")},
		{"zero", `{"type": "number"}`, "-0", json.Number("-0")},
		{"huge exponent", `{"type": "integer"}`, "1e99999999999999999999", json.Number("1e99999999999999999999")},
		{"tiny exponent", `{"type": "integer"}`, "1e-99999999999999999999", "1e-99999999999999999999"},
		{"zero with a tiny exponent", `{"type": "integer"}`, "0e-99999999999999999999", json.Number("0e-99999999999999999999")},
		{"boolean", `{"type": "boolean"}`, "false", false},
		{"number or boolean", `{"type": ["number", "boolean"]}`, "true", true},
		{"number or null", `{"type": ["number", "null"]}`, "1", json.Number("1")},
		{"string allowed", `{"type": ["string", "number"]}`, "1", "1"},
		{"no type", `{"enum": ["1", 1]}`, "1", "1"},
		{"string", `{"type": "string"}`, "1", "1"},

		{"leading space", `{"type": "number"}`, " 1", " 1"},
		{"trailing space", `{"type": "number"}`, "1 ", "1 "},
		{"plus", `{"type": "number"}`, "+1", "+1"},
		{"leading zero", `{"type": "number"}`, "01", "01"},
		{"hex", `{"type": "number"}`, "0x1", "0x1"},
		{"NaN", `{"type": "number"}`, "NaN", "NaN"},
		{"Infinity", `{"type": "number"}`, "-Infinity", "-Infinity"},
		{"point only", `{"type": "number"}`, "1.", "1."},
		{"two values", `{"type": "number"}`, "1 2", "1 2"},
		{"True", `{"type": "boolean"}`, "True", "True"},
		{"number for a boolean", `{"type": "boolean"}`, "1", "1"},

		{"properties", `{"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}`,
			map[string]any{"a": "1", "s": "2", "x": "3"}, map[string]any{"a": json.Number("1"), "s": "2", "x": "3"}},
		{"additional properties", `{"type": "object", "properties": {"s": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}`,
			map[string]any{"s": "true", "x": "true"}, map[string]any{"s": "true", "x": true}},
		{"pattern properties", `{"type": "object", "patternProperties": {"^n_": {"type": "number"}}, "additionalProperties": {"type": "boolean"}}`,
			map[string]any{"n_a": "1", "b": "true"}, map[string]any{"n_a": json.Number("1"), "b": true}},
		{"items", `{"type": "array", "items": {"type": "integer"}}`, []any{"1", 2, "x"}, []any{json.Number("1"), 2, "x"}},
		{"prefix items", `{"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}}`,
			[]any{"1", "2"}, []any{"1", json.Number("2")}},
		{"draft 7 items", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": {"type": "number"}}`,
			[]any{"1", "2"}, []any{"1", json.Number("2")}},
		{"ref", `{"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}`,
			map[string]any{"a": "1"}, map[string]any{"a": json.Number("1")}},
		{"recursive ref", `{"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}`,
			map[string]any{"v": "1", "next": map[string]any{"v": "2"}}, map[string]any{"v": json.Number("1"), "next": map[string]any{"v": json.Number("2")}}},
		{"allOf agreeing", `{"allOf": [{"type": "number"}, {"type": "integer"}]}`, "2", json.Number("2")},
		{"allOf allowing a string", `{"allOf": [{"type": ["number", "string"]}, {"minimum": 1}]}`, "2", "2"},
		{"anyOf not followed", `{"anyOf": [{"type": "number"}, {"type": "boolean"}]}`, "2", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Compile(decodeDoc(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			got, changed := v.CoerceStrings(tt.value)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if want := !reflect.DeepEqual(tt.value, tt.want); changed != want && !isContainer(tt.value) {
				t.Errorf("changed = %v, want %v", changed, want)
			}
		})
	}
}

func isContainer(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

func TestIsWhole(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "3": true, "-3": true, "3.0": true, "3.00": true, "3.01": false, "0.5": false,
		"1e2": true, "1.5e1": true, "1.55e1": false, "15e-1": false, "150e-1": true, "0.0e-5": true,
		"1E+2": true, "100e-2": true, "101e-2": false,
	} {
		if got := isWhole(s); got != want {
			t.Errorf("isWhole(%q) = %v, want %v", s, got, want)
		}
	}
}
