// Package sampleaction provides the sample action: a tool that asks the
// client's model (MCP sampling). The messages are built per call by expr()
// programs from the arguments; the answer's text, model and stop reason
// are what the tool's programs read.
package sampleaction

import (
	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Adapter provides the sample action block to the engine. It holds no
// state.
type Adapter struct{}

var _ engine.Adapter = (*Adapter)(nil)

// New returns the sample adapter.
func New() *Adapter { return &Adapter{} }

// Kind is the name of the action block, "sample".
func (*Adapter) Kind() string { return "sample" }

// Result declares what a run exposes to the programs that run after it.
// text is declared as any: with parse = "json" it is the decoded answer
// (the action's ResultTypes say string for parse = "text").
func (*Adapter) Result() mapping.Env {
	return mapping.Env{
		"text":        types.Any,
		"model":       types.String,
		"stop_reason": types.String,
		"truncated":   types.Bool,
	}
}

// Specs declares the sample block.
func (*Adapter) Specs() []*spec.Block { return []*spec.Block{ActionSpec} }

// DecodeAction decodes a sample block.
func (*Adapter) DecodeAction(ctx *engine.DecodeContext, block *hcl.Block) (engine.Action, hcl.Diagnostics) {
	a, diags := decode(ctx, block)
	if a == nil || diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}
