package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
)

// resultCache is where the tools with a cache block keep their results;
// the tool workers share it.
type resultCache struct {
	sharedStore[engine.ResultCache] // the block's, or one in memory made on first use
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
	l.cache.open(store)
}

// cachePolicy reads the cache block of a tool, if any, and where it says
// public = true. Only a tool that declares itself read-only may cache its
// results: a call that changes something must reach the upstream every
// time.
func (l *loader) cachePolicy(ctx *engine.DecodeContext, blocks hcl.Blocks, ann *engine.Annotations) (policy *engine.CachePolicy, public hcl.Range) {
	for _, b := range blocks { // at most one, by the tool's spec
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
		// The namespace is set once every file is read (setCacheNamespace).
		policy = &engine.CachePolicy{Store: l.cache.get(memoryCache), TTL: p.TTL, Public: p.Public}
		public = p.PublicRange
	}
	return policy, public
}

// checkPublicCache refuses a public cache on a tool whose answer depends
// on who calls, once its action and programs are decoded: every caller
// would get the first one's answer, fetched with the first one's
// credentials.
func (l *loader) checkPublicCache(ctx *engine.DecodeContext, spec *engine.ToolSpec, public hcl.Range) {
	if spec.Cache == nil || !spec.Cache.Public {
		return
	}
	var why []string
	if a, ok := spec.Action.(engine.CallerActor); ok {
		if s := a.ActsAsCaller(); s != "" {
			why = append(why, s)
		}
	}
	if ctx.ReadsCaller {
		why = append(why, fmt.Sprintf("a program of this tool reads caller (at %s)", ctx.CallerRead))
	}
	if len(why) == 0 {
		return
	}
	l.error(public, "Public cache of a tool that depends on the caller",
		"public = true gives every caller the result cached for the first one, but this tool's answer depends on who calls: %s. Remove public = true: each caller then has entries of its own.",
		strings.Join(why, ", and "))
}

// memoryCache is the store of a configuration without a cache block: in
// memory, within the default bounds (a memory store always opens).
func memoryCache() engine.ResultCache {
	store, _ := cache.DefaultConfig().Open()
	return store
}

// setCacheNamespace gives the tools that cache the namespace of this
// configuration's keys, once every file is read. Hashing every file costs
// a load without such a tool nothing.
func (l *loader) setCacheNamespace(tools []*engine.Tool) {
	ns := ""
	for _, t := range tools {
		if !t.Caches() {
			continue
		}
		if ns == "" {
			ns = l.cacheNamespace()
		}
		t.SetCacheNamespace(ns)
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
