package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Append writes v as JSON, as encoding/json does with HTML escaping off,
// without the newline. It returns encoding/json's error for what it
// cannot write (a NaN, a channel, a json.Number that is not a number); b
// is then unchanged.
func Append(b []byte, v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))...), nil
}

// An encoder is an encoding/json encoder with HTML escaping off and the
// buffer it writes into, kept for reuse: Append is called per value on
// the call path (a SQL row's every column), and a new encoder and buffer
// each time were two allocations there.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// encoders holds encoders between calls of Append.
var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// maxKept is the largest buffer an encoder keeps for reuse: a large
// value's buffer goes to the garbage collector with it.
const maxKept = 64 << 10

// release empties e and gives it back to encoders, unless its buffer grew
// past maxKept.
func (e *encoder) release() {
	if e.buf.Cap() > maxKept {
		return
	}
	e.buf.Reset()
	encoders.Put(e)
}

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
