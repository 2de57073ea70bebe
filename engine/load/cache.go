package load

import (
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
)

// resultCache is where the tools with a cache block keep their results;
// the tool workers share it.
type resultCache struct {
	mu    sync.Mutex
	store engine.ResultCache // the block's, or one in memory made on first use
	made  bool               // store was made for the tools, not by the block
}

// cacheBlock decodes the top-level cache block, if any, and opens its
// store.
func (l *loader) cacheBlock() {
	l.cache = &resultCache{}
	b := l.single("cache", "Where results are cached is already declared")
	if b == nil {
		return
	}
	cfg, diags := cache.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	store, err := cfg.Open()
	if err != nil {
		l.error(b.DefRange, "Cannot open the cache store", "%s.", l.redactor.Redact(err.Error()))
		return
	}
	l.decoded = append(l.decoded, store)
	l.cache.store = store
}

// cachePolicy reads the cache block of a tool, if any. Only a tool that
// declares itself read-only may cache its results: a call that changes
// something must reach the upstream every time.
func (l *loader) cachePolicy(ctx *engine.DecodeContext, blocks hcl.Blocks, ann *engine.Annotations) *engine.CachePolicy {
	var seen *hcl.Block
	var policy *engine.CachePolicy
	for _, b := range blocks {
		if b.Type != "cache" {
			continue
		}
		if seen != nil {
			l.error(b.DefRange, "Duplicate cache block", "This tool's cache is already declared at %s; merge the two blocks.", seen.DefRange)
			continue
		}
		seen = b
		p, diags := cache.DecodePolicy(b, ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if ann == nil || ann.ReadOnlyHint == nil || !*ann.ReadOnlyHint {
			l.error(b.DefRange, "Cache of a tool that is not read-only",
				"Only a tool that changes nothing may answer from a cache. If this one only reads, say so with annotations { read_only_hint = true }; otherwise remove the cache block.")
			continue
		}
		policy = &engine.CachePolicy{Store: l.cache.get(), TTL: p.TTL, Public: p.Public}
	}
	return policy
}

// get returns the store of the results, making one in memory when the
// configuration has no cache block.
func (c *resultCache) get() engine.ResultCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store == nil {
		// A memory store always opens.
		c.store, _ = cache.DefaultConfig().Open()
		c.made = true
	}
	return c.store
}

// madeStore is the store made for the tools, if any, to be closed with the
// configuration.
func (c *resultCache) madeStore() []any {
	if c.made {
		return []any{c.store}
	}
	return nil
}
