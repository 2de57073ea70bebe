package ratelimit

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Config is the top-level rate_limit block.
type Config struct {
	// Default is the limit of the tools without one of their own.
	Default Limit
	// Store is "memory" or "redis".
	Store string
	// RedisURL is where Redis is, with store = "redis". It may hold a
	// password: it is recorded as a secret, and never printed.
	RedisURL string
	// Prefix starts every Redis key.
	Prefix string
}

// String describes c without its Redis URL.
func (c *Config) String() string {
	return fmt.Sprintf("rate_limit{%s, store %s}", c.Default, c.Store)
}

var (
	limitAttrs = []hcl.AttributeSchema{
		{Name: "requests", Required: true},
		{Name: "per", Required: true},
		{Name: "burst"},
	}
	serverSchema = &hcl.BodySchema{Attributes: append(append([]hcl.AttributeSchema{}, limitAttrs...),
		hcl.AttributeSchema{Name: "store"},
		hcl.AttributeSchema{Name: "redis_url"},
		hcl.AttributeSchema{Name: "prefix"},
	)}
	// toolSchema is the schema of a tool's block, which names the store
	// attributes only to say where they belong.
	toolSchema = serverSchema
)

// Decode reads the top-level rate_limit block.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Config, hcl.Diagnostics) {
	content, diags := block.Body.Content(serverSchema)
	cfg := &Config{Store: "memory", Prefix: "mcpdecl"}
	if diags.HasErrors() {
		return nil, diags
	}
	cfg.Default, diags = decodeLimit(content, ctx, diags)
	str := func(name string, dst *string) *hcl.Attribute {
		a, ok := content.Attributes[name]
		if !ok {
			return nil
		}
		s, more := ctx.String(a.Expr)
		diags = append(diags, more...)
		*dst = s
		return a
	}
	storeAttr := str("store", &cfg.Store)
	urlAttr := str("redis_url", &cfg.RedisURL)
	prefixAttr := str("prefix", &cfg.Prefix)
	if diags.HasErrors() {
		return nil, diags
	}
	ctx.Redactor.Add(cfg.RedisURL)
	switch cfg.Store {
	case "memory":
		if urlAttr != nil && cfg.RedisURL != "" {
			diags = append(diags, errorf(urlAttr.NameRange, "Unexpected redis_url", `redis_url is where a Redis store is; add store = "redis", or remove redis_url.`))
		}
	case "redis":
		if urlAttr == nil || cfg.RedisURL == "" {
			rng := block.DefRange
			if urlAttr != nil {
				rng = urlAttr.Expr.Range()
			}
			diags = append(diags, errorf(rng, "Missing redis_url", `A Redis store needs redis_url = "redis://host:6379", such as env("REDIS_URL").`))
		} else if _, err := NewRedis(cfg.RedisURL, cfg.Prefix); err != nil {
			diags = append(diags, errorf(urlAttr.Expr.Range(), "Invalid redis_url", "The redis_url is not a Redis URL: use redis://[:password@]host:port[/db], or rediss:// for TLS."))
		}
	default:
		diags = append(diags, errorf(storeAttr.Expr.Range(), "Invalid store", `store is where the buckets live: "memory" (this process) or "redis" (shared by every replica), not %q.`, cfg.Store))
	}
	if prefixAttr != nil && cfg.Prefix == "" {
		diags = append(diags, errorf(prefixAttr.Expr.Range(), "Invalid prefix", "prefix starts every Redis key of the limits; it must not be empty."))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return cfg, diags
}

// DecodeLimit reads the rate_limit block of a tool.
func DecodeLimit(block *hcl.Block, ctx *engine.DecodeContext) (Limit, hcl.Diagnostics) {
	content, diags := block.Body.Content(toolSchema)
	if diags.HasErrors() {
		return Limit{}, diags
	}
	for _, name := range []string{"store", "redis_url", "prefix"} {
		if a, ok := content.Attributes[name]; ok {
			diags = append(diags, errorf(a.NameRange, "Unexpected "+name, "Where the buckets live is set once for the server: move %s to the top-level rate_limit block.", name))
		}
	}
	return decodeLimit(content, ctx, diags)
}

// decodeLimit reads requests, per and burst.
func decodeLimit(content *hcl.BodyContent, ctx *engine.DecodeContext, diags hcl.Diagnostics) (Limit, hcl.Diagnostics) {
	var l Limit
	if a, ok := content.Attributes["requests"]; ok {
		n, more := ctx.Int(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && (n < 1 || n > 1e9) {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid requests", "requests is how many calls are allowed per `per`: a whole number from 1."))
		}
		l.Requests = int(n)
	}
	if a, ok := content.Attributes["per"]; ok {
		// Duration refuses durations that are not positive.
		d, more := ctx.Duration(a.Expr)
		diags = append(diags, more...)
		l.Per = d
	}
	l.Burst = l.Requests
	if a, ok := content.Attributes["burst"]; ok {
		n, more := ctx.Int(a.Expr)
		diags = append(diags, more...)
		if !more.HasErrors() && (n < 1 || n > 1e9) {
			diags = append(diags, errorf(a.Expr.Range(), "Invalid burst", "burst is how many calls are allowed at once: a whole number from 1."))
		}
		l.Burst = int(n)
	}
	if diags.HasErrors() {
		return Limit{}, diags
	}
	return l, diags
}

// Open returns the store c describes.
func (c *Config) Open() (Store, error) {
	if c.Store == "redis" {
		return NewRedis(c.RedisURL, c.Prefix)
	}
	return NewMemory(), nil
}

func errorf(rng hcl.Range, summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng.Ptr()}
}
