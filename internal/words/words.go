package words

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UpperFirst capitalizes the first letter of s, so that a phrase can start
// a sentence.
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Quoted is each of names quoted as Go quotes a string: "a".
func Quoted(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}

// Or words items as one of them: "a", "a or b", "a, b or c".
func Or(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
