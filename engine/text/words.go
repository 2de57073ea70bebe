package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UpperFirst returns s with its first letter in upper case, for a message
// or a phrase that starts a sentence: "no such file" becomes "No such
// file". Anything that is not a lower-case letter is left as it is.
func UpperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
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
