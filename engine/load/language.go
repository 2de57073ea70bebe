package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/auth"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/callspan"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/requeststate"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/tasks"
)

// Language is the blocks of the language declared by a spec, in the order
// of the reference (docs/language.md): the engine's, then those of the
// adapters of r that declare theirs ([spec.Declarer]), in registration
// order.
func Language(r *engine.Registry) []*spec.Block {
	blocks := []*spec.Block{serverSpec, variableSpec, localsSpec, toolSpec, annotationsSpec, argSpec, completeSpec, outputSpec, contentSpec, contentAnnotationsSpec, logSpec, resourceSpec, resourceTemplateSpec, promptSpec, promptArgSpec, messageSpec, toolsetSpec, ratelimit.ConfigSpec, cache.ConfigSpec, audit.Spec, callspan.Spec, auth.Spec, auth.TokenSpec, auth.OAuthSpec, cache.PolicySpec, ratelimit.LimitSpec, confirmSpec, confirmFieldSpec, requeststate.ConfigSpec, taskSpec, tasks.ConfigSpec}
	for _, kind := range r.ActionKinds() {
		a, _ := r.Action(kind)
		if d, ok := a.(spec.Declarer); ok {
			blocks = append(blocks, d.Specs()...)
		}
	}
	return blocks
}
