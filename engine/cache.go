package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// A ResultCache keeps encoded tool results for a time: in memory, or in
// Redis where every replica shares them. Its errors are not the call's: a
// cache that fails is a cache that misses.
type ResultCache interface {
	// Get returns the value stored under key, if any and still fresh.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// CachePolicy is a tool's cache block: its successful results are kept for
// TTL, for the caller who asked (see Tool.cacheKey), or for every caller
// when Public, which a tool whose answer depends on the caller cannot be.
type CachePolicy struct {
	Store  ResultCache
	TTL    time.Duration
	Public bool
	// Namespace starts every key: what identifies the configuration, so
	// that a changed one reads nothing an earlier one kept.
	Namespace string
}

// CacheMetaKey is the _meta member of a result served from the cache. Its
// value is an object with the result's age in seconds ("age") and the
// time it was cached ("cached_at", RFC 3339).
const CacheMetaKey = "mcpdecl/cache"

// cachedResult is a result as the cache keeps it.
type cachedResult struct {
	At         time.Time       `json:"at"`
	Content    []Content       `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// Caches reports whether the tool keeps its results (a cache block).
func (t *Tool) Caches() bool { return t.spec.Cache != nil }

// SetCacheNamespace sets the namespace of the tool's cache keys (see
// CachePolicy.Namespace), for a loader that knows it only once every tool
// is made. It must be called before the tool is first called, and does
// nothing to a tool that does not cache.
func (t *Tool) SetCacheNamespace(ns string) {
	if t.spec.Cache == nil {
		return
	}
	p := *t.spec.Cache
	p.Namespace = ns
	t.spec.Cache = &p
	t.cacheSeed = t.makeCacheSeed()
}

// cacheSeed is what every cache key of t starts from, worked out when the
// tool is made: the configuration's namespace, the tool's name and schemas
// (a tool that changes with a reload does not read what the old one
// cached).
func (t *Tool) makeCacheSeed() [sha256.Size]byte {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(t.spec.Cache.Namespace), []byte(t.spec.Name), t.inputJSON, t.outputJSON} {
		h.Write(part)
		h.Write([]byte{0})
	}
	var seed [sha256.Size]byte
	h.Sum(seed[:0])
	return seed
}

// cacheKey is the key of a call with raw arguments by caller: the SHA-256
// of the tool's seed, of what the answer can depend on of the caller
// unless the cache is public, and of the arguments as canonical JSON (keys
// sorted, so that the same arguments written differently share an entry).
// Of the caller, that is its ID (whose kind prefix keeps JWT, static-token
// and anonymous callers apart), its token when the action acts with it,
// and all programs see of it when one reads the caller: the same
// subject with another token, tenant or scopes has entries of its own.
// Tokens and claims go into the hash only, never into a key or a log. It
// returns "" when the arguments are not a JSON object: the call then fails
// as usual.
func (t *Tool) cacheKey(caller Caller, raw json.RawMessage) string {
	var args any = map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return ""
		}
		if _, ok := args.(map[string]any); !ok {
			return ""
		}
	}
	// What is hashed: each part of the caller's is written with its
	// length, so that no two callers write the same bytes.
	size := 2*sha256.Size + len(raw) + len(caller.ID)
	if t.cacheToken {
		size += len(caller.Token)
	}
	b := make([]byte, 0, size)
	b = append(b, t.cacheSeed[:]...)
	if t.spec.Cache.Public {
		b = append(b, 'p')
	} else {
		b = append(b, 'c')
		b = appendPart(b, caller.ID)
		if t.cacheToken {
			b = appendPart(b, caller.Token)
		}
		if t.spec.ReadsCaller {
			// All that programs see of the caller (see Caller.Value).
			b = appendPart(b, caller.Subject)
			b = strconv.AppendBool(b, caller.Authenticated)
			b = binary.AppendUvarint(b, uint64(len(caller.Scopes)))
			for _, s := range caller.Scopes {
				b = appendPart(b, s)
			}
			var err error
			if b, err = jsonenc.Append(b, caller.Claims); err != nil {
				return ""
			}
		}
	}
	b, err := jsonenc.Append(b, args)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// appendPart appends s to b after its length.
func appendPart(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// cachedCall answers a call from the cache when it can, and otherwise
// calls the tool and keeps a successful result.
func (t *Tool) cachedCall(ctx context.Context, caller Caller, raw json.RawMessage) *Result {
	policy := t.spec.Cache
	key := t.cacheKey(caller, raw)
	if key != "" {
		if b, ok, err := policy.Store.Get(ctx, key); err == nil && ok {
			if res := decodeCached(b); res != nil {
				return res
			}
		}
	}
	res, sec := t.call(ctx, raw)
	res = t.finish(res, sec)
	if key != "" && !res.IsError {
		if b, err := encodeCached(res); err == nil {
			// A value that cannot be stored is not cached; the call's
			// result stands.
			_ = policy.Store.Set(context.WithoutCancel(ctx), key, b, policy.TTL)
		}
	}
	return res
}

// encodeCached writes a result for the cache.
func encodeCached(res *Result) ([]byte, error) {
	c := cachedResult{At: time.Now().UTC(), Content: res.Content}
	if res.Structured != nil {
		b, err := jsonenc.Append(nil, res.Structured)
		if err != nil {
			return nil, err
		}
		c.Structured = b
	}
	return json.Marshal(c)
}

// decodeCached reads a result the cache kept, marked as coming from it;
// nil when b cannot be read (an entry of another version, say).
func decodeCached(b []byte) *Result {
	var c cachedResult
	if err := json.Unmarshal(b, &c); err != nil || c.At.IsZero() {
		return nil
	}
	res := &Result{Content: c.Content}
	if len(c.Structured) > 0 {
		dec := json.NewDecoder(bytes.NewReader(c.Structured))
		dec.UseNumber()
		if err := dec.Decode(&res.Structured); err != nil {
			return nil
		}
	}
	res.Meta = map[string]any{CacheMetaKey: map[string]any{
		"cached_at": c.At.Format(time.RFC3339),
		"age":       int64(time.Since(c.At).Seconds()),
	}}
	return res
}
