package mapping_test

import (
	"encoding/json"
	"testing"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// TestScopes compiles the same programs for tools whose variables have the
// same types and for tools whose types differ, through one Scopes: each
// tool's programs must behave, and fail to compile, as if compiled alone,
// with diagnostics pointing into that tool's own file.
func TestScopes(t *testing.T) {
	var scopes mapping.Scopes
	text := types.Map{"args": types.Map{"city": types.String, "units": types.String}}
	number := types.Map{"args": types.Map{"city": types.Int, "units": types.String}}
	tests := []struct {
		file string
		env  mapping.Env
		want string // JSON of the result, or "" for a compile error
	}{
		{"a.hcl", text, `"Parisx"`},
		{"b.hcl", types.Map{"args": types.Map{"units": types.String, "city": types.String}}, `"Parisx"`},
		{"c.hcl", number, ""}, // a number plus a string does not compile
		{"d.hcl", types.Map{"args": types.Map{"city": types.Int, "units": types.String}}, ""},
		{"e.hcl", types.Map{"args": types.Map{"city": types.Any, "units": types.String}}, `"Parisx"`},
		{"f.hcl", text, `"Parisx"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src := "\n  " + `expr("args.city + 'x'")`
			e, diags := hclsyntax.ParseExpression([]byte(src), tt.file, hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := e.Value(&hcl.EvalContext{Functions: map[string]function.Function{"expr": mapping.Function()}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			m, diags := scopes.Scope(tt.env).Compile(v, e)
			if tt.want == "" {
				if !diags.HasErrors() {
					t.Fatal("compiled; want an error")
				}
				if s := diags[0].Subject; s.Filename != tt.file || s.Start.Line != 2 {
					t.Errorf("diagnostic at %s, want %s line 2", s, tt.file)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			out, err := m.Eval(map[string]any{"args": map[string]any{"city": "Paris"}})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := json.Marshal(out); string(got) != tt.want {
				t.Errorf("result = %s, want %s", got, tt.want)
			}
		})
	}
}
