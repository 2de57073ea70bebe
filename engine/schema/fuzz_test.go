package schema_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/schema"
)

func ptr[T any](v T) *T { return &v }

// fuzzArgs declares one argument of each type, with constraints.
func fuzzArgs() []schema.Arg {
	str := &schema.Type{Kind: schema.String}
	return []schema.Arg{
		{Name: "s", Type: str, MinLength: ptr(2), MaxLength: ptr(8), Pattern: "^[a-z]+$"},
		{Name: "e", Type: str, Enum: []any{"a", "b"}, Optional: true},
		{Name: "mail", Type: str, Format: "email", Optional: true},
		{Name: "n", Type: &schema.Type{Kind: schema.Number}, Minimum: ptr(0.0), Maximum: ptr(10.0), Default: 3.5, HasDefault: true},
		{Name: "i", Type: &schema.Type{Kind: schema.Integer}, Optional: true},
		{Name: "b", Type: &schema.Type{Kind: schema.Bool}, Default: true, HasDefault: true},
		{Name: "l", Type: &schema.Type{Kind: schema.List, Elem: &schema.Type{Kind: schema.Integer}, Unique: true}, MinItems: ptr(1), Optional: true},
		{Name: "m", Type: &schema.Type{Kind: schema.Map, Elem: str}, Optional: true},
		{Name: "o", Type: &schema.Type{Kind: schema.Object, Fields: []schema.Field{{Name: "x", Type: &schema.Type{Kind: schema.Number}}}}, Optional: true},
		{Name: "a", Optional: true},
		{Name: "secret", Type: str, Sensitive: true, Optional: true},
	}
}

// FuzzValidate checks arguments of every shape against a schema of every
// type: validation never panics, every violation has a message and a
// pointer into the value, no message repeats a string of the arguments, and
// valid arguments take their defaults and coerce cleanly.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"s": "abc"}`,
		`{"s": "abc", "n": 10, "i": 3, "b": false, "l": [1, 2], "m": {"k": "v"}, "o": {"x": 1.5}, "a": null}`,
		`{"s": "ABC", "n": -1, "i": 2.5, "l": [1, 1], "o": {"y": 1}, "extra": 1}`,
		`{"s": "abc", "mail": "not-an-email-hunter2", "secret": "hunter2"}`,
		`[]`, `null`, `"x"`, `{"s": {"s": {"s": []}}}`,
	} {
		f.Add([]byte(seed))
	}
	args := fuzzArgs()
	doc := schema.InputSchema(args)
	v, err := schema.Compile(doc)
	if err != nil {
		f.Fatal(err)
	}
	// Strings that the schema holds itself (names, enums) may appear in
	// messages; others may not.
	own, _ := json.Marshal(doc)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 4096 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var value any
		if dec.Decode(&value) != nil {
			return
		}
		obj, ok := value.(map[string]any)
		if !ok {
			return
		}
		vs := v.Validate(obj)
		strs := stringsIn(obj)
		for _, viol := range vs {
			if viol.Message == "" || (viol.Pointer != "" && !strings.HasPrefix(viol.Pointer, "/")) {
				t.Fatalf("violation without a message or a pointer: %+v", viol)
			}
			for _, s := range strs {
				if len(s) >= 6 && strings.Contains(viol.Message, s) && !strings.Contains(string(own), s) {
					t.Fatalf("a violation repeats the string %q of the arguments: %q", s, viol.Message)
				}
			}
		}
		if len(vs) > 0 {
			return
		}
		out := schema.ApplyDefaults(obj, args)
		for _, a := range args {
			if a.HasDefault {
				if _, ok := out[a.Name]; !ok {
					t.Fatalf("default of %s not applied: %v", a.Name, out)
				}
			}
			if val, ok := out[a.Name]; ok && a.Type != nil {
				_ = schema.Coerce(val, a.Type)
			}
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("valid arguments do not marshal: %v", err)
		}
	})
}

// stringsIn lists the string values in v.
func stringsIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
	case map[string]any:
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
	}
	return out
}
