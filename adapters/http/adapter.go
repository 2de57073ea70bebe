package httpaction

import (
	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Adapter provides the http action block and the http_api top-level block to
// the engine. It holds no state: every http_api it decodes owns its client,
// and so does every http block that gives a url without an api.
type Adapter struct{}

var (
	_ engine.UpstreamAdapter = (*Adapter)(nil)
	_ spec.Declarer          = (*Adapter)(nil)
)

// New returns the HTTP adapter.
func New() *Adapter { return &Adapter{} }

// Kind is the name of the action block, "http".
func (*Adapter) Kind() string { return "http" }

// UpstreamKind is the name of the top-level block, "http_api".
func (*Adapter) UpstreamKind() string { return "http_api" }

// Result declares what a call exposes to the programs that run after it:
// status, headers (by lower-case name, first value), body and content_type.
func (*Adapter) Result() mapping.Env {
	return mapping.Env{
		"status":       types.Int,
		"headers":      types.Map{types.Extra: types.String},
		"body":         types.Any,
		"content_type": types.String,
	}
}

// DecodeUpstream decodes an http_api block into an [*API].
func (*Adapter) DecodeUpstream(ctx *engine.DecodeContext, block *hcl.Block) (any, hcl.Diagnostics) {
	api, diags := decodeAPI(ctx, block)
	if api == nil || diags.HasErrors() {
		return nil, diags
	}
	return api, diags
}

// DecodeAction decodes an http block into an action that sends one request
// per call.
func (*Adapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	a, diags := decodeAction(ctx, block)
	if a == nil || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}

// Specs declares the http_api block, the http action block and the blocks
// nested in them.
func (*Adapter) Specs() []*spec.Block {
	return []*spec.Block{APISpec, AuthSpec, basicSpec, apiKeySpec, oauth2Spec, tokenExchangeSpec, callerTokenSpec,
		RetrySpec, TLSSpec, BreakerSpec, ActionSpec, PaginateSpec}
}
