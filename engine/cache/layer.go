package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// A Backend keeps encoded tool results for a time: in memory, or in Redis
// where every replica shares them. Its errors are not the call's: a cache
// that fails is a cache that misses.
type Backend interface {
	// Get returns the value stored under key, if any and still fresh.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// Policy is a tool's cache block, and the layer of its per-call path that
// answers a call from the cache when it can, and otherwise keeps a
// successful result: for TTL, for the caller who asked (see Policy.key),
// or for every caller when Public, which a tool whose answer depends on
// the caller cannot be. A Policy serves one tool.
type Policy struct {
	Store  Backend
	TTL    time.Duration
	Public bool

	publicRange hcl.Range // where public = true is written
	tool        *engine.Tool
	// seed starts every key (see SetNamespace); token puts the caller's
	// token in them, for an action that acts with it (see
	// engine.CallerActor).
	seed  [sha256.Size]byte
	token bool
}

var (
	_ engine.CallLayer   = (*Policy)(nil)
	_ engine.RemoteStore = (*Policy)(nil)
)

// Wrap answers the calls of t from the cache.
func (p *Policy) Wrap(t *engine.Tool, next engine.CallStep) (engine.CallStep, error) {
	p.tool, p.token = t, t.ActsAsCaller() != ""
	switch {
	case p.Public && (p.token || t.ReadsCaller()):
		// The loader says so at public = true (see Validate); this keeps
		// any other maker of tools from sharing one caller's answers.
		return nil, fmt.Errorf("tool %q depends on its caller, so its cache cannot be public", t.Name())
	case t.Confirms():
		return nil, fmt.Errorf("tool %q asks for confirmation, so it cannot answer from a cache", t.Name())
	case t.Samples():
		return nil, fmt.Errorf("tool %q asks the client's model, so it cannot answer from a cache", t.Name())
	case t.AsksRoots():
		return nil, fmt.Errorf("tool %q works within the client's roots, so it cannot answer from a cache", t.Name())
	}
	p.SetNamespace("")
	return func(ctx context.Context, caller engine.Caller, raw json.RawMessage) *engine.Result {
		key := p.key(caller, raw)
		if key != "" {
			if b, ok, err := p.Store.Get(ctx, key); err == nil && ok {
				if res := decodeResult(b); res != nil {
					return res
				}
			}
		}
		res := next(ctx, caller, raw)
		if key != "" && !res.IsError && res.Round == nil {
			if b, err := encodeResult(res); err == nil {
				// A value that cannot be stored is not cached; the
				// call's result stands.
				_ = p.Store.Set(context.WithoutCancel(ctx), key, b, p.TTL)
			}
		}
		return res
	}, nil
}

// IsRemote reports whether the store is a remote one, such as Redis.
func (p *Policy) IsRemote() bool {
	r, ok := p.Store.(engine.RemoteStore)
	return ok && r.IsRemote()
}

// SetNamespace starts every key with ns, what identifies the
// configuration, so that a changed one reads nothing an earlier one kept;
// and with the tool's name and schemas, so that a tool that changes with
// a reload does not read what the old one cached. A loader that knows ns
// only once every tool is made calls it before the tool is first called.
func (p *Policy) SetNamespace(ns string) {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(ns), []byte(p.tool.Name()), p.tool.InputSchemaJSON(), p.tool.OutputSchemaJSON()} {
		h.Write(part)
		h.Write([]byte{0})
	}
	h.Sum(p.seed[:0])
}

// key is the key of a call with raw arguments by caller: the SHA-256 of
// the tool's seed, of what the answer can depend on of the caller unless
// the cache is public, and of the arguments as canonical JSON (keys
// sorted, so that the same arguments written differently share an entry).
// Of the caller, that is its ID (whose kind prefix keeps JWT, static-token
// and anonymous callers apart), its token when the action acts with it,
// and all programs see of it when one reads the caller: the same subject
// with another token, tenant or scopes has entries of its own. Tokens and
// claims go into the hash only, never into a key or a log. It returns ""
// when the arguments are not a JSON object: the call then fails as usual.
func (p *Policy) key(caller engine.Caller, raw json.RawMessage) string {
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
	if p.token {
		size += len(caller.Token)
	}
	b := make([]byte, 0, size)
	b = append(b, p.seed[:]...)
	if p.Public {
		b = append(b, 'p')
	} else {
		b = append(b, 'c')
		b = appendPart(b, caller.ID)
		if p.token {
			b = appendPart(b, caller.Token)
		}
		if p.tool.ReadsCaller() {
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

// kept is a result as the cache keeps it.
type kept struct {
	At         time.Time        `json:"at"`
	Content    []engine.Content `json:"content"`
	Structured json.RawMessage  `json:"structured,omitempty"`
}

// encodeResult writes a result for the cache.
func encodeResult(res *engine.Result) ([]byte, error) {
	c := kept{At: time.Now().UTC(), Content: res.Content}
	if res.Structured != nil {
		b, err := jsonenc.Append(nil, res.Structured)
		if err != nil {
			return nil, err
		}
		c.Structured = b
	}
	return json.Marshal(c)
}

// decodeResult reads a result the cache kept, marked as coming from it
// (see engine.CacheMetaKey); nil when b cannot be read (an entry of
// another version, say).
func decodeResult(b []byte) *engine.Result {
	var c kept
	if err := json.Unmarshal(b, &c); err != nil || c.At.IsZero() {
		return nil
	}
	res := &engine.Result{Content: c.Content}
	if len(c.Structured) > 0 {
		dec := json.NewDecoder(bytes.NewReader(c.Structured))
		dec.UseNumber()
		if err := dec.Decode(&res.Structured); err != nil {
			return nil
		}
	}
	res.Meta = map[string]any{engine.CacheMetaKey: map[string]any{
		"cached_at": c.At.Format(time.RFC3339),
		"age":       int64(time.Since(c.At).Seconds()),
	}}
	return res
}
