package load

import (
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// TestLiteral checks that a value written with literals alone reads as
// evaluating it gives, and that anything else is left to evaluation.
func TestLiteral(t *testing.T) {
	tests := []struct {
		src     string
		literal bool
	}{
		{`{ type = "object", properties = { "$ref" = "#/x", n = { minimum = -1.5, maximum = 1e3, enum = [1, 2, 3] } }, required = ["a"], additionalProperties = false, default = null }`, true},
		{`["a", 1, -0, true, null, { a = [] }, {}]`, true},
		{`"a\nb ${"$"}{x} %%{y} é"`, false},
		{`"plain \"quoted\" é\u00e9"`, true},
		{`<<EOT
heredoc
EOT
`, true},
		{`{ a = 1, a = 2 }`, true},
		{`{ "a b" = 1, ("c") = 2 }`, true},
		{`{ (x) = 2 }`, false},
		{`-(1)`, false},
		{`(([1]))`, true},
		{`{ a = var.x }`, false},
		{`{ a = "${1 + 1}" }`, false},
		{`jsonencode({ a = 1 })`, false},
		{`[for x in [1] : x]`, false},
		{`{ 1 = "one" }`, false},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tt.src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got, ok := literal(e, nil)
			if ok != tt.literal {
				t.Fatalf("literal = %v, want %v", ok, tt.literal)
			}
			if !ok {
				return
			}
			v, diags := e.Value(nil)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			want, err := mapping.FromCty(v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
		})
	}
}
