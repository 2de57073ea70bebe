package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Append writes v as JSON, as encoding/json does with HTML escaping off,
// without the newline. It returns encoding/json's error for what it
// cannot write (a NaN, a channel, a json.Number that is not a number); b
// is then unchanged.
func Append(b []byte, v any) ([]byte, error) {
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
	b, err := Append(nil, v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
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
