package load

import (
	"github.com/mcpdecl/mcpdecl/engine/auth"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Language is the blocks of the language declared by a spec, in the order
// of the reference (docs/language.md).
func Language() []*spec.Block {
	return []*spec.Block{serverSpec, variableSpec, localsSpec, toolSpec, annotationsSpec, argSpec, completeSpec, outputSpec, contentSpec, contentAnnotationsSpec, logSpec, resourceSpec, resourceTemplateSpec, promptSpec, promptArgSpec, messageSpec, toolsetSpec, ratelimit.ConfigSpec, cache.ConfigSpec, auditSpec, tracingSpec, auth.Spec, auth.TokenSpec, auth.OAuthSpec, cache.PolicySpec, ratelimit.LimitSpec}
}

// NotYetSpecified names the blocks still decoded by hand, without a spec:
// the README describes them.
var NotYetSpecified = []string{"http_api", "database"}
