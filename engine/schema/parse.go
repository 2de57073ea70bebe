package schema

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// accepted is what a type expression may be, for error messages.
const accepted = "The type must be one of string, number, integer, bool, any, list(T), map(T), set(T) or object({...})"

// typeWords returns the words a type expression is made of, for
// suggestions.
func typeWords() []string {
	return []string{"string", "number", "integer", "bool", "any", "list", "map", "set", "object"}
}

// alias returns the type word for the name another language gives the
// type, or "".
func alias(name string) string {
	switch name {
	case "str", "text":
		return "string"
	case "int", "int64", "long":
		return "integer"
	case "float", "float64", "double", "decimal":
		return "number"
	case "boolean":
		return "bool"
	case "array", "tuple":
		return "list"
	case "dict", "dictionary", "hash":
		return "map"
	case "struct", "record":
		return "object"
	case "dynamic":
		return "any"
	}
	return ""
}

// ParseType reads a type expression such as string or
// list(object({id = integer, tags = optional(list(string))})). It walks the
// expression's syntax without evaluating it. Each problem is an error
// diagnostic whose subject is the smallest part of the expression at fault.
func ParseType(expr hcl.Expression) (*Type, hcl.Diagnostics) {
	switch kw := hcl.ExprAsKeyword(expr); kw {
	case "":
		// Not a bare word: a call, or a mistake.
	case "string":
		return &Type{Kind: String}, nil
	case "number":
		return &Type{Kind: Number}, nil
	case "integer":
		return &Type{Kind: Integer}, nil
	case "bool":
		return &Type{Kind: Bool}, nil
	case "any":
		return &Type{Kind: Any}, nil
	case "list", "map", "set":
		return nil, typeError(expr.Range(), "%s needs the type of its %s in parentheses, such as %s(string).", kw, elemWord(kw), kw)
	case "object":
		return nil, typeError(expr.Range(), "object needs its fields, such as object({id = integer, name = optional(string)}).")
	case "optional":
		return nil, typeError(expr.Range(), "optional(T) marks a field of an object as one that may be left out, such as object({name = optional(string)}); it is not a type of its own.")
	default:
		return nil, typeError(expr.Range(), "%s; got %q.%s", accepted, kw, didYouMean(kw))
	}

	call, diags := hcl.ExprCall(expr)
	if diags.HasErrors() {
		return nil, notAType(expr)
	}
	switch call.Name {
	case "string", "number", "integer", "bool", "any":
		return nil, typeError(call.ArgsRange, "%s takes no arguments; write it as just %s.", call.Name, call.Name)
	case "list", "map", "set":
		arg, diags := oneArgument(call, "%s needs exactly one argument, the type of its %s, such as %s(string).", call.Name, elemWord(call.Name), call.Name)
		if diags.HasErrors() {
			return nil, diags
		}
		elem, diags := ParseType(arg)
		if diags.HasErrors() {
			return nil, diags
		}
		switch call.Name {
		case "list":
			return &Type{Kind: List, Elem: elem}, nil
		case "set":
			return &Type{Kind: List, Elem: elem, Unique: true}, nil
		default:
			return &Type{Kind: Map, Elem: elem}, nil
		}
	case "object":
		arg, diags := oneArgument(call, "object needs exactly one argument, a map of its fields to their types, such as object({id = integer, name = optional(string)}).")
		if diags.HasErrors() {
			return nil, diags
		}
		return parseObject(arg)
	case "optional":
		return nil, typeError(call.NameRange, "optional(T) is only valid as the type of an object field, such as object({name = optional(string)}); an argument or output is made optional with optional = true.")
	case "tuple":
		return nil, typeError(call.NameRange, "Tuple types are not supported; use list(T) for a list of values of one type, or object({...}) for named fields of different types.")
	}
	return nil, typeError(call.NameRange, "%s; got %q.%s", accepted, call.Name+"(…)", didYouMean(call.Name))
}

