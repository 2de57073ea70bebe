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
	if b := l.single("rate_limit", "The server's rate limit is already declared"); b != nil {
		if cfg, ok := openBlock(l, &l.limits.sharedStore, b, "rate limit", ratelimit.Decode); ok {
			l.limits.def = cfg.Default
		}
	}
}

// rateLimiter builds the rate limit of a tool from its rate_limit block,
// if any, else the server's default; nil when neither sets a limit.
func (l *loader) rateLimiter(ctx *engine.DecodeContext, blocks hcl.Blocks) *ratelimit.Limiter {
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
