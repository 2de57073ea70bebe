package load

import (
	"bytes"
	"crypto/pbkdf2"
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
// it read with file(), of its variables' values, and of its secrets: the
// values of sensitive variables and what env() read. A configuration that
// changed (a mapping, an upstream's base_url, a variable, a schema in a
// file) reads none of the results an earlier one kept, in memory or in
// Redis, and neither does one holding other credentials (another tenant's
// key, given to the same files), whose results were fetched as someone
// else; replicas serving the same configuration with the same secrets
// share theirs. The secrets enter the hash through a slow key derivation
// (see secretsDigest), so that a key in Redis is no quick test of a
// guessed secret.
func (l *loader) cacheNamespace() string {
	files := l.parser.Files()
	sums := make([][sha256.Size]byte, 0, len(files)+len(l.read.sums))
	for _, f := range files {
		sums = append(sums, sha256.Sum256(f.Bytes))
	}
	l.read.mu.Lock()
	sums = append(sums, l.read.sums...)
	env := maps.Clone(l.read.env)
	l.read.mu.Unlock()
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, s := range sums {
		h.Write(s[:])
	}
	// secrets are the sensitive values, written as the public ones are:
	// each name, a NUL, its value, a NUL.
	var secrets []byte
	if vars, ok := l.root.Variables["var"]; ok && vars.Type().IsObjectType() && vars.IsWhollyKnown() && !vars.IsNull() {
		values := vars.AsValueMap()
		for _, name := range slices.Sorted(maps.Keys(values)) {
			v, sensitive := values[name], false
			if v.ContainsMarked() {
				v, _ = v.UnmarkDeep()
				sensitive = true
			}
			g, err := mapping.FromCty(v)
			if err != nil {
				continue
			}
			b, err := jsonenc.Append(nil, g)
			if err != nil {
				continue
			}
			part := slices.Concat([]byte(name), []byte{0}, b, []byte{0})
			if sensitive {
				secrets = append(secrets, part...)
			} else {
				h.Write(part)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		secrets = append(secrets, "env:"+name...)
		if v := env[name]; v != nil {
			secrets = append(append(append(secrets, '='), *v...), 0)
		} else {
			secrets = append(secrets, 0) // not set: apart from set to ""
		}
	}
	if len(secrets) > 0 {
		h.Write(secretsDigest(secrets, h.Sum(nil)))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// secretIterations is how many rounds of PBKDF2-HMAC-SHA256 the secrets
// of the cache namespace go through: some milliseconds once per load, a
// great many for whoever tries guesses of a secret against a key in Redis.
const secretIterations = 50_000

// secretsDigest derives what secrets add to the cache namespace, salted
// with the rest of the namespace (so that one guess tests one
// configuration only).
func secretsDigest(secrets, salt []byte) []byte {
	k, err := pbkdf2.Key(sha256.New, string(secrets), salt, secretIterations, sha256.Size)
	if err != nil { // FIPS 140-only mode refuses a short secret: it still counts
		sum := sha256.Sum256(append(salt, secrets...))
		return sum[:]
	}
	return k
}
