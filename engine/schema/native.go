package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// native returns v made only of the Go values that the validator takes as
// JSON: nil, bool, string, the number types, json.Number, []any and
// map[string]any. Anything else, such as the []string or time.Time that an
// expr program or an adapter may produce, is replaced by what encoding/json
// would make of it, so that v is validated as it will be sent. changed
// reports whether the result differs from v, which is never modified: a
// list or map is copied only when something in it changes.
func native(v any) (out any, changed bool, err error) {
	switch x := v.(type) {
	case nil, bool, string, float64, float32, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v, false, nil
	case []any:
		var list []any
		for i, e := range x {
			n, ch, err := native(e)
			if err != nil {
				return nil, false, under(err, strconv.Itoa(i))
			}
			if ch && list == nil {
				list = slices.Clone(x)
			}
			if list != nil {
				list[i] = n
			}
		}
		if list == nil {
			return v, false, nil
		}
		return list, true, nil
	case map[string]any:
		var m map[string]any
		for k, e := range x {
			n, ch, err := native(e)
			if err != nil {
				return nil, false, under(err, k)
			}
			if ch {
				if m == nil {
					m = make(map[string]any, len(x))
					for k2, e2 := range x {
						m[k2] = e2
					}
				}
				m[k] = n
			}
		}
		if m == nil {
			return v, false, nil
		}
		return m, true, nil
	}
	n, err := foreign(v)
	return n, true, err
}

// foreign converts a value of a Go type that is not one of the JSON types.
func foreign(v any) (any, error) {
	switch v.(type) {
	case json.Marshaler, encoding.TextMarshaler:
		return viaJSON(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		n, _, err := native(rv.Elem().Interface())
		return n, err
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return viaJSON(v) // bytes are a base64 string
		}
		list := make([]any, rv.Len())
		for i := range list {
			n, _, err := native(rv.Index(i).Interface())
			if err != nil {
				return nil, under(err, strconv.Itoa(i))
			}
			list[i] = n
		}
		return list, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return viaJSON(v)
		}
		if rv.IsNil() {
			return nil, nil
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k := it.Key().String()
			n, _, err := native(it.Value().Interface())
			if err != nil {
				return nil, under(err, k)
			}
			m[k] = n
		}
		return m, nil
	}
	return viaJSON(v)
}

// viaJSON converts v to JSON and back.
func viaJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &valueError{err: fmt.Errorf("cannot be written as JSON: %w", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, &valueError{err: fmt.Errorf("cannot be written as JSON: %w", err)}
	}
	return out, nil
}

// valueError is a part of a value that cannot be taken as JSON.
type valueError struct {
	path []string // from the innermost token outwards
	err  error
}

func (e *valueError) Error() string { return e.err.Error() }

// pointer is the JSON pointer of the part at fault.
func (e *valueError) pointer() string {
	tokens := slices.Clone(e.path)
	slices.Reverse(tokens)
	return pointer(tokens)
}

// under records that err happened under the given key or index.
func under(err error, tok string) error {
	if ve, ok := err.(*valueError); ok {
		ve.path = append(ve.path, tok)
		return ve
	}
	return &valueError{path: []string{tok}, err: err}
}

// clone copies the lists and maps of a JSON value, so that the copy shares
// nothing that can change.
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	}
	return v
}
