package graphqlaction

import (
	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Adapter provides the graphql action block to the engine. Its actions send
// their requests through an http_api, which the HTTP adapter declares: a
// registry with this adapter needs that one too.
type Adapter struct {
	schemas *schemaCache
}

var (
	_ engine.Adapter = (*Adapter)(nil)
	_ spec.Declarer  = (*Adapter)(nil)
)

// New returns the GraphQL adapter.
func New() *Adapter { return &Adapter{schemas: newSchemaCache()} }

// Kind is the name of the action block, "graphql".
func (*Adapter) Kind() string { return "graphql" }

// Result declares what a call exposes to the programs that run after it:
// data (typed from the query's selection when the block gives a schema),
// errors, status and headers.
func (*Adapter) Result() mapping.Env {
	return mapping.Env{
		"data":    types.Any,
		"errors":  errorsType,
		"status":  types.Int,
		"headers": types.Map{types.Extra: types.String},
	}
}

// errorsType is the type of a response's errors: a list of objects with a
// message, and the path and extensions the server may add.
var errorsType = types.Array(types.Map{
	"message":    types.String,
	"path":       types.Array(types.Any),
	"locations":  types.Array(types.Any),
	"extensions": types.Any,
	types.Extra:  types.Any,
})

// Specs declares the graphql block.
func (*Adapter) Specs() []*spec.Block { return []*spec.Block{Spec} }

// DecodeAction decodes a graphql block into an action that sends one
// operation per call.
func (ad *Adapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	a, diags := decode(ctx, block, ad.schemas)
	if a == nil || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}
