package cache

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// The bounds of the memory store, by default and at most.
const (
	DefaultMaxEntries = 10_000
	DefaultMaxBytes   = 64 << 20
	maxMaxEntries     = 10_000_000
	maxMaxBytes       = 64 << 30
	// MaxTTL is the longest a result may be kept.
	MaxTTL = 30 * 24 * time.Hour
)

// Config is the top-level cache block: where the results of the tools with
// a cache block of their own are kept.
type Config struct {
	redisconn.Store
	// MaxEntries and MaxBytes bound the memory store.
	MaxEntries int
	MaxBytes   int64
}

// String describes c without its Redis URL.
func (c Config) String() string { return fmt.Sprintf("cache{store %s}", c.Kind) }

// GoString is String, so that %#v does not print the Redis URL either.
func (c Config) GoString() string { return c.String() }

// DefaultConfig is the store of a configuration without a cache block:
// in memory, within the default bounds.
func DefaultConfig() *Config {
	return &Config{Store: redisconn.Store{Kind: "memory", Prefix: "mcpdecl"}, MaxEntries: DefaultMaxEntries, MaxBytes: DefaultMaxBytes}
}

// Open returns the store c describes. A Redis store connects on its first
// call.
func (c *Config) Open() (Backend, error) {
	if c.Kind == "redis" {
		return NewRedis(c.URL, c.Prefix)
	}
	return NewMemory(c.MaxEntries, c.MaxBytes), nil
}

// ConfigSpec is the top-level cache block.
var ConfigSpec = &spec.Block{
	Name:    "cache",
	Summary: "Where the results of the tools with a cache block of their own are kept.",
	Doc: "Without this block, results are kept in the memory of each process, within the default bounds. " +
		`With store = "redis" every replica shares them, and Redis's own maxmemory bounds them.`,
	Example: `cache {
  store     = "redis"
  redis_url = "redis://localhost:6379/0"
  prefix    = "weather"
}`,
	Attrs: append([]*spec.Attr{
		spec.Int("max_entries", "bounds how many results are kept in memory").Range(1, maxMaxEntries).WithDefault(DefaultMaxEntries),
		spec.Int("max_bytes", "bounds the bytes of the results kept in memory").Range(1, maxMaxBytes).WithDefault(DefaultMaxBytes),
	}, redisconn.StoreAttrs("the cached results")...),
}

// Decode reads the top-level cache block. It records the Redis URL's
// secrets with ctx.Redactor and checks the URL, but does not connect.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	v, diags := ConfigSpec.Decode(block.Body, ctx)
	store, more := redisconn.DecodeStore(v, ctx, "the cached results", "share the cached results")
	diags = append(diags, more...)
	diags = append(diags, checkConfig(v, store)...)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Config{Store: store, MaxEntries: int(v.Int("max_entries")), MaxBytes: v.Int("max_bytes")}, diags
}

// checkConfig refuses the bounds of the memory store with store = "redis".
func checkConfig(v *spec.Values, store redisconn.Store) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range []string{"max_entries", "max_bytes"} {
		if a := v.Attr(name); v.Has(name) && store.Kind == "redis" {
			diags = append(diags, spec.Errorf(a.NameRange, "Unexpected "+name,
				`%s bounds the results kept in memory; with store = "redis", Redis's own maxmemory bounds them: remove %s.`, name, name))
		}
	}
	return diags
}

// PolicySpec is the cache block of a tool.
var PolicySpec = &spec.Block{
	Name:    "cache",
	In:      "tool",
	Summary: "Keeps the tool's results for a while, and answers the same call from them.",
	Doc: "Only a tool that declares itself read-only (annotations { read_only_hint = true }) may cache its results. " +
		"A result is kept per caller unless public = true; a tool whose answer depends on the caller cannot be public. " +
		"The top-level cache block says where results are kept.",
	Example: `cache {
  ttl = "5m"
}`,
	Attrs: []*spec.Attr{
		spec.Duration("ttl", "is how long a result is kept").AtMost(int64(MaxTTL)).Mandatory(),
		spec.Bool("public", "shares a result between every caller; otherwise each caller has entries of its own").WithDefault(false),
	},
}

// DecodePolicy reads the cache block of a tool whose annotations are ann;
// the caller sets its Store. Only a tool that declares itself
// read-only may cache its results: a call that changes something must
// reach the upstream every time.
func DecodePolicy(block *hcl.Block, ctx *engine.DecodeContext, ann *engine.Annotations) (*Policy, hcl.Diagnostics) {
	v, diags := PolicySpec.Decode(block.Body, ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if ann == nil || ann.ReadOnlyHint == nil || !*ann.ReadOnlyHint {
		return nil, append(diags, spec.Errorf(block.DefRange, "Cache of a tool that is not read-only",
			"Only a tool that changes nothing may answer from a cache. If this one only reads, say so with annotations { read_only_hint = true }; otherwise remove the cache block."))
	}
	p := &Policy{TTL: v.Duration("ttl"), Public: v.Bool("public")}
	if a := v.Attr("public"); a != nil {
		p.publicRange = a.Range
	}
	return p, diags
}

// Validate refuses a public cache on a tool whose answer depends on who
// calls, once its action and programs are decoded (ctx says whether a
// program reads the caller): every caller would get the first one's
// answer, fetched with the first one's credentials.
func (p *Policy) Validate(ctx *engine.DecodeContext, action engine.Action) hcl.Diagnostics {
	if !p.Public {
		return nil
	}
	var why []string
	if a, ok := action.(engine.CallerActor); ok {
		if s := a.ActsAsCaller(); s != "" {
			why = append(why, s)
		}
	}
	if ctx.ReadsCaller {
		why = append(why, fmt.Sprintf("a program of this tool reads caller (at %s)", ctx.CallerRead))
	}
	if len(why) == 0 {
		return nil
	}
	return hcl.Diagnostics{spec.Errorf(p.publicRange, "Public cache of a tool that depends on the caller",
		"public = true gives every caller the result cached for the first one, but this tool's answer depends on who calls: %s. Remove public = true: each caller then has entries of its own.",
		strings.Join(why, ", and "))}
}
