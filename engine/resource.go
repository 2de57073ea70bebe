package engine

import (
	"reflect"

	"github.com/zclconf/go-cty/cty"
)

// resourceRef is the payload of the cty values that stand for top-level
// blocks such as http_api.weather in load-time expressions.
type resourceRef struct {
	kind  string
	value any
}

var resourceType = cty.Capsule("block reference", reflect.TypeFor[resourceRef]())

// ResourceVal wraps what an adapter decoded from a top-level block of the
// given kind as a value that expressions can refer to.
func ResourceVal(kind string, value any) cty.Value {
	return cty.CapsuleVal(resourceType, &resourceRef{kind: kind, value: value})
}

// ResourceOf returns the decoded resource that v refers to, when v is a
// reference to a block of the given kind.
func ResourceOf(v cty.Value, kind string) (any, bool) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !v.Type().Equals(resourceType) {
		return nil, false
	}
	ref := v.EncapsulatedValue().(*resourceRef)
	if ref.kind != kind {
		return nil, false
	}
	return ref.value, true
}

// ResourceType is the type of the values that refer to top-level blocks.
func ResourceType() cty.Type { return resourceType }
