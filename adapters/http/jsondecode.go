package httpaction

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// decodeJSON decodes a JSON body, data, whose text is text; whole numbers
// that float64 holds exactly become ints, as in the rest of mcpdecl. It
// gives what encoding/json gives, with half the allocations: the strings
// and keys of the value are pieces of text, not copies. Text it cannot
// read so (escapes, invalid UTF-8, numbers float64 cannot hold, deep
// nesting) is left to encoding/json. It pays for itself on large bodies:
// with encoding/json alone, a call whose upstream answers 100 KB spends
// 1.28× the server CPU, 1 MB 1.38× (go run ./bench, issue #32).
func decodeJSON(data []byte, text string) (any, error) {
	if json.Valid(data) {
		d := textDecoder{s: text}
		if v, ok := d.value(0); ok {
			return v, nil
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return wholeNumbers(v), nil
}

// maxDepth is the deepest nesting textDecoder reads; encoding/json refuses
// deeper values.
const maxDepth = 10000

// textDecoder reads a value from valid JSON text s.
type textDecoder struct {
	s string
	i int
}

func (d *textDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// value reads the value at d.i; false: encoding/json must read the text.
func (d *textDecoder) value(depth int) (any, bool) {
	d.space()
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; c {
	case '{':
		if depth >= maxDepth {
			return nil, false
		}
		d.i++
		m := map[string]any{}
		d.space()
		if d.s[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			d.space()
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			d.space()
			d.i++ // :
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			d.space()
			c := d.s[d.i]
			d.i++
			if c == '}' {
				return m, true
			}
		}
	case '[':
		if depth >= maxDepth {
			return nil, false
		}
		d.i++
		a := []any{}
		d.space()
		if d.s[d.i] == ']' {
			d.i++
			return a, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			d.space()
			c := d.s[d.i]
			d.i++
			if c == ']' {
				return a, true
			}
		}
	case '"':
		s, ok := d.str()
		return s, ok
	case 't':
		d.i += 4
		return true, true
	case 'f':
		d.i += 5
		return false, true
	case 'n':
		d.i += 4
		return nil, true
	default:
		start := d.i
		for d.i < len(d.s) && isNumberByte(d.s[d.i]) {
			d.i++
		}
		f, err := strconv.ParseFloat(d.s[start:d.i], 64)
		if err != nil {
			return nil, false
		}
		if f == math.Trunc(f) && f >= -maxExact && f <= maxExact {
			return int(f), true
		}
		return f, true
	}
}

// str reads the string at d.i, which must hold no escape and be valid
// UTF-8 to be read here.
func (d *textDecoder) str() (string, bool) {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			d.i = j + 1
			s := d.s[start:j]
			if !ascii && !utf8.ValidString(s) {
				return "", false
			}
			return s, true
		case c == '\\':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// isNumberByte reports the bytes a JSON number is written with.
func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
