package cache

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
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
func (c *Config) Open() (engine.ResultCache, error) {
	if c.Kind == "redis" {
		return NewRedis(c.URL, c.Prefix)
	}
	return NewMemory(c.MaxEntries, c.MaxBytes), nil
}

var configSchema = &hcl.BodySchema{Attributes: append([]hcl.AttributeSchema{
	{Name: "max_entries"},
	{Name: "max_bytes"},
}, redisconn.StoreAttributes...)}

// Decode reads the top-level cache block. It records the Redis URL's
// secrets with ctx.Redactor and checks the URL, but does not connect.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	content, diags := block.Body.Content(configSchema)
	if content == nil {
		return nil, diags
	}
	cfg := DefaultConfig()
	store, more := redisconn.DecodeStore(content, ctx, "the cached results", "share the cached results")
	diags = append(diags, more...)
	cfg.Store = store
	count := func(name string, limit int64, dst *int64) {
		a, ok := content.Attributes[name]
		if !ok {
			return
		}
		n, more := ctx.Int(a.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return
		}
		if n < 1 || n > limit {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name,
				Detail: fmt.Sprintf("%s bounds the results kept in memory: a number from 1 to %d, not %d.", name, limit, n), Subject: a.Expr.Range().Ptr()})
			return
		}
		if store.Kind == "redis" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unexpected " + name,
				Detail: fmt.Sprintf(`%s bounds the results kept in memory; with store = "redis", Redis's own maxmemory bounds them: remove %s.`, name, name), Subject: a.NameRange.Ptr()})
			return
		}
		*dst = n
	}
	entries := int64(cfg.MaxEntries)
	count("max_entries", maxMaxEntries, &entries)
	cfg.MaxEntries = int(entries)
	count("max_bytes", maxMaxBytes, &cfg.MaxBytes)
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

// Policy is a tool's cache block.
type Policy struct {
	// TTL is how long a result is kept.
	TTL time.Duration
	// Public shares a result between every caller; otherwise each caller
	// has its own. PublicRange is where public = true is written.
	Public      bool
	PublicRange hcl.Range
}

var policySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "ttl", Required: true},
	{Name: "public"},
}}

// DecodePolicy reads the cache block of a tool.
func DecodePolicy(block *hcl.Block, ctx *engine.DecodeContext) (Policy, hcl.Diagnostics) {
	content, diags := block.Body.Content(policySchema)
	if content == nil {
		return Policy{}, diags
	}
	var p Policy
	if a, ok := content.Attributes["ttl"]; ok {
		d, more := ctx.Duration(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && d > MaxTTL {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid ttl",
				Detail: fmt.Sprintf("ttl is how long a result is kept: at most %s (30 days), not %s.", MaxTTL, d), Subject: a.Expr.Range().Ptr()})
		}
		p.TTL = d
	}
	if a, ok := content.Attributes["public"]; ok {
		b, more := ctx.Bool(a.Expr)
		diags = append(diags, more...)
		p.Public, p.PublicRange = b, a.Range
	}
	return p, diags
}
