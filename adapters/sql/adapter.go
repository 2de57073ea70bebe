package sqlaction

import (
	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Adapter provides the sql action block and the database top-level block
// to the engine. It holds no state: every database it decodes owns its
// pool.
type Adapter struct{}

var (
	_ engine.UpstreamAdapter = (*Adapter)(nil)
	_ spec.Declarer          = (*Adapter)(nil)
)

// New returns the SQL adapter.
func New() *Adapter { return &Adapter{} }

// Kind is the name of the action block, "sql".
func (*Adapter) Kind() string { return "sql" }

// UpstreamKind is the name of the top-level block, "database".
func (*Adapter) UpstreamKind() string { return "database" }

// Result declares what a call exposes to the programs that run after it:
// rows (a list of objects keyed by column name), columns (a list of
// {name, type}), rows_affected and truncated.
func (*Adapter) Result() mapping.Env {
	return mapping.Env{
		"rows":          mapping.Array(types.Map{types.Extra: types.Any}),
		"columns":       mapping.Array(types.Map{"name": types.String, "type": types.String}),
		"rows_affected": types.Int,
		"truncated":     types.Bool,
	}
}

// DecodeUpstream decodes a database block into a [*Database] and opens its
// pool; no connection is made until one is needed.
func (*Adapter) DecodeUpstream(ctx *engine.DecodeContext, block *hcl.Block) (any, hcl.Diagnostics) {
	d, diags := decodeDatabase(ctx, block)
	if d == nil || diags.HasErrors() {
		return nil, diags
	}
	return d, diags
}

// DecodeAction decodes an sql block into an action that runs one statement
// per call.
func (*Adapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	a, diags := decodeAction(ctx, block)
	if a == nil || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}

// Specs declares the sql action block and the database block.
func (*Adapter) Specs() []*spec.Block { return []*spec.Block{DatabaseSpec, ActionSpec} }
