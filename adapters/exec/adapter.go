package execaction

import (
	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Adapter provides the exec action block to the engine. It holds no state.
type Adapter struct{}

var (
	_ engine.Adapter = (*Adapter)(nil)
	_ spec.Declarer  = (*Adapter)(nil)
)

// New returns the exec adapter.
func New() *Adapter { return &Adapter{} }

// Kind is the name of the action block, "exec".
func (*Adapter) Kind() string { return "exec" }

// Result declares what a run exposes to the programs that run after it:
// exit_code, stdout, stderr and truncated. stdout is declared as any because
// its type depends on the block's parse mode (a string, a list of strings or
// decoded JSON) and the declaration is the adapter's, not the block's.
func (*Adapter) Result() mapping.Env {
	return mapping.Env{
		"exit_code": types.Int,
		"stdout":    types.Any,
		"stderr":    types.String,
		"truncated": types.Bool,
	}
}

// DecodeAction decodes an exec block into an action that runs its program
// once per call.
func (*Adapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	a, diags := decodeAction(ctx, block)
	if a == nil || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}

// Specs declares the exec action block.
func (*Adapter) Specs() []*spec.Block { return []*spec.Block{ActionSpec} }
