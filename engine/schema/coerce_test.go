package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestCoerce(t *testing.T) {
	typeOf := func(src string) *Type {
		typ, diags := ParseType(parse(t, src))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return typ
	}
	tests := []struct {
		name  string
		typ   string
		value any
		want  any
	}{
		{"integer from json.Number", "integer", json.Number("42"), 42},
		{"integer written with a fraction", "integer", json.Number("42.0"), 42},
		{"integer written with an exponent", "integer", json.Number("1e3"), 1000},
		{"integer from float64", "integer", 7.0, 7},
		{"integer from int64", "integer", int64(-3), -3},
		{"integer too big for an int", "integer", json.Number("1e30"), 1e30},
		{"number from json.Number", "number", json.Number("2.5"), 2.5},
		{"whole number stays a float", "number", json.Number("3"), 3.0},
		{"number from int", "number", 3, 3.0},
		{"string", "string", "x", "x"},
		{"bool", "bool", true, true},
		{"null", "integer", nil, nil},
		{"any whole", "any", json.Number("5"), 5},
		{"any fraction", "any", json.Number("5.5"), 5.5},
		{"any huge", "any", json.Number("1e300"), 1e300},
		{"any whole float", "any", 6.0, 6},
		{"any deep", "any", map[string]any{"a": []any{json.Number("1"), "x", map[string]any{"b": json.Number("0.5")}}},
			map[string]any{"a": []any{1, "x", map[string]any{"b": 0.5}}}},
		{"list of integers", "list(integer)", []any{json.Number("1"), json.Number("2")}, []any{1, 2}},
		{"list of numbers", "list(number)", []any{json.Number("1"), 2.5}, []any{1.0, 2.5}},
		{"set", "set(integer)", []any{json.Number("1")}, []any{1}},
		{"map", "map(number)", map[string]any{"a": json.Number("1")}, map[string]any{"a": 1.0}},
		{
			"object",
			"object({id = integer, price = number, tags = optional(list(string)), raw = any})",
			map[string]any{"id": json.Number("9"), "price": json.Number("9"), "raw": json.Number("9")},
			map[string]any{"id": 9, "price": 9.0, "raw": 9},
		},
		{
			"nested objects",
			"list(object({id = integer, sub = object({n = number})}))",
			[]any{map[string]any{"id": json.Number("1"), "sub": map[string]any{"n": json.Number("2")}}},
			[]any{map[string]any{"id": 1, "sub": map[string]any{"n": 2.0}}},
		},
		{"unexpected shape is coerced as any", "string", json.Number("4"), 4},
		{"undeclared field is coerced as any", "object({a = string})", map[string]any{"b": json.Number("1")}, map[string]any{"b": 1}},
		{"nil type is any", "", json.Number("4"), 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var typ *Type
			if tt.typ != "" {
				typ = typeOf(tt.typ)
			}
			got := Coerce(tt.value, typ)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestCoerceDoesNotModifyItsArgument(t *testing.T) {
	list := []any{json.Number("1"), json.Number("2")}
	obj := map[string]any{"n": json.Number("1"), "s": "x"}
	Coerce(list, &Type{Kind: List, Elem: &Type{Kind: Integer}})
	Coerce(obj, nil)
	if list[0] != json.Number("1") || obj["n"] != json.Number("1") {
		t.Errorf("changed: %v %v", list, obj)
	}
	// Nothing to convert: the same value comes back, without copying.
	same := []any{"a", "b"}
	got := Coerce(same, &Type{Kind: List, Elem: &Type{Kind: String}})
	if &got.([]any)[0] != &same[0] {
		t.Error("copied a list with nothing to convert")
	}
}

func TestWholeInt(t *testing.T) {
	for _, tt := range []struct {
		f  float64
		ok bool
	}{
		{0, true}, {-1, true}, {1.5, false}, {math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
		{math.MinInt64, true}, {math.MaxInt64, false}, {1 << 62, true},
	} {
		if _, ok := wholeInt(tt.f); ok != tt.ok {
			t.Errorf("wholeInt(%v) ok = %v", tt.f, ok)
		}
	}
}

func TestApplyDefaults(t *testing.T) {
	decl := []Arg{
		{Name: "city"},
		{Name: "units", HasDefault: true, Default: "metric"},
		{Name: "days", HasDefault: true, Default: int64(3)},
		{Name: "note", HasDefault: true, Default: nil},
		{Name: "tags", HasDefault: true, Default: []any{"a", map[string]any{"k": "v"}}},
		{Name: "email", Optional: true},
	}
	got := ApplyDefaults(map[string]any{"city": "Oslo", "units": "imperial"}, decl)
	want := map[string]any{"city": "Oslo", "units": "imperial", "days": int64(3), "note": nil, "tags": []any{"a", map[string]any{"k": "v"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Each call gets its own copy of a list or map default.
	got["tags"].([]any)[1].(map[string]any)["k"] = "changed"
	if decl[4].Default.([]any)[1].(map[string]any)["k"] != "v" {
		t.Error("the declared default was changed through a call's arguments")
	}

	got = ApplyDefaults(nil, decl)
	if got == nil || got["units"] != "metric" || len(got) != 4 {
		t.Errorf("ApplyDefaults(nil) = %v", got)
	}
	// An explicit null is a value, not a missing argument.
	got = ApplyDefaults(map[string]any{"units": nil}, decl)
	if v, ok := got["units"]; !ok || v != nil {
		t.Errorf("units = %v", v)
	}
}

func TestCoerceAfterDefaults(t *testing.T) {
	// The whole call path: validate, apply defaults, coerce.
	decl := []Arg{
		{Name: "days", Type: &Type{Kind: Integer}, HasDefault: true, Default: 3},
		{Name: "ratio", Type: &Type{Kind: Number}, HasDefault: true, Default: 1},
		{Name: "ids", Type: &Type{Kind: List, Elem: &Type{Kind: Integer}}},
	}
	v, err := Compile(InputSchema(decl))
	if err != nil {
		t.Fatal(err)
	}
	args := decode(t, `{"ids": [1, 2]}`).(map[string]any)
	if vs := v.Validate(args); vs != nil {
		t.Fatal(FormatViolations(vs))
	}
	args = ApplyDefaults(args, decl)
	for _, a := range decl {
		args[a.Name] = Coerce(args[a.Name], a.Type)
	}
	want := map[string]any{"days": 3, "ratio": 1.0, "ids": []any{1, 2}}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("got %#v, want %#v", args, want)
	}
}

func BenchmarkCoerce(b *testing.B) {
	typ := &Type{Kind: Object, Fields: []Field{
		{Name: "city", Type: &Type{Kind: String}},
		{Name: "days", Type: &Type{Kind: Integer}},
		{Name: "units", Type: &Type{Kind: String}},
	}}
	value := decode(b, `{"city": "Paris", "days": 3, "units": "metric"}`)
	b.ReportAllocs()
	for b.Loop() {
		Coerce(value, typ)
	}
}
