package httpaction

import (
	"net/url"
	"strings"
)

// placeholder is one {name} of a path template, at text[start:end].
type placeholder struct {
	name       string
	start, end int
}

// templateError is a mistake in a path template, at text[start:end].
type templateError struct {
	msg        string
	start, end int
}

// scanPlaceholders finds the {name} placeholders of s. A name is made of
// letters, digits, underscores and dashes.
func scanPlaceholders(s string) ([]placeholder, *templateError) {
	var out []placeholder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '}':
			return nil, &templateError{msg: `this "}" closes no placeholder; placeholders are written {name}`, start: i, end: i + 1}
		case '{':
			j := strings.IndexAny(s[i+1:], "{}")
			if j < 0 || s[i+1+j] == '{' {
				return nil, &templateError{msg: `this "{" is not closed; placeholders are written {name}`, start: i, end: i + 1}
			}
			end := i + 1 + j + 1
			name := s[i+1 : end-1]
			if !validName(name) {
				return nil, &templateError{msg: "a placeholder's name must be made of letters, digits, underscores and dashes, like {city}", start: i, end: end}
			}
			out = append(out, placeholder{name: name, start: i, end: end})
			i = end - 1
		}
	}
	return out, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// segment is a piece of a compiled path: literal text, already escaped, or
// the value of a parameter.
type segment struct {
	literal string
	param   int // index into the action's parameters, or -1 for a literal
}

// pathTemplate is a path split at load time into literal text and
// parameters, so that a call only escapes and concatenates.
type pathTemplate struct {
	segments []segment
	size     int // length of the literal text
}

// compilePath splits path, whose placeholders are phs (offsets relative to
// path), into segments; index gives the parameter index of a name.
func compilePath(path string, phs []placeholder, index func(string) int) pathTemplate {
	var t pathTemplate
	add := func(lit string) {
		if lit == "" {
			return
		}
		lit = escapeLiteral(lit, false)
		t.segments = append(t.segments, segment{literal: lit, param: -1})
		t.size += len(lit)
	}
	prev := 0
	for _, ph := range phs {
		add(path[prev:ph.start])
		t.segments = append(t.segments, segment{param: index(ph.name)})
		prev = ph.end
	}
	add(path[prev:])
	return t
}

// escapeLiteral percent-encodes what a path (or, when query is true, a query
// string) cannot carry as is: spaces, control and non-ASCII bytes, a "%"
// that starts no escape. Escapes already written, and the characters with a
// meaning such as "/", "&" and "=", are kept, so that the text reaches the
// server as written.
func escapeLiteral(s string, query bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keepLiteral(s, i, query) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		if keepLiteral(s, i, query) {
			b.WriteByte(s[i])
			continue
		}
		b.WriteByte('%')
		b.WriteByte("0123456789ABCDEF"[s[i]>>4])
		b.WriteByte("0123456789ABCDEF"[s[i]&15])
	}
	return b.String()
}

// keepLiteral reports whether s[i] may stay as it is in a path or query.
func keepLiteral(s string, i int, query bool) bool {
	c := s[i]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '-', '.', '_', '~', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', ':', '@', '/':
		return true
	case '?':
		return query
	case '%':
		return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// escapeParam escapes the value of a path parameter so that it stays one
// path segment: "/", "?", "#" and "%" are escaped, and so are the dots of
// "." and "..", which would otherwise move up the path.
func escapeParam(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// joinQuery joins two encoded query strings.
func joinQuery(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "&" + b
}
