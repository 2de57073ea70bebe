package text

import "strings"

// WithArticle is word preceded by "a" or "an" as it is read aloud: "an
// http", "an image", "an exec", but "a sql", "a database". Messages that
// name a block type or a content type through a format use it, so that no
// "a http action" reaches a user.
func WithArticle(word string) string {
	w := strings.ToLower(word)
	switch {
	case w == "":
		return word
	case strings.HasPrefix(w, "http"), strings.HasPrefix(w, "html"), strings.HasPrefix(w, "hcl"):
		return "an " + word // letters spelt out: "aitch"
	case strings.ContainsRune("aeio", rune(w[0])):
		return "an " + word
	case w[0] == 'u' && !strings.HasPrefix(w, "uri") && !strings.HasPrefix(w, "url") && !strings.HasPrefix(w, "us"):
		return "an " + word
	}
	return "a " + word
}
