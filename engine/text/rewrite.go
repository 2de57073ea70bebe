package text

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
)

// rewrite is one way of rewriting every string in a value as programs
// yield them: cleaning (see [SanitizeValue]) and redacting (see
// [RedactValue]) both walk values this way.
type rewrite struct {
	// str returns the new form of s, and whether it differs from s.
	str func(s string) (string, bool)
	// keys rewrites the keys of objects too. When two keys of one object
	// rewrite to the same key, a key that did not change keeps its value,
	// else the key that sorts first does; the other entries are dropped.
	keys bool
	// json reports whether the JSON of a value of a type programs seldom
	// yield (a []int, a map[string]string, a string type of its own) may
	// hold a string to rewrite; such a value is then replaced with its JSON
	// decoded, and rewritten.
	json func(b []byte) bool
}

// value returns v rewritten. v is never modified: a list or object holding
// a string to rewrite is copied, and a v with nothing to rewrite is returned
// as is, without allocating. changed reports whether out differs from v.
func (r rewrite) value(v any) (out any, changed bool) {
	switch x := v.(type) {
	case nil, bool, int, int64, float64, json.Number:
		return v, false
	case string:
		if s, ch := r.str(x); ch {
			return s, true
		}
		return v, false
	case []any:
		var copied []any
		for i, e := range x {
			if ne, ch := r.value(e); ch {
				if copied == nil {
					copied = slices.Clone(x)
				}
				copied[i] = ne
			}
		}
		if copied == nil {
			return v, false
		}
		return copied, true
	case map[string]any:
		return r.object(x)
	case []string:
		var copied []string
		for i, e := range x {
			if s, ch := r.str(e); ch {
				if copied == nil {
					copied = slices.Clone(x)
				}
				copied[i] = s
			}
		}
		if copied == nil {
			return v, false
		}
		return copied, true
	}
	return r.other(v)
}

// object is [rewrite.value] for an object.
func (r rewrite) object(m map[string]any) (any, bool) {
	var (
		copied map[string]any
		dirty  []string // keys that change, with their values in moved
		moved  map[string]any
	)
	for k, e := range m {
		ne, ch := r.value(e)
		keyChanged := false
		if r.keys {
			_, keyChanged = r.str(k)
		}
		if !ch && !keyChanged {
			continue
		}
		if copied == nil {
			copied = maps.Clone(m)
		}
		if !keyChanged {
			copied[k] = ne
			continue
		}
		delete(copied, k)
		if moved == nil {
			moved = make(map[string]any)
		}
		dirty = append(dirty, k)
		moved[k] = ne
	}
	if copied == nil {
		return m, false
	}
	slices.Sort(dirty)
	for _, k := range dirty {
		nk, _ := r.str(k)
		if _, taken := copied[nk]; !taken {
			copied[nk] = moved[k]
		}
	}
	return copied, true
}

// other is [rewrite.value] for a value of any other type: a string type of
// its own is rewritten as a string; a list, map or struct is rewritten
// through its JSON when r.json says that may change it.
func (r rewrite) other(v any) (any, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		if s, ch := r.str(rv.String()); ch {
			return s, true
		}
		return v, false
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
	default:
		return v, false // a number or a bool: nothing to rewrite
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil || !r.json(buf.Bytes()) {
		return v, false
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return v, false
	}
	out, _ := r.value(g)
	return out, true
}

// RedactValue returns v, a value as programs yield them, with redact
// applied to every string in it. v is not modified: it may be a constant
// of the configuration, shared by every call, so what holds a string to
// change is copied (see [rewrite]).
func RedactValue(v any, redact func(string) string) any {
	out, _ := rewrite{
		str: func(s string) (string, bool) {
			r := redact(s)
			return r, r != s
		},
		json: func(b []byte) bool { return redact(string(b)) != string(b) },
	}.value(v)
	return out
}
