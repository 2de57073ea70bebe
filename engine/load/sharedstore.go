package load

import (
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

// sharedStore is a store the tool workers share: the one a top-level block
// opened (rate_limit, cache), or else one made on first use by a tool that
// needs it, which the configuration then closes.
type sharedStore[T any] struct {
	mu    sync.Mutex
	store T
	set   bool // store holds one, the block's or made
	made  bool // store was made for the tools, not by the block
}

// open records the store the top-level block opened.
func (s *sharedStore[T]) open(store T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store, s.set = store, true
}

// get returns the store, making one with make when there is none yet.
func (s *sharedStore[T]) get(make func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set {
		s.store, s.set, s.made = make(), true, true
	}
	return s.store
}

// madeStore is the store made for the tools, if any, to be closed with the
// configuration.
func (s *sharedStore[T]) madeStore() []any {
	if s.made {
		return []any{s.store}
	}
	return nil
}

// openBlock decodes the top-level block b (of a store, such as rate_limit
// or cache) with decode, opens the store it describes, what it holds, and
// shares it through s; ok is false when either fails.
func openBlock[C interface{ Open() (T, error) }, T any](l *loader, s *sharedStore[T], b *hcl.Block, what string,
	decode func(*hcl.Block, *engine.DecodeContext) (C, hcl.Diagnostics)) (cfg C, ok bool) {
	cfg, diags := decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cfg, false
	}
	store, err := cfg.Open()
	if err != nil {
		l.error(b.DefRange, "Cannot open the "+what+" store", "%s.", l.redactor.Redact(err.Error()))
		return cfg, false
	}
	l.decoded = append(l.decoded, store)
	s.open(store)
	return cfg, true
}
