package engine

import "context"

// callScope is what the engine tells the action of a call through its
// context, in one value: the bounds and the redaction of the call (see
// [MaxResultBytes] and [RedactText]).
type callScope struct {
	maxResultBytes int64               // the tool's max_result_bytes
	redact         func(string) string // nil: nothing to redact
}

type callScopeKey struct{}

// withCallScope returns a context that carries s.
func withCallScope(ctx context.Context, s *callScope) context.Context {
	return context.WithValue(ctx, callScopeKey{}, s)
}

// scopeOf returns the scope of the call ctx belongs to, or nil.
func scopeOf(ctx context.Context) *callScope {
	s, _ := ctx.Value(callScopeKey{}).(*callScope)
	return s
}
