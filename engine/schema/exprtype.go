package schema

import (
	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// ExprType returns the type that expr programs see for a value of this
// type, after Coerce: types.String, types.Float64 for number, types.Int for
// integer, types.Bool, types.Any, mapping.Array of the item type for a list
// or set, a types.Map that allows any key for a map, and a strict types.Map
// of the declared fields for an object, so that a misspelt field is an
// error when the program compiles.
func (t *Type) ExprType() types.Type {
	if t == nil {
		return types.Any
	}
	switch t.Kind {
	case String:
		return types.String
	case Number:
		return types.Float64
	case Integer:
		return types.Int
	case Bool:
		return types.Bool
	case List:
		return mapping.Array(t.Elem.ExprType())
	case Map:
		return types.Map{types.Extra: t.Elem.ExprType()}
	case Object:
		m := make(types.Map, len(t.Fields))
		for _, f := range t.Fields {
			m[f.Name] = f.Type.ExprType()
		}
		return m
	}
	return types.Any
}
