package httpaction

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// list returns the elements of v when it is a list.
func list(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out, true
	case string, nil, map[string]any:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// pairWriter writes name=value pairs, escaped, as in a query string or a
// form body.
type pairWriter struct {
	b     *strings.Builder
	first byte // written before the first pair: '?' for a query, 0 for a form
	wrote bool // a pair was written
}

// write writes the pairs of one parameter: none for null, one per element
// for a list, else one. key is the escaped name; name and what are for
// messages.
func (w *pairWriter) write(key, name string, v any, what string) error {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		w.pair(key, url.QueryEscape(v))
		return nil
	case int:
		var buf [24]byte
		w.sep()
		w.b.WriteString(key)
		w.b.WriteByte('=')
		w.b.Write(strconv.AppendInt(buf[:0], int64(v), 10))
		return nil
	}
	if s, ok := mapping.Scalar(v); ok {
		w.pair(key, url.QueryEscape(s))
		return nil
	}
	items, ok := list(v)
	if !ok {
		return fmt.Errorf("%s %q must be a string, a number, a boolean, a list of them or null; got %s", what, name, mapping.Describe(v))
	}
	for _, e := range items {
		if e == nil {
			continue
		}
		s, ok := mapping.Scalar(e)
		if !ok {
			return fmt.Errorf("%s %q must be a string, a number, a boolean, a list of them or null; got a list holding %s", what, name, mapping.Describe(e))
		}
		w.pair(key, url.QueryEscape(s))
	}
	return nil
}

func (w *pairWriter) sep() {
	switch {
	case w.wrote:
		w.b.WriteByte('&')
	case w.first != 0:
		w.b.WriteByte(w.first)
	}
	w.wrote = true
}

func (w *pairWriter) pair(key, escaped string) {
	w.sep()
	w.b.WriteString(key)
	w.b.WriteByte('=')
	w.b.WriteString(escaped)
}

// headerValues returns the values to send for header name: none for null,
// one per element for a list, else one.
func headerValues(name string, v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	one := func(e any) (string, error) {
		s, ok := mapping.Scalar(e)
		if !ok {
			return "", fmt.Errorf("header %q must be a string, a number, a boolean, a list of them or null; got %s", name, mapping.Describe(e))
		}
		if !validHeaderValue(s) {
			return "", fmt.Errorf("header %q holds a line break, a NUL byte or another control character, which a header value cannot hold; the request was not sent", name)
		}
		return s, nil
	}
	if items, ok := list(v); ok {
		out := make([]string, 0, len(items))
		for _, e := range items {
			if e == nil {
				continue
			}
			s, err := one(e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := one(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// validHeaderName reports whether s is a token, as header names must be.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as a header value: it
// holds no control character but tab, so neither a line break (which would
// start another header) nor a NUL byte. net/http refuses the same values,
// but only once the request is being sent, and retries would repeat that.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// reservedHeader reports headers that the HTTP client sets itself: Host,
// which would send the request to another virtual host, and the framing of
// the body.
func reservedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Host", "Content-Length", "Transfer-Encoding":
		return true
	}
	return false
}
