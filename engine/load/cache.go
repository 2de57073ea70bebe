package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
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
// configuration's keys, once every file is read. Hashing every file costs
// a load without such a tool nothing.
func (l *loader) setCacheNamespace() {
	if len(l.cache.policies) == 0 {
		return
	}
	ns := l.cacheNamespace()
	for _, p := range l.cache.policies {
		p.SetNamespace(ns)
	}
}

// cacheNamespace is what this configuration's cache keys start from: a
// hash of the contents of its files (wherever they are) and of the files
// it read with file(), and of its variables' values; sensitive values are
// left out, and so are files read only for the default of a sensitive
// variable. A configuration that changed (a mapping, an upstream's
// base_url, a variable, a schema in a file) reads none of the results an
// earlier one kept, in memory or in Redis, while replicas serving the same
// configuration share theirs.
func (l *loader) cacheNamespace() string {
	files := l.parser.Files()
	sums := make([][sha256.Size]byte, 0, len(files)+len(l.read.sums))
	for _, f := range files {
		sums = append(sums, sha256.Sum256(f.Bytes))
	}
	l.read.mu.Lock()
	sums = append(sums, l.read.sums...)
	l.read.mu.Unlock()
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, s := range sums {
		h.Write(s[:])
	}
	if vars, ok := l.root.Variables["var"]; ok && vars.Type().IsObjectType() && vars.IsWhollyKnown() && !vars.IsNull() {
		values := vars.AsValueMap()
		for _, name := range slices.Sorted(maps.Keys(values)) {
			v := values[name]
			if v.ContainsMarked() {
				continue // sensitive: kept out of anything that leaves the process
			}
			g, err := mapping.FromCty(v)
			if err != nil {
				continue
			}
			b, err := jsonenc.Append(nil, g)
			if err != nil {
				continue
			}
			h.Write([]byte(name))
			h.Write([]byte{0})
			h.Write(b)
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
