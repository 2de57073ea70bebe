package mapping

import (
	"fmt"
	"math"
	"math/big"

	"github.com/zclconf/go-cty/cty"
)

// FromCty converts a load-time value into the plain Go value that JSON and
// expr programs understand: string, bool, int (a whole number that fits),
// float64, []any, map[string]any or nil. Marks such as "sensitive" are
// dropped; callers that care about them must look before converting.
// An expr("…") program inside the value is an error: use [Compile] for values
// that may hold programs.
func FromCty(v cty.Value) (any, error) {
	return fromCty(v, nil)
}

// fromCty converts v, calling onProgram for every expr("…") source found.
// Marks are dropped node by node as it goes, which costs nothing, where
// UnmarkDeep would first copy the whole value.
func fromCty(v cty.Value, onProgram func(*source) (any, error)) (any, error) {
	v, _ = v.Unmark()
	if !v.IsKnown() {
		return nil, fmt.Errorf("the value is not known at load time")
	}
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty.Equals(sourceType):
		if onProgram == nil {
			return nil, fmt.Errorf("expr(…) is not allowed here: this value is fixed when the configuration loads")
		}
		return onProgram(v.EncapsulatedValue().(*source))
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		return numberValue(v.AsBigFloat()), nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := fromCty(e, onProgram)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			g, err := fromCty(e, onProgram)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = g
		}
		return out, nil
	case ty.IsCapsuleType():
		return nil, fmt.Errorf("a reference to a %s block cannot be used as a value here", ty.FriendlyName())
	}
	return nil, fmt.Errorf("values of type %s are not supported here", ty.FriendlyName())
}

// numberValue returns f as an int when it is a whole number that fits, else
// as a float64.
func numberValue(f *big.Float) any {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact && i >= math.MinInt && i <= math.MaxInt {
			return int(i)
		}
	}
	g, _ := f.Float64()
	return g
}
