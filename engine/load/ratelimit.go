package load

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
)

// rateLimits is what the tools need to build their rate limiters; the tool
// workers share it.
type rateLimits struct {
	sharedStore[ratelimit.Store]                 // the block's, or one in memory made on first use
	def                          ratelimit.Limit // the server's default, zero for none
}

// rateLimitBlock decodes the top-level rate_limit block, if any, and opens
// its store.
func (l *loader) rateLimitBlock() {
	l.limits = &rateLimits{}
	b := l.single("rate_limit", "The server's rate limit is already declared")
	if b == nil {
		return
	}
	cfg, diags := ratelimit.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	store, err := cfg.Open()
	if err != nil {
		l.error(b.DefRange, "Cannot open the rate limit store", "%s.", l.redactor.Redact(err.Error()))
		return
	}
	l.decoded = append(l.decoded, store)
	l.limits.open(store)
	l.limits.def = cfg.Default
}

// rateLimiter builds the rate limiter of a tool from its rate_limit block,
// if any, else the server's default; nil when neither sets a limit.
func (l *loader) rateLimiter(ctx *engine.DecodeContext, blocks hcl.Blocks) engine.RateLimiter {
	limit := l.limits.def
	for _, b := range blocks { // at most one, by the tool's spec
		own, diags := ratelimit.DecodeLimit(b, ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		limit = own
	}
	if limit.IsZero() {
		return nil
	}
	return ratelimit.Bind(l.limits.get(ratelimit.NewMemory), limit)
}
