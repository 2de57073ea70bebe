package load

import (
	"slices"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Language is the blocks of the language declared by a spec, in the order
// of the reference (docs/language.md): the engine's, as the top of a file
// (rootSpec) nests them, depth first, then those of the adapters of r that
// declare theirs ([spec.Declarer]), in registration order.
func Language(r *engine.Registry) []*spec.Block {
	var blocks []*spec.Block
	seen := map[*spec.Block]bool{}
	var walk func(b *spec.Block)
	walk = func(b *spec.Block) {
		if seen[b] {
			return
		}
		seen[b] = true
		blocks = append(blocks, b)
		for _, n := range b.Blocks {
			walk(n.Block)
		}
	}
	for _, n := range rootSpec.Blocks {
		walk(n.Block)
	}
	for _, kind := range r.ActionKinds() {
		a, _ := r.Action(kind)
		if d, ok := a.(spec.Declarer); ok {
			blocks = append(blocks, d.Specs()...)
		}
	}
	return blocks
}

// FileSpec is the spec of a configuration file whose adapters are r's,
// every block in full: the engine's, the connection blocks the adapters
// declare (http_api, database) at the top, and their action blocks (http,
// exec, sql…) wherever an action runs — a tool, a step, a resource, a
// completion. Writers of configurations name their blocks and attributes
// through it ([spec.NewWriter]): the importers, checked by tests.
func FileSpec(r *engine.Registry) *spec.Block {
	var actions []spec.Nested
	top := slices.Clone(rootSpec.Blocks)
	for _, kind := range r.ActionKinds() {
		a, _ := r.Action(kind)
		d, ok := a.(spec.Declarer)
		if !ok {
			continue
		}
		upstream := ""
		if ua, ok := a.(engine.UpstreamAdapter); ok {
			upstream = ua.UpstreamKind()
		}
		for _, b := range d.Specs() {
			switch {
			case b.Name == kind && b.In == "tool":
				actions = append(actions, spec.Nested{Block: b})
			case b.Name == upstream && b.In == "":
				top = append(top, spec.Nested{Block: b})
			}
		}
	}
	// The blocks that run an action, and those that nest them, are
	// copied with the action blocks added; the others are shared.
	runs := map[*spec.Block]bool{toolSpec: true, stepSpec: true, resourceSpec: true, resourceTemplateSpec: true, completeSpec: true}
	done := map[*spec.Block]*spec.Block{}
	var full func(b *spec.Block) *spec.Block
	full = func(b *spec.Block) *spec.Block {
		if f, ok := done[b]; ok {
			return f
		}
		blocks := make([]spec.Nested, len(b.Blocks))
		changed := runs[b]
		for i, n := range b.Blocks {
			blocks[i] = n
			blocks[i].Block = full(n.Block)
			changed = changed || blocks[i].Block != n.Block
		}
		f := b
		if changed {
			if runs[b] {
				blocks = append(blocks, actions...)
			}
			f = &spec.Block{Name: b.Name, In: b.In, Labels: b.Labels, Summary: b.Summary, Doc: b.Doc, Example: b.Example,
				Attrs: b.Attrs, Blocks: blocks, Open: b.Open}
		}
		done[b] = f
		return f
	}
	return full(&spec.Block{Name: rootSpec.Name, Blocks: top})
}
