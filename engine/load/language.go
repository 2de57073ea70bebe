package load

import (
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/requeststate"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Language is the blocks of the language declared by a spec, in the order
// of the reference (docs/language.md).
func Language() []*spec.Block {
	return []*spec.Block{serverSpec, variableSpec, ratelimit.ConfigSpec, cache.ConfigSpec, auditSpec, cache.PolicySpec, ratelimit.LimitSpec, confirmSpec, confirmFieldSpec, requeststate.ConfigSpec}
}

// NotYetSpecified names the blocks still decoded by hand, without a spec:
// the README describes them.
var NotYetSpecified = []string{"locals", "http_api", "database", "tool", "arg", "output", "content", "resource", "resource_template", "prompt", "toolset", "auth", "tracing"}
