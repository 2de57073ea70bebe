package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// decode decodes JSON as the server does, with numbers as json.Number.
func decode(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

// decodeFloat decodes JSON with numbers as float64.
func decodeFloat(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

// weather is the validator of a tool's arguments used across tests.
func weather(t testing.TB) *Validator {
	t.Helper()
	item := &Type{Kind: Object, Fields: []Field{
		{Name: "id", Type: &Type{Kind: Integer}},
		{Name: "note", Type: &Type{Kind: String}, Optional: true},
	}}
	v, err := Compile(InputSchema([]Arg{
		{Name: "city", Type: &Type{Kind: String}, MinLength: new(1)},
		{Name: "days", Type: &Type{Kind: Integer}, Minimum: new(1.0), Maximum: new(7.0), HasDefault: true, Default: 3},
		{Name: "units", Type: &Type{Kind: String}, Enum: []any{"metric", "imperial"}, HasDefault: true, Default: "metric"},
		{Name: "email", Type: &Type{Kind: String}, Format: "email", Optional: true},
		{Name: "items", Type: &Type{Kind: List, Elem: item}, Optional: true, MaxItems: new(3)},
		{Name: "tags", Type: &Type{Kind: List, Elem: &Type{Kind: String}, Unique: true}, Optional: true},
		{Name: "ratio", Type: &Type{Kind: Number}, Optional: true, Maximum: new(0.5)},
		{Name: "labels", Type: &Type{Kind: Map, Elem: &Type{Kind: Bool}}, Optional: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidate(t *testing.T) {
	v := weather(t)
	tests := []struct {
		name, value string
		want        []Violation
	}{
		{name: "valid", value: `{"city": "Paris"}`},
		{name: "valid, everything", value: `{"city": "Paris", "days": 7, "units": "imperial", "email": "a@example.com",
			"items": [{"id": 1}, {"id": 2.0, "note": "x"}], "tags": ["a", "b"], "ratio": 0.25, "labels": {"x": true}}`},
		{
			name:  "missing",
			value: `{}`,
			want:  []Violation{{"", "missing property 'city'"}},
		},
		{
			name:  "several at once",
			value: `{"city": "", "days": 0, "units": "kelvin", "email": "nope", "color": "red"}`,
			want: []Violation{
				{"/city", "must have at least 1 character, but has 0"},
				{"/color", "unknown property; the known properties are 'city', 'days', 'email', 'items', 'labels', 'ratio', 'tags', 'units'"},
				{"/days", "must be at least 1, but got 0"},
				{"/email", "must be a valid email address (missing @)"},
				{"/units", `must be one of "metric", "imperial"`},
			},
		},
		{
			name:  "typo",
			value: `{"ctiy": "Paris"}`,
			want: []Violation{
				{"", "missing property 'city'"},
				{"/ctiy", "unknown property; did you mean 'city'?"},
			},
		},
		{
			name:  "types",
			value: `{"city": 5, "days": 2.5, "ratio": "high", "labels": {"a": 1}, "tags": "a"}`,
			want: []Violation{
				{"/city", "must be a string, but got 5"},
				{"/days", "must be an integer, but got 2.5"},
				{"/labels/a", "must be a boolean, but got 1"},
				{"/ratio", "must be a number, but got a string"},
				{"/tags", "must be an array, but got a string"},
			},
		},
		{
			name:  "nested",
			value: `{"city": "Oslo", "items": [{"id": 1}, {"id": "2"}, {"note": "n"}, {"id": 4, "extra": true}]}`,
			want: []Violation{
				{"/items", "must have at most 3 items, but has 4"},
				{"/items/1/id", "must be an integer, but got a string"},
				{"/items/2", "missing property 'id'"},
				{"/items/3/extra", "unknown property; the known properties are 'id', 'note'"},
			},
		},
		{
			name:  "items sort by index",
			value: `{"city": "Oslo", "tags": ["a", "b", "a"], "items": [{"id": 1}, {}, {}]}`,
			want: []Violation{
				{"/items/1", "missing property 'id'"},
				{"/items/2", "missing property 'id'"},
				{"/tags", "must not contain duplicates, but items 0 and 2 are equal"},
			},
		},
		{
			name:  "numbers keep their digits",
			value: `{"city": "Oslo", "days": 100000000000000000000000, "ratio": 0.5000001}`,
			want: []Violation{
				{"/days", "must be at most 7, but got 100000000000000000000000"},
				{"/ratio", "must be at most 0.5, but got 0.5000001"},
			},
		},
		{
			name:  "null is not a string",
			value: `{"city": null}`,
			want:  []Violation{{"/city", "must be a string, but got null"}},
		},
		{
			name:  "not an object",
			value: `[1]`,
			want:  []Violation{{"", "must be an object, but got an array"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, dec := range []func(testing.TB, string) any{decode, decodeFloat} {
				got := v.Validate(dec(t, tt.value))
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got\n%s\nwant\n%s", FormatViolations(got), FormatViolations(tt.want))
				}
			}
		})
	}
}

func TestValidateFormats(t *testing.T) {
	v, err := Compile(InputSchema([]Arg{
		{Name: "email", Type: &Type{Kind: String}, Format: "email", Optional: true},
		{Name: "when", Type: &Type{Kind: String}, Format: "date-time", Optional: true},
		{Name: "id", Type: &Type{Kind: String}, Format: "uuid", Optional: true},
		{Name: "site", Type: &Type{Kind: String}, Format: "uri", Optional: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	good := `{"email": "ada@example.com", "when": "2024-05-01T12:00:00Z", "id": "3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a", "site": "https://example.com/x"}`
	if vs := v.Validate(decode(t, good)); vs != nil {
		t.Errorf("valid formats rejected:\n%s", FormatViolations(vs))
	}
	bad := `{"email": "ada.example.com", "when": "yesterday", "id": "42", "site": "example"}`
	vs := v.Validate(decode(t, bad))
	var pointers []string
	for _, x := range vs {
		pointers = append(pointers, x.Pointer)
		if !strings.HasPrefix(x.Message, "must be a valid ") {
			t.Errorf("%s: %s", x.Pointer, x.Message)
		}
		if strings.Contains(x.Message, "yesterday") || strings.Contains(x.Message, "ada.example.com") {
			t.Errorf("%s: the message repeats the value: %s", x.Pointer, x.Message)
		}
	}
	if want := []string{"/email", "/id", "/site", "/when"}; !reflect.DeepEqual(pointers, want) {
		t.Errorf("violations at %v, want %v:\n%s", pointers, want, FormatViolations(vs))
	}
}

func TestValidateNumbers(t *testing.T) {
	v, err := Compile(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"i": map[string]any{"type": "integer", "minimum": 0},
			"n": map[string]any{"type": "number", "exclusiveMaximum": json.Number("1.5")},
			"m": map[string]any{"type": "integer", "multipleOf": 5},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, value := range []map[string]any{
		{"i": json.Number("3"), "n": json.Number("1.25"), "m": json.Number("10")},
		{"i": 3, "n": 1.25, "m": int64(10)},
		{"i": 3.0, "n": float32(1.25), "m": uint8(10)},
		{"i": json.Number("3.0"), "n": json.Number("-1e300"), "m": json.Number("1e1")},
	} {
		if vs := v.Validate(value); vs != nil {
			t.Errorf("%v: %s", value, FormatViolations(vs))
		}
	}
	got := v.Validate(map[string]any{"i": json.Number("-1"), "n": json.Number("1.5"), "m": 7})
	want := []Violation{
		{"/i", "must be at least 0, but got -1"},
		{"/m", "must be a multiple of 5, but got 7"},
		{"/n", "must be less than 1.5, but got 1.5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", FormatViolations(got), FormatViolations(want))
	}
	got = v.Validate(map[string]any{"i": math.NaN()})
	if len(got) != 1 || got[0].Pointer != "/i" || got[0].Message != "is NaN, which JSON cannot represent" {
		t.Errorf("NaN: %q", got)
	}
}

func TestValidateGoValues(t *testing.T) {
	// What expr programs and adapters produce is checked as it will be sent.
	v, err := Compile(OutputSchema([]Output{
		{Name: "names", Type: &Type{Kind: List, Elem: &Type{Kind: String}}},
		{Name: "counts", Type: &Type{Kind: Map, Elem: &Type{Kind: Integer}}},
		{Name: "when", Type: &Type{Kind: String}},
		{Name: "matrix", Type: &Type{Kind: List, Elem: &Type{Kind: List, Elem: &Type{Kind: Number}}}},
		{Name: "ptr", Type: &Type{Kind: Integer}},
		{Name: "blob", Type: &Type{Kind: String}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	n := 4
	value := map[string]any{
		"names":  []string{"a", "b"},
		"counts": map[string]int{"a": 1},
		"when":   time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"matrix": [][]float64{{1, 2}, {3}},
		"ptr":    &n,
		"blob":   []byte("hi"),
	}
	if vs := v.Validate(value); vs != nil {
		t.Errorf("valid value rejected:\n%s", FormatViolations(vs))
	}
	if _, ok := value["names"].([]string); !ok {
		t.Error("Validate changed its argument")
	}
	value["names"] = []int{1}
	value["counts"] = map[string]string{"a": "x"}
	want := []Violation{
		{"/counts/a", "must be an integer, but got a string"},
		{"/names/0", "must be a string, but got 1"},
	}
	if got := v.Validate(value); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", FormatViolations(got), FormatViolations(want))
	}
	value["names"] = []any{"ok", make(chan int)}
	got := v.Validate(value)
	if len(got) != 1 || got[0].Pointer != "/names/1" || !strings.Contains(got[0].Message, "cannot be written as JSON") {
		t.Errorf("a channel: %q", got)
	}
}

func TestValidateUserSchema(t *testing.T) {
	doc := decode(t, `{
		"type": "object",
		"properties": {
			"shape": {"oneOf": [
				{"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
				{"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number"}}, "required": ["w", "h"], "additionalProperties": false}
			]},
			"ref": {"$ref": "#/$defs/positive"},
			"name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
			"kind": {"const": "x"},
			"deps": {"type": "object", "dependentRequired": {"a": ["b"]}},
			"never": false,
			"list": {"type": "array", "contains": {"type": "integer"}}
		},
		"$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}}
	}`).(map[string]any)
	v, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	value := decode(t, `{"shape": {"r": 1, "w": 2}, "ref": 0, "name": "ABCDEFG", "kind": "y", "deps": {"a": 1}, "never": 1, "list": ["a"]}`)
	want := []Violation{
		{"/deps", "missing property 'b', which is required when 'a' is present"},
		{"/kind", `must be "x"`},
		{"/list", `must contain at least one item that matches the schema under "contains"`},
		{"/name", "must have at most 5 characters, but has 7"},
		{"/name", "must match the pattern ^[a-z]+$"},
		{"/never", "is not allowed"},
		{"/ref", "must be greater than 0, but got 0"},
		{"/shape", "missing property 'h'"},
		{"/shape/r", "unknown property; the known properties are 'h', 'w'"},
		{"/shape/w", "unknown property; the only known property is 'r'"},
	}
	if got := v.Validate(value); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", FormatViolations(got), FormatViolations(want))
	}
	// Compile keeps its own copy.
	doc["properties"].(map[string]any)["kind"].(map[string]any)["const"] = "y"
	if got := v.Validate(map[string]any{"kind": "y"}); len(got) != 1 {
		t.Errorf("changing the document changed the validator: %q", got)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{`{"type": "strng"}`, `at /type: must be an array, but got a string; at /type: must be one of "array", "boolean", "integer", "null", "number", "object", "string"`},
		{`{"properties": {"a": {"minLength": -1}}}`, "at /properties/a/minLength: must be at least 0, but got -1"},
		{`{"required": "a"}`, "at /required: must be an array, but got a string"},
		{`{"$ref": "other.json"}`, `"other.json" is outside the schema, which must be self-contained: put shared parts under "$defs" and refer to them as "#/$defs/name"`},
		{`{"$ref": "https://example.com/schema.json"}`, `"https://example.com/schema.json" is outside the schema, which must be self-contained: put shared parts under "$defs" and refer to them as "#/$defs/name"`},
		{`{"$ref": "#/$defs/missing"}`, `"$ref" points at #/$defs/missing, which is not in the schema`},
		{`{"properties": {"a": {"pattern": "(("}}}`, "at /properties/a/pattern: must be a valid regular expression (missing closing ))"},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			_, err := Compile(decode(t, tt.doc).(map[string]any))
			if err == nil {
				t.Fatal("compiled")
			}
			if strings.Contains(err.Error(), "mcpdecl:") {
				t.Errorf("the error names our internal URL: %v", err)
			}
			if tt.want != "" && !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
	if _, err := Compile(nil); err == nil {
		t.Error("Compile(nil) succeeded")
	}
}

func TestCompileOtherDrafts(t *testing.T) {
	v, err := Compile(map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type":    "object",
		"properties": map[string]any{
			"e": map[string]any{"type": "string", "format": "email"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Validate(map[string]any{"e": "nope"}); len(got) != 1 || got[0].Pointer != "/e" {
		t.Errorf("got %q", got)
	}
}

func TestCompileTakesGoValues(t *testing.T) {
	// A document built in Go need not use []any and map[string]any.
	v, err := Compile(map[string]any{
		"type":       "object",
		"properties": map[string]map[string]any{"a": {"type": "string", "enum": []string{"x", "y"}}},
		"required":   []string{"a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Violation{{"", "missing property 'a'"}}
	if got := v.Validate(map[string]any{}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	want = []Violation{{"/a", `must be one of "x", "y"`}}
	if got := v.Validate(map[string]any{"a": "z"}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestFormatViolations(t *testing.T) {
	got := FormatViolations([]Violation{
		{"", "missing property 'city'"},
		{"/days", "must be at least 1, but got 0"},
	})
	want := "- (root): missing property 'city'\n- /days: must be at least 1, but got 0"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := FormatViolations(nil); got != "" {
		t.Errorf("FormatViolations(nil) = %q", got)
	}
	many := make([]Violation, 120)
	for i := range many {
		many[i] = Violation{"/" + strconv.Itoa(i), "must be a string, but got 1"}
	}
	lines := strings.Split(FormatViolations(many), "\n")
	if len(lines) != 51 || lines[49] != "- /49: must be a string, but got 1" || lines[50] != "- … and 70 more" {
		t.Errorf("%d lines, ending %q", len(lines), lines[len(lines)-1])
	}
}

func TestPointersAreEscaped(t *testing.T) {
	v, err := Compile(map[string]any{
		"type":                 "object",
		"additionalProperties": map[string]any{"type": "integer"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := v.Validate(map[string]any{"a/b": "x", "c~d": 1})
	want := []Violation{{"/a~1b", "must be an integer, but got a string"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}

func TestValidateConcurrently(t *testing.T) {
	v := weather(t)
	good := decode(t, `{"city": "Paris", "items": [{"id": 1}]}`)
	bad := decode(t, `{"city": "", "email": "x", "items": [{"id": "x"}]}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if vs := v.Validate(good); vs != nil {
					t.Error(vs)
					return
				}
				if vs := v.Validate(bad); len(vs) != 3 {
					t.Error(vs)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkValidate(b *testing.B) {
	v, err := Compile(InputSchema([]Arg{
		{Name: "city", Type: &Type{Kind: String}, MinLength: new(1)},
		{Name: "days", Type: &Type{Kind: Integer}, Minimum: new(1.0), Maximum: new(7.0)},
		{Name: "units", Type: &Type{Kind: String}, Enum: []any{"metric", "imperial"}},
	}))
	if err != nil {
		b.Fatal(err)
	}
	value := decode(b, `{"city": "Paris", "days": 3, "units": "metric"}`)
	b.ReportAllocs()
	for b.Loop() {
		if vs := v.Validate(value); vs != nil {
			b.Fatal(vs)
		}
	}
}
