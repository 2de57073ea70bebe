package engine

import (
	"reflect"

	"github.com/zclconf/go-cty/cty"
)

// upstreamRef is the payload of the cty values that stand for top-level
// blocks such as http_api.weather in load-time expressions.
type upstreamRef struct {
	kind  string
	value any
}

var upstreamType = cty.Capsule("block reference", reflect.TypeFor[upstreamRef]())

// UpstreamVal wraps what an adapter decoded from a top-level block of the
// given kind as a value that expressions can refer to.
func UpstreamVal(kind string, value any) cty.Value {
	return cty.CapsuleVal(upstreamType, &upstreamRef{kind: kind, value: value})
}

// UpstreamOf returns the decoded upstream that v refers to, when v is a
// reference to a block of the given kind.
func UpstreamOf(v cty.Value, kind string) (any, bool) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || !v.Type().Equals(upstreamType) {
		return nil, false
	}
	ref := v.EncapsulatedValue().(*upstreamRef)
	if ref.kind != kind {
		return nil, false
	}
	return ref.value, true
}

// UpstreamType is the type of the values that refer to top-level blocks.
func UpstreamType() cty.Type { return upstreamType }
