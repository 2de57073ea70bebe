package jsonenc

import (
	"encoding/json"
	"strconv"
)

// maxExact is the largest magnitude below which every whole float64 is
// exact.
const maxExact = 1 << 53

// Numbers replaces, in place, the json.Numbers of v (decoded with
// UseNumber) as everywhere in mcpdecl: by an int when they are whole and
// fit (1e3 and 2.0 too), else by a float64; one that no float64 holds
// (1e400) stays its text.
func Numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 0); err == nil {
			return int(i)
		}
		f, err := strconv.ParseFloat(string(t), 64)
		switch {
		case err != nil:
			return string(t)
		case f == float64(int64(f)) && f >= -maxExact && f <= maxExact:
			return int(f)
		}
		return f
	case []any:
		for i, e := range t {
			t[i] = Numbers(e)
		}
	case map[string]any:
		for k, e := range t {
			switch e.(type) {
			case json.Number, []any, map[string]any:
				t[k] = Numbers(e)
			}
		}
	}
	return v
}
