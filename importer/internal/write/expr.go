package write

import "strings"

// Reserved are the words that cannot be expr-lang names.
var Reserved = map[string]bool{
	"true": true, "false": true, "nil": true, "and": true, "or": true, "not": true, "in": true,
	"matches": true, "contains": true, "startsWith": true, "endsWith": true, "let": true, "if": true,
	"else": true,
}

// Quote is s as an expr-lang string literal.
func Quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return "'" + r.Replace(s) + "'"
}

// Key is a member name after "." when it can be one, else a bracket
// access: name or ['na-me'] (used after ?. too).
func Key(k string) string {
	if IsName(k) {
		return k
	}
	return "[" + Quote(k) + "]"
}

// Access is the access to member k: .name or ['na-me'].
func Access(k string) string {
	if IsName(k) {
		return "." + k
	}
	return Key(k)
}

// IsName says whether k can be written as an expr-lang name.
func IsName(k string) bool {
	if k == "" || Reserved[k] || !(k[0] == '_' || k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z') {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
