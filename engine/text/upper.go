package text

import (
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
