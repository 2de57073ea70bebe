package mapping

import (
	"encoding/json"
	"reflect"
)

// Describe names the kind of a value that a program yielded, for messages:
// "null", "a string", "a number", "a bool", "a list", "an object".
func Describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case json.Number:
		return "a number"
	}
	return KindName(reflect.TypeOf(v))
}

// KindName names a Go type the way [Describe] names its values, for a
// program's result type known when the configuration loads.
func KindName(t reflect.Type) string {
	switch k := t.Kind(); {
	case k == reflect.Map || k == reflect.Struct || k == reflect.Pointer:
		return "an object"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a bool"
	case k == reflect.Func:
		return "a function"
	case k >= reflect.Int && k <= reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// ScalarKind reports whether values of kind k are strings, numbers or
// bools: what [Scalar] writes as text plainly.
func ScalarKind(k reflect.Kind) bool {
	return k == reflect.String || k == reflect.Bool || k >= reflect.Int && k <= reflect.Float64
}
