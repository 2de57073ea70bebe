package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Language is the blocks of the language declared by a spec, in the order
// of the reference (docs/language.md): the engine's, then those of the
// adapters of r that declare theirs ([spec.Declarer]), in registration
// order.
func Language(r *engine.Registry) []*spec.Block {
	blocks := []*spec.Block{serverSpec, variableSpec, ratelimit.ConfigSpec, cache.ConfigSpec, auditSpec, cache.PolicySpec, ratelimit.LimitSpec, confirmSpec, confirmFieldSpec}
	for _, kind := range r.ActionKinds() {
		a, _ := r.Action(kind)
		if d, ok := a.(spec.Declarer); ok {
			blocks = append(blocks, d.Specs()...)
		}
	}
	return blocks
}

// NotYetSpecified names the blocks still decoded by hand, without a spec:
// the README describes them.
var NotYetSpecified = []string{"locals", "http_api", "database", "tool", "arg", "output", "content", "resource", "resource_template", "prompt", "toolset", "auth", "tracing"}
