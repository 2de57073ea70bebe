package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Ref is the reference names[0].names[1]…, such as var.base_url, for
// [Writer.Traversal].
func Ref(names ...string) hcl.Traversal {
	t := hcl.Traversal{hcl.TraverseRoot{Name: names[0]}}
	for _, n := range names[1:] {
		t = append(t, hcl.TraverseAttr{Name: n})
	}
	return t
}

// TypeTokens writes a type such as integer or list(string).
func TypeTokens(t string) hclwrite.Tokens {
	if open := strings.IndexByte(t, '('); open > 0 && strings.HasSuffix(t, ")") {
		return hclwrite.TokensForFunctionCall(t[:open], TypeTokens(t[open+1:len(t)-1]))
	}
	return hclwrite.TokensForIdentifier(t)
}

// ExprTokens writes expr("program").
func ExprTokens(program string) hclwrite.Tokens {
	return hclwrite.TokensForFunctionCall("expr", hclwrite.TokensForValue(cty.StringVal(program)))
}
