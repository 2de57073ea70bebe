package gqlschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigIntrospection is an introspection result of n object types of 30
// fields each, every field with an argument and a description.
func bigIntrospection(n int) []byte {
	types := []any{map[string]any{"kind": "OBJECT", "name": "Query", "fields": []any{
		map[string]any{"name": "t0", "args": []any{}, "type": map[string]any{"kind": "OBJECT", "name": "T0"}},
	}}}
	for i := range n {
		var fields []any
		for j := range 30 {
			fields = append(fields, map[string]any{
				"name":        fmt.Sprintf("field%d", j),
				"description": strings.Repeat("A field of a large schema. ", 4),
				"args":        []any{map[string]any{"name": "first", "type": map[string]any{"kind": "SCALAR", "name": "Int"}, "defaultValue": "10"}},
				"type":        map[string]any{"kind": "NON_NULL", "ofType": map[string]any{"kind": "LIST", "ofType": map[string]any{"kind": "OBJECT", "name": fmt.Sprintf("T%d", (i+1)%n)}}},
			})
		}
		types = append(types, map[string]any{"kind": "OBJECT", "name": fmt.Sprintf("T%d", i), "description": "A type.", "fields": fields, "interfaces": []any{}})
	}
	b, _ := json.Marshal(map[string]any{"data": map[string]any{"__schema": map[string]any{"queryType": map[string]any{"name": "Query"}, "types": types}}})
	return b
}

func TestIntrospection(t *testing.T) {
	s, err := Parse("big.json", bigIntrospection(3))
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Types["T1"].Fields.ForName("field7"); f == nil || f.Type.String() != "[T2]!" || f.Arguments.ForName("first") == nil {
		t.Errorf("T1.field7 = %+v", f)
	}
}

func TestNotASchema(t *testing.T) {
	for _, in := range []string{`{"data": {}}`, `{not json`, `type Query { a: Nope }`} {
		if _, err := Parse("x", []byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

// BenchmarkParseIntrospection10MB reads an introspection result of about
// 10 MB, as the graphql action does at load.
func BenchmarkParseIntrospection10MB(b *testing.B) {
	data := bigIntrospection(1000)
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(len(data))/1e6, "MB")
	for b.Loop() {
		if _, err := Parse("big.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
