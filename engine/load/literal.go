package load

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// literal returns the value of e as JSON's Go values (what
// mapping.FromCty gives) when e is written with literals alone: objects,
// tuples, strings without interpolation, numbers, booleans and null, such
// as a JSON Schema the importer wrote, and references to locals (local.x)
// that local resolves, or reports it cannot. ok is false for anything else,
// which must be evaluated. An imported API carries thousands of such
// schemas; building them as cty values first costs more than the rest of
// its loading. A literal reads no variable, so it is never sensitive; local
// must refuse a sensitive local.
func literal(e hcl.Expression, local func(hcl.Traversal) (any, bool)) (v any, ok bool) {
	switch e := e.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		if local != nil && len(e.Traversal) == 2 && e.Traversal.RootName() == "local" {
			if _, isAttr := e.Traversal[1].(hcl.TraverseAttr); isAttr {
				return local(e.Traversal)
			}
		}
		return nil, false
	case *hclsyntax.LiteralValueExpr:
		return literalValue(e.Val)
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if lit, isLit := e.Parts[0].(*hclsyntax.LiteralValueExpr); isLit && lit.Val.Type() == cty.String {
				return literalValue(lit.Val)
			}
		}
		return nil, false
	case *hclsyntax.UnaryOpExpr:
		if lit, isLit := e.Val.(*hclsyntax.LiteralValueExpr); isLit && e.Op == hclsyntax.OpNegate && lit.Val.Type() == cty.Number && lit.Val.IsKnown() && !lit.Val.IsNull() {
			return literalValue(lit.Val.Negate())
		}
		return nil, false
	case *hclsyntax.ParenthesesExpr:
		return literal(e.Expression, local)
	case *hclsyntax.TupleConsExpr:
		out := make([]any, len(e.Exprs))
		for i, x := range e.Exprs {
			if out[i], ok = literal(x, local); !ok {
				return nil, false
			}
		}
		return out, true
	case *hclsyntax.ObjectConsExpr:
		out := make(map[string]any, len(e.Items))
		for _, item := range e.Items {
			key, isKey := item.KeyExpr.(*hclsyntax.ObjectConsKeyExpr)
			if !isKey {
				return nil, false
			}
			var name string
			if kw := hcl.ExprAsKeyword(key.Wrapped); kw != "" && !key.ForceNonLiteral {
				name = kw
			} else if k, isLit := literal(key.Wrapped, nil); isLit {
				if name, isLit = k.(string); !isLit {
					return nil, false
				}
			} else {
				return nil, false
			}
			if out[name], ok = literal(item.ValueExpr, local); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// literalValue is a literal's value as mapping.FromCty gives it.
func literalValue(v cty.Value) (any, bool) {
	if !v.IsKnown() || v.Type() == cty.DynamicPseudoType && !v.IsNull() {
		return nil, false
	}
	g, err := mapping.FromCty(v)
	return g, err == nil
}
