package words

import (
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
