package ratelimit

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
)

// Config is the top-level rate_limit block.
type Config struct {
	// Default is the limit of the tools without one of their own.
	Default Limit
	// Store is where the buckets live: "memory" or "redis".
	Store string
	// RedisURL is where Redis is, with store = "redis". It may hold a
	// password: Decode records it as a secret, and it is never printed.
	RedisURL string
	// Prefix starts every Redis key.
	Prefix string
}

// String describes c without its Redis URL, such as "rate_limit{60 calls
// per 1m, 10 at once, store redis}".
func (c Config) String() string {
	return fmt.Sprintf("rate_limit{%s, store %s}", c.Default, c.Store)
}

// GoString is String, so that %#v does not print the Redis URL either.
func (c Config) GoString() string { return c.String() }

// Open returns the store c describes: in memory, or a client of Redis that
// connects on its first call.
func (c *Config) Open() (Store, error) {
	if c.Store == "redis" {
		return NewRedis(c.RedisURL, c.Prefix)
	}
	return NewMemory(), nil
}

// maxCount bounds requests and burst.
const maxCount = 1_000_000_000

// schema is the schema of both rate_limit blocks. A tool's block names the
// store attributes only to say where they belong.
var schema = &hcl.BodySchema{Attributes: append([]hcl.AttributeSchema{
	{Name: "requests", Required: true},
	{Name: "per", Required: true},
	{Name: "burst"},
}, redisconn.StoreAttributes...)}

// Decode reads the top-level rate_limit block. It records the Redis URL and
// its password with ctx.Redactor, and checks that the URL can be parsed, but
// does not connect.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	content, diags := block.Body.Content(schema)
	if content == nil {
		return nil, diags
	}
	cfg := &Config{}
	cfg.Default, diags = decodeLimit(content, ctx, diags)
	store, more := redisconn.DecodeStore(content, ctx, "the buckets", "share the limits")
	diags = append(diags, more...)
	cfg.Store, cfg.RedisURL, cfg.Prefix = store.Kind, store.URL, store.Prefix
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

// DecodeLimit reads the rate_limit block of a tool. Its limit replaces the
// default of the top-level block for that tool.
func DecodeLimit(block *hcl.Block, ctx *engine.DecodeContext) (Limit, hcl.Diagnostics) {
	content, diags := block.Body.Content(schema)
	if content == nil {
		return Limit{}, diags
	}
	for _, name := range []string{"store", "redis_url", "prefix"} {
		if a, ok := content.Attributes[name]; ok {
			diags = append(diags, errorf(a.NameRange, "Unexpected "+name,
				"Where the buckets live is set once for the server: move %s to the top-level rate_limit block.", name))
		}
	}
	l, diags := decodeLimit(content, ctx, diags)
	if diags.HasErrors() {
		return Limit{}, diags
	}
	return l, diags
}

// decodeLimit reads requests, per and burst, appending to diags.
func decodeLimit(content *hcl.BodyContent, ctx *engine.DecodeContext, diags hcl.Diagnostics) (Limit, hcl.Diagnostics) {
	count := func(name, what string) int {
		a, ok := content.Attributes[name]
		if !ok {
			return 0
		}
		n, more := ctx.Int(a.Expr)
		diags = append(diags, more...)
		if more.HasErrors() {
			return 0
		}
		if n < 1 || n > maxCount {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid "+name,
				"%s is how many calls are allowed %s: a whole number from 1 to %d, not %d.", name, what, maxCount, n))
			return 0
		}
		return int(n)
	}
	var l Limit
	l.Requests = count("requests", "per period (per)")
	if a, ok := content.Attributes["per"]; ok {
		// Duration refuses durations that are not positive.
		d, more := ctx.Duration(a.Expr)
		diags = append(diags, more...)
		l.Per = d
	}
	l.Burst = l.Requests
	if _, ok := content.Attributes["burst"]; ok {
		l.Burst = count("burst", "at once, by a full bucket")
	}
	if diags.HasErrors() {
		return Limit{}, diags
	}
	return l, diags
}

// errorf returns an error diagnostic about rng.
func errorf(rng hcl.Range, summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()}
}
