package engine

import (
	"slices"
	"strings"
)

// Redactor hides the values of sensitive variables and arguments wherever
// text leaves the server: tool errors, logs, listings. It is filled at load
// time and only read afterwards, so it is safe for concurrent use once the
// configuration is loaded.
type Redactor struct {
	secrets  []string
	replacer *strings.Replacer
}

// Mask is what a secret is replaced with.
const Mask = "(sensitive)"

// Add records a secret. Values shorter than four bytes are not recorded:
// replacing them would garble unrelated text without protecting anything.
func (r *Redactor) Add(secret string) {
	if len(secret) < 4 || slices.Contains(r.secrets, secret) {
		return
	}
	r.secrets = append(r.secrets, secret)
	// Longest first, so that a secret containing another is hidden whole.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.replacer = strings.NewReplacer(pairs...)
}

// Redact returns s with every recorded secret replaced by [Mask].
func (r *Redactor) Redact(s string) string {
	if r == nil || r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}
