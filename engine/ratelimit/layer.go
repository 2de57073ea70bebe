package ratelimit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Bind returns the rate limit of one tool: its calls are decided by s
// under l, per caller. The limit refuses a call when s cannot decide (it
// fails closed): better a refused call than an unlimited tool.
func Bind(s Store, l Limit) *Limiter { return &Limiter{store: s, limit: l} }

// Limiter is the rate limit of one tool, the layer of its per-call path
// that refuses a call beyond the limit, with engine.OutcomeRateLimited
// and a message saying when to retry.
type Limiter struct {
	store Store
	limit Limit
}

var (
	_ engine.CallLayer   = (*Limiter)(nil)
	_ engine.RemoteStore = (*Limiter)(nil)
)

// Wrap limits the calls of t, per caller; a zero limit leaves them be.
func (r *Limiter) Wrap(t *engine.Tool, next engine.CallStep) (engine.CallStep, error) {
	if r.limit.IsZero() {
		return next, nil
	}
	name := t.Name()
	return func(ctx context.Context, caller engine.Caller, raw json.RawMessage) *engine.Result {
		if err := r.admit(ctx, key(name, caller.ID)); err != nil {
			return t.Refuse(engine.OutcomeRateLimited, err)
		}
		return next(ctx, caller, raw)
	}, nil
}

// admit lets the call of the bucket key run, or refuses it with a message
// saying when to retry; when the store cannot decide, the call is refused
// too.
func (r *Limiter) admit(ctx context.Context, key string) error {
	d, err := r.store.Allow(ctx, key, r.limit)
	if err != nil {
		return fmt.Errorf("the call was refused because its rate limit could not be checked: %w", err)
	}
	if !d.Allowed {
		return refusal(Message(r.limit, d))
	}
	return nil
}

// IsRemote reports whether a call waits for the store over the network
// (Redis).
func (r *Limiter) IsRemote() bool {
	s, ok := r.store.(engine.RemoteStore)
	return ok && s.IsRemote()
}

// refusal is the error of a call refused by its rate limit.
type refusal string

func (r refusal) Error() string { return string(r) }

// key names the bucket of the tool name for the caller id, as name:id
// with id's bytes outside printable ASCII, and %, written %XX: printable,
// so that an operator can read and type the keys of a shared store, and
// unambiguous, since a tool's name holds no colon.
func key(name, id string) string {
	i := 0
	for i < len(id) && id[i] > 0x20 && id[i] < 0x7f && id[i] != '%' {
		i++
	}
	if i == len(id) {
		return name + ":" + id
	}
	const hex = "0123456789ABCDEF"
	b := append(append(make([]byte, 0, len(name)+1+3*len(id)), name...), ':')
	for _, c := range []byte(id) {
		if c < 0x21 || c > 0x7e || c == '%' {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
