package mapping_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// TestPaths: what a program reads is listed as written, once, without the
// paths that only lead to a longer one, up to a computed step; and each
// path finds its value, or says it is absent.
func TestPaths(t *testing.T) {
	v, diags := compile(t, `{
  a = expr("args.city == 'x' && body.items[0].name == args.city && body['content-type'] != nil"),
  b = expr("body.items[args.n].id > 0 && all(args.tags, # != '') && body?.deep.deeper == 1"),
}`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	env := map[string]any{
		"args": map[string]any{"city": "Paris", "n": 0, "tags": []any{}},
		"body": map[string]any{"items": []any{map[string]any{"name": "x", "id": 3}}},
	}
	var got []string
	for _, p := range mapping.Paths(v) {
		if val, ok := p.Lookup(env); ok {
			got = append(got, p.String()+" = "+fmt.Sprint(val))
		} else {
			got = append(got, p.String()+" absent")
		}
	}
	want := []string{
		"args.city = Paris",
		"body.items[0].name = x",
		"body['content-type'] absent",
		"args.n = 0",
		"args.tags = []",
		"body.deep.deeper absent",
	}
	// The two programs are compiled in the order of their keys; the
	// second's body.items is left out as it leads to body.items[0].name.
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
