package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Append writes v as JSON. It knows nil, booleans, strings, Go's integer
// and float64 numbers, json.Number, []any and map[string]any (keys
// sorted), and hands anything else to encoding/json. It returns the error
// of encoding/json for what it cannot write (a NaN, a channel, a
// json.Number that is not a number); b is then unchanged.
func Append(b []byte, v any) ([]byte, error) {
	if out, ok := appendKnown(b, v); ok {
		return out, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// Text is v as one line of JSON, as Append writes it, for messages, logs
// and listings; a value Append cannot write is given as fmt.Sprint does.
func Text(v any) string {
	b, err := Append(make([]byte, 0, 256), v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// appendKnown writes v when it is made only of the values Append knows
// itself, and reports false otherwise, leaving what it wrote past len(b)
// for the caller to discard.
func appendKnown(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return AppendString(b, x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return b, false
		}
		return AppendFloat(b, x), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int32:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(b, x, 10), true
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), true
	case json.Number:
		if _, ok := NumberSyntax(string(x)); !ok {
			return b, false
		}
		return append(b, x...), true
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendKnown(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		var small [16]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendString(b, k), ':')
			var ok bool
			if b, ok = appendKnown(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// AppendFloat writes f, a finite number, as encoding/json does.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// AppendString writes s as a JSON string, as encoding/json does without
// HTML escaping: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are
// escaped for JavaScript's sake.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// NumberSyntax reports whether s is a number as JSON writes them, and
// whether it is written without a fraction or an exponent.
func NumberSyntax(s string) (whole, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch n := digits(); {
	case n == 0, n > 1 && s[i-n] == '0':
		return false, false
	}
	whole = true
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false, false
		}
		whole = false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false, false
		}
		whole = false
	}
	if i != len(s) {
		return false, false
	}
	return whole, true
}
