package engine

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Redactor hides the values of sensitive variables and arguments wherever
// text leaves the server: tool errors, logs, listings. It is filled at load
// time, and safe for concurrent use.
type Redactor struct {
	mu       sync.Mutex // serializes Add
	secrets  []string
	replacer atomic.Pointer[strings.Replacer]
}

// Mask is what a secret is replaced with.
const Mask = "(sensitive)"

// minSecretLen is the length below which a value is not redacted:
// replacing it would garble unrelated text without protecting anything.
const minSecretLen = 4

// Add records a secret. Values shorter than four bytes are not recorded.
func (r *Redactor) Add(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(secret) < minSecretLen || slices.Contains(r.secrets, secret) {
		return
	}
	r.secrets = append(r.secrets, secret)
	// Longest first, so that a secret containing another is hidden whole.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.replacer.Store(strings.NewReplacer(pairs...))
}

// Active reports whether any secret is recorded.
func (r *Redactor) Active() bool {
	return r != nil && r.replacer.Load() != nil
}

// Redact returns s with every recorded secret replaced by [Mask].
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	if rep := r.replacer.Load(); rep != nil {
		return rep.Replace(s)
	}
	return s
}
