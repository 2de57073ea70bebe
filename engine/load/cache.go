package load

import (
	"maps"
	"slices"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
)

// resultCache is where the tools with a cache block keep their results;
// the tool workers share it.
type resultCache struct {
	sharedStore[cache.Backend] // the block's, or one in memory made on first use
	mu                         sync.Mutex
	policies                   []*cache.Policy // of the tools made, for their namespace
}

// cacheBlock decodes the top-level cache block, if any, and opens its
// store.
func (l *loader) cacheBlock() {
	l.cache = &resultCache{}
	if b := l.single("cache", "Where results are cached is already declared"); b != nil {
		openBlock(l, &l.cache.sharedStore, b, "cache", cache.Decode)
	}
}

// cachePolicy reads the cache block of a tool, if any.
func (l *loader) cachePolicy(ctx *engine.DecodeContext, blocks hcl.Blocks, ann *engine.Annotations) (policy *cache.Policy) {
	for _, b := range blocks { // at most one, by the tool's spec
		var diags hcl.Diagnostics
		policy, diags = cache.DecodePolicy(b, ctx, ann)
		l.diags = append(l.diags, diags...)
	}
	if policy != nil {
		policy.Store = l.cache.get(memoryCache)
	}
	return policy
}

// memoryCache is the store of a configuration without a cache block: in
// memory, within the default bounds (a memory store always opens).
func memoryCache() cache.Backend {
	store, _ := cache.DefaultConfig().Open()
	return store
}

// setCacheNamespace gives the tools that cache the namespace of this
// configuration's keys (see cache.Namespace), made of what the load read,
// once every file is read. Hashing every file costs a load without such a
// tool nothing.
func (l *loader) setCacheNamespace() {
	if len(l.cache.policies) == 0 {
		return
	}
	in := cache.Inputs{Variables: l.root.Variables["var"]}
	for _, f := range l.parser.Files() {
		in.Files = append(in.Files, f.Bytes)
	}
	l.read.mu.Lock()
	in.Read = slices.Clone(l.read.sums)
	in.Env = maps.Clone(l.read.env)
	l.read.mu.Unlock()
	ns := cache.Namespace(in)
	for _, p := range l.cache.policies {
		p.SetNamespace(ns)
	}
}
