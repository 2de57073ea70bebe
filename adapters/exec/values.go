package execaction

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// appendArgs appends the arguments v stands for to dst: a string, number or
// bool is one argument, a list of them one each. The error says what is
// wrong with v, never what it holds, as it may be a secret.
func appendArgs(dst []string, v any) ([]string, error) {
	switch t := v.(type) {
	case string:
		if strings.IndexByte(t, 0) >= 0 {
			return dst, fmt.Errorf("yielded a string holding a NUL byte, which no argument can carry")
		}
		return append(dst, t), nil
	case []any:
		for i, e := range t {
			s, ok := mapping.Scalar(e)
			if !ok {
				return dst, fmt.Errorf("yielded a list whose element %d is %s; a list must hold strings, numbers or bools", i, mapping.Describe(e))
			}
			if strings.IndexByte(s, 0) >= 0 {
				return dst, fmt.Errorf("yielded a list whose element %d holds a NUL byte, which no argument can carry", i)
			}
			dst = append(dst, s)
		}
		return dst, nil
	case []string:
		for i, s := range t {
			if strings.IndexByte(s, 0) >= 0 {
				return dst, fmt.Errorf("yielded a list whose element %d holds a NUL byte, which no argument can carry", i)
			}
		}
		return append(dst, t...), nil
	case nil:
		return dst, fmt.Errorf("yielded null; an argument must be a string, a number, a bool, or a list of them (an empty list adds no argument)")
	}
	if s, ok := mapping.Scalar(v); ok {
		return append(dst, s), nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		for i := range rv.Len() {
			s, ok := mapping.Scalar(rv.Index(i).Interface())
			if !ok {
				return dst, fmt.Errorf("yielded a list whose element %d is %s; a list must hold strings, numbers or bools", i, mapping.Describe(rv.Index(i).Interface()))
			}
			if strings.IndexByte(s, 0) >= 0 {
				return dst, fmt.Errorf("yielded a list whose element %d holds a NUL byte, which no argument can carry", i)
			}
			dst = append(dst, s)
		}
		return dst, nil
	}
	return dst, fmt.Errorf("yielded %s; an argument must be a string, a number, a bool, or a list of them", mapping.Describe(v))
}

// envValue is the text of an environment value; set is false for null,
// which leaves the variable out.
func envValue(v any) (s string, set bool, err error) {
	if v == nil {
		return "", false, nil
	}
	s, ok := mapping.Scalar(v)
	if !ok {
		return "", false, fmt.Errorf("yielded %s; an environment value must be a string, a number or a bool (or null, to leave it out)", mapping.Describe(v))
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", false, fmt.Errorf("yielded a string holding a NUL byte, which no environment value can carry")
	}
	return s, true, nil
}

// stdinBytes is what the program reads for v: a string as is, nothing for
// null, anything else as JSON and a newline.
func stdinBytes(v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(t), nil
	}
	b, err := jsonenc.Append(nil, v)
	if err != nil {
		return nil, fmt.Errorf("stdin yielded %s, which cannot be written as JSON: %v", mapping.Describe(v), err)
	}
	return append(b, '\n'), nil
}
