package mapping

import (
	"encoding/json"
	"strconv"
)

// Scalar writes a string, number or boolean the way a URL, a header or a
// command-line argument carries it: numbers plainly (3, 2.5, never 3e+00),
// booleans as true and false. ok is false for anything else, null included.
func Scalar(v any) (s string, ok bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case uint:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32), true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		return string(v), true
	}
	return "", false
}
