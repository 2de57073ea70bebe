package engine

import (
	"context"
	"strings"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// callScope is what the engine tells the action of a call through its
// context, in one value: the bounds and the redaction of the call (see
// [MaxResultBytes] and [text.Redacted]). It is the [text.Redaction] the
// context carries, so that it takes one value of the context.
type callScope struct {
	maxResultBytes int64               // the tool's max_result_bytes
	redact         func(string) string // nil: nothing to redact
	keepControls   bool                // the tool says sanitize = false
}

// Redact applies the call's redaction to x.
func (s *callScope) Redact(x string) string {
	if s == nil || s.redact == nil {
		return x
	}
	return s.redact(x)
}

// withCallScope returns a context that carries s.
func withCallScope(ctx context.Context, s *callScope) context.Context {
	return text.WithRedaction(ctx, s)
}

// scopeOf returns the scope of the call ctx belongs to, or nil.
func scopeOf(ctx context.Context) *callScope {
	s, _ := text.RedactionOf(ctx).(*callScope)
	return s
}

// OutputText is a program's output b as text for the action of the call in
// ctx: cleaned as [text.Sanitize] does, unless the tool says sanitize = false;
// then only invalid UTF-8 is replaced, so that the text stays valid.
func OutputText(ctx context.Context, b []byte) string {
	if s := scopeOf(ctx); s != nil && s.keepControls {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return text.Sanitize(b)
}
