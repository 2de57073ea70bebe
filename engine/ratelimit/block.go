package ratelimit

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/redisconn"
	"github.com/mcpdecl/mcpdecl/engine/spec"
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

// limitAttrs are the attributes of a limit, in both rate_limit blocks.
func limitAttrs() []*spec.Attr {
	return []*spec.Attr{
		spec.Int("requests", "is how many calls are allowed per period (per)").Range(1, maxCount).Mandatory(),
		spec.Duration("per", "is the period in which requests calls are allowed").Mandatory(),
		spec.Int("burst", "is how many calls are allowed at once, by a full bucket").Range(1, maxCount).DefaultIs("requests"),
	}
}

// ConfigSpec is the top-level rate_limit block.
var ConfigSpec = &spec.Block{
	Name:    "rate_limit",
	Summary: "The server-wide limit of calls, per tool and per client, and where its buckets live.",
	Doc: "Each client has a bucket per tool, refilled at requests per per, that holds burst calls. " +
		"A tool's own rate_limit block replaces this limit for that tool. " +
		`With store = "redis" every replica shares the buckets.`,
	Example: `rate_limit {
  requests = 60
  per      = "1m"
  burst    = 10
}`,
	Attrs: append(limitAttrs(), redisconn.StoreAttrs("the buckets")...),
}

// LimitSpec is the rate_limit block of a tool. It declares the store
// attributes only to say where they belong.
var LimitSpec = &spec.Block{
	Name:    "rate_limit",
	In:      "tool",
	Summary: "The tool's own limit of calls per client, in place of the top-level one.",
	Doc:     "Where the buckets live is set once for the server, by the top-level rate_limit block.",
	Example: `rate_limit {
  requests = 5
  per      = "1s"
}`,
	Attrs: limitAttrs(),
}

// Decode reads the top-level rate_limit block. It records the Redis URL and
// its password with ctx.Redactor, and checks that the URL can be parsed, but
// does not connect.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	v, diags := ConfigSpec.Decode(block.Body, ctx)
	store, more := redisconn.DecodeStore(v, ctx, "the buckets", "share the limits")
	diags = append(diags, more...)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Config{Default: limit(v), Store: store.Kind, RedisURL: store.URL, Prefix: store.Prefix}, diags
}

// DecodeLimit reads the rate_limit block of a tool. Its limit replaces the
// default of the top-level block for that tool.
func DecodeLimit(block *hcl.Block, ctx *engine.DecodeContext) (Limit, hcl.Diagnostics) {
	v, diags := LimitSpec.Decode(block.Body, ctx)
	for _, d := range diags {
		// The store attributes belong to the top-level block: say so
		// rather than that they are unknown.
		if d.Summary == "Unsupported argument" && d.Subject != nil {
			for _, name := range []string{"store", "redis_url", "prefix"} {
				if strings.HasPrefix(d.Detail, fmt.Sprintf("An argument named %q ", name)) {
					d.Summary = "Unexpected " + name
					d.Detail = fmt.Sprintf("Where the buckets live is set once for the server: move %s to the top-level rate_limit block.", name)
				}
			}
		}
	}
	if diags.HasErrors() {
		return Limit{}, diags
	}
	return limit(v), diags
}

// limit reads requests, per and burst.
func limit(v *spec.Values) Limit {
	l := Limit{Requests: int(v.Int("requests")), Per: v.Duration("per"), Burst: int(v.Int("requests"))}
	if v.Has("burst") {
		l.Burst = int(v.Int("burst"))
	}
	return l
}
