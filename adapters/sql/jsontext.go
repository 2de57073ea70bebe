package sqlaction

import (
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// objectKeys returns the JSON of each name followed by a colon, the keys
// of the objects appendObject writes.
func objectKeys(names []string) [][]byte {
	keys := make([][]byte, len(names))
	for i, n := range names {
		k, _ := jsonenc.Append(nil, n) // a string cannot fail
		keys[i] = append(k, ':')
	}
	return keys
}

// appendObject writes one row as a JSON object whose keys, keys[i] for
// names[i], are in the order of the columns, as the query selects them
// (encoding/json would sort them).
func appendObject(b []byte, keys [][]byte, names []string, row map[string]any) []byte {
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[i]...)
		b = appendValue(b, row[name])
	}
	return append(b, '}')
}

// appendValue writes v, one of the values convert yields, as JSON; null
// for what JSON cannot write (a NaN or an infinity, also inside a list).
func appendValue(b []byte, v any) []byte {
	out, err := jsonenc.Append(b, v)
	if err != nil {
		return append(b, "null"...)
	}
	return out
}