// parseObject reads the argument of object(…): a map of field names to
// types.
func parseObject(arg hcl.Expression) (*Type, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(arg)
	if diags.HasErrors() {
		return nil, typeError(arg.Range(), "object takes a map of its fields to their types, in braces, such as object({id = integer, name = optional(string)}).")
	}
	t := &Type{Kind: Object, Fields: make([]Field, 0, len(pairs))}
	seen := make(map[string]hcl.Range, len(pairs))
	for _, pair := range pairs {
		name, ok := fieldName(pair.Key)
		if !ok {
			diags = append(diags, typeDiagnostic(pair.Key.Range(), "A field name is a bare name such as id, or a quoted string such as \"user-id\"."))
			continue
		}
		if first, dup := seen[name]; dup {
			diags = append(diags, typeDiagnostic(pair.Key.Range(), "The field %q is already declared at %s; each field of an object needs a different name.", name, first))
			continue
		}
		seen[name] = pair.Key.Range()

		field := Field{Name: name}
		texpr := pair.Value
		if call, cdiags := hcl.ExprCall(texpr); !cdiags.HasErrors() && call.Name == "optional" {
			arg, odiags := oneArgument(call, "optional needs exactly one argument, the type of the field, such as optional(string).")
			if odiags.HasErrors() {
				diags = append(diags, odiags...)
				continue
			}
			field.Optional = true
			texpr = arg
		}
		ft, fdiags := ParseType(texpr)
		diags = append(diags, fdiags...)
		if fdiags.HasErrors() {
			continue
		}
		field.Type = ft
		t.Fields = append(t.Fields, field)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return t, nil
}

// fieldName reads the key of an object type's field: a bare name or a
// literal string.
func fieldName(key hcl.Expression) (string, bool) {
	if kw := hcl.ExprAsKeyword(key); kw != "" {
		return kw, true
	}
	v, diags := key.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	s := v.AsString()
	return s, s != ""
}

// oneArgument returns the only argument of call, or a diagnostic built from
// format when it has none or several.
func oneArgument(call *hcl.StaticCall, format string, args ...any) (hcl.Expression, hcl.Diagnostics) {
	switch len(call.Arguments) {
	case 1:
		return call.Arguments[0], nil
	case 0:
		return nil, typeError(call.ArgsRange, format, args...)
	}
	extra := hcl.RangeBetween(call.Arguments[1].Range(), call.Arguments[len(call.Arguments)-1].Range())
	return nil, typeError(extra, format, args...)
}

// notAType explains an expression that is neither a type keyword nor a
// type constructor call.
func notAType(expr hcl.Expression) hcl.Diagnostics {
	rng := expr.Range()
	if v, diags := expr.Value(nil); !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
		s := v.AsString()
		if t, ok := unquote(s); ok {
			return typeError(rng, "A type is written without quotes: write %s instead of %q.", t, s)
		}
		return typeError(rng, "%s, written without quotes; got the string %q.%s", accepted, s, didYouMean(s))
	}
	if _, diags := hcl.ExprMap(expr); !diags.HasErrors() {
		return typeError(rng, "%s; braces alone make an object value, not a type: write object({...}) around them.", accepted)
	}
	if _, diags := hcl.ExprList(expr); !diags.HasErrors() {
		return typeError(rng, "%s; brackets make a list value, not a type: write list(T) instead, such as list(string).", accepted)
	}
	if trav, diags := hcl.AbsTraversalForExpr(expr); !diags.HasErrors() {
		return typeError(rng, "%s; got the reference %s, but a type cannot refer to anything.", accepted, traversalString(trav))
	}
	return typeError(rng, "%s; got an expression that is not a type.", accepted)
}

// unquote reads s, the value of a quoted string given where a type was
// expected, as a type expression.
func unquote(s string) (*Type, bool) {
	expr, diags := hclsyntax.ParseExpression([]byte(s), "", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, false
	}
	t, diags := ParseType(expr)
	return t, !diags.HasErrors()
}

// traversalString writes a traversal such as var.name back as source.
func traversalString(trav hcl.Traversal) string {
	s := ""
	for _, step := range trav {
		switch step := step.(type) {
		case hcl.TraverseRoot:
			s += step.Name
		case hcl.TraverseAttr:
			s += "." + step.Name
		default:
			s += "[…]"
		}
	}
	return s
}

// elemWord names what the type argument of a collection describes.
func elemWord(constructor string) string {
	if constructor == "map" {
		return "values"
	}
	return "items"
}

// didYouMean suggests the type word closest to got, as a sentence with a
// leading space, or returns "" when none is close.
func didYouMean(got string) string {
	if s := suggest(got, typeWords(), alias); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// typeError returns a diagnostic about an invalid type.
func typeError(rng hcl.Range, format string, args ...any) hcl.Diagnostics {
	return hcl.Diagnostics{typeDiagnostic(rng, format, args...)}
}

func typeDiagnostic(rng hcl.Range, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid type",
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	}
}
