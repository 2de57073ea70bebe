package schema

import (
	"encoding/json"
	"math"
	"strconv"
)

// ApplyDefaults gives each declared argument that args lacks its default,
// when it has one; it does not look inside objects. It changes args and
// returns it; a nil args becomes a new map. Lists and maps are copied from
// the declaration, so that the call may change them.
func ApplyDefaults(args map[string]any, decl []Arg) map[string]any {
	if args == nil {
		args = make(map[string]any, len(decl))
	}
	for _, a := range decl {
		if !a.HasDefault {
			continue
		}
		if _, ok := args[a.Name]; !ok {
			args[a.Name] = clone(a.Default)
		}
	}
	return args
}

// Coerce converts a valid value to the Go types that expr programs are
// type-checked against (see ExprType): a number becomes an int for an
// integer and a float64 for a number, whether it comes as a json.Number, a
// float64 or another Go number type. Under any, a number becomes an int
// when it is whole and fits, else a float64. Lists, maps and object fields
// are converted through, by their declared types; a part that does not
// have its declared shape, which validation would have rejected, is
// converted as for any. The value itself is never modified: a list or map
// is copied when something in it changes.
func Coerce(value any, t *Type) any {
	v, _ := coerce(value, t)
	return v
}

// coerce converts value and reports whether the result differs from it.
func coerce(value any, t *Type) (any, bool) {
	kind := Any
	if t != nil {
		kind = t.Kind
	}
	switch kind {
	case String, Bool:
		switch value.(type) {
		case string, bool, nil:
			return value, false
		}
	case Integer:
		if i, ok := toInt(value); ok {
			_, same := value.(int)
			return i, !same
		}
		if _, ok := value.(float64); ok {
			return value, false // too big for an int
		}
	case Number:
		if f, ok := toFloat(value); ok {
			_, same := value.(float64)
			return f, !same
		}
	case List:
		if list, ok := value.([]any); ok {
			return coerceList(list, t.Elem)
		}
	case Map:
		if m, ok := value.(map[string]any); ok {
			return coerceMap(m, t)
		}
	case Object:
		if m, ok := value.(map[string]any); ok {
			return coerceMap(m, t)
		}
	}
	return coerceAny(value)
}

// coerceAny converts a value of type any.
func coerceAny(value any) (any, bool) {
	switch x := value.(type) {
	case nil, string, bool, int:
		return value, false
	case []any:
		return coerceList(x, nil)
	case map[string]any:
		return coerceMap(x, nil)
	case float64:
		if i, ok := wholeInt(x); ok {
			return i, true
		}
		return value, false
	}
	if i, ok := toInt(value); ok {
		return i, true
	}
	if f, ok := toFloat(value); ok {
		return f, true
	}
	return value, false
}

// coerceList converts the items of a list of elem.
func coerceList(list []any, elem *Type) (any, bool) {
	var out []any
	for i, e := range list {
		n, changed := coerce(e, elem)
		if changed && out == nil {
			out = make([]any, len(list))
			copy(out, list)
		}
		if out != nil {
			out[i] = n
		}
	}
	if out == nil {
		return list, false
	}
	return out, true
}

// coerceMap converts the values of m, a map or an object of type t, or a
// value of type any when t is nil.
func coerceMap(m map[string]any, t *Type) (any, bool) {
	var out map[string]any
	for k, e := range m {
		n, changed := coerce(e, t.valueType(k))
		if !changed {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(m))
			for k2, e2 := range m {
				out[k2] = e2
			}
		}
		out[k] = n
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// toInt converts a whole number that fits an int.
func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 0); err == nil {
			return int(i), true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return wholeInt(f)
		}
	case float64:
		return wholeInt(x)
	case float32:
		return wholeInt(float64(x))
	case int8:
		return int(x), true
	case int16:
		return int(x), true
	case int32:
		return int(x), true
	case int64:
		if int64(int(x)) == x {
			return int(x), true
		}
	case uint8:
		return int(x), true
	case uint16:
		return int(x), true
	case uint32:
		if uint64(x) <= math.MaxInt {
			return int(x), true
		}
	case uint:
		if uint64(x) <= math.MaxInt {
			return int(x), true
		}
	case uint64:
		if x <= math.MaxInt {
			return int(x), true
		}
	}
	return 0, false
}

// toFloat converts any number to a float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// wholeInt converts f when it is whole and fits an int.
func wholeInt(f float64) (int, bool) {
	// math.MinInt is a power of two, exact as a float64, and -math.MinInt
	// is the first whole number too big.
	if f != math.Trunc(f) || f < math.MinInt || f >= -float64(math.MinInt) {
		return 0, false
	}
	return int(f), true
}
