package mapping

import (
	"reflect"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// source is what the expr("…") function yields at load time: the text of a
// program that is compiled once the environment it runs in is known.
type source struct {
	text string
}

// sourceType is the cty capsule type of the values expr("…") returns.
var sourceType = cty.CapsuleWithOps("expr", reflect.TypeFor[source](), &cty.CapsuleOps{
	GoString:     func(v any) string { return "expr(" + v.(*source).text + ")" },
	TypeGoString: func(reflect.Type) string { return "mapping.sourceType" },
})

// Function returns the HCL function expr(program), which marks a string as an
// expr-lang program to run on every call instead of a load-time value.
func Function() function.Function {
	return function.New(&function.Spec{
		Description: "Marks an expr-lang program to be run on every call.",
		Params: []function.Parameter{{
			Name: "program",
			Type: cty.String,
		}},
		Type: function.StaticReturnType(sourceType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.CapsuleVal(sourceType, &source{text: args[0].AsString()}), nil
		},
	})
}

// IsProgram reports whether v holds an expr("…") program anywhere within it.
func IsProgram(v cty.Value) bool {
	found := false
	_ = cty.Walk(v, func(_ cty.Path, v cty.Value) (bool, error) {
		if !v.IsKnown() || v.IsNull() {
			return true, nil
		}
		if v.Type().Equals(sourceType) {
			found = true
			return false, nil
		}
		return true, nil
	})
	return found
}
