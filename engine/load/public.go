package load

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// public checks an attribute whose value every client sees (in
// initialize, tools/list, mcpdecl list): it must not hold anything derived
// from a sensitive variable. Values derived from one carry
// [engine.SensitiveMark], through templates, functions and local values
// alike; such a value is an error at the reference that brings the secret
// in. what names the attribute for the message, as in "the description of
// a tool". It reports whether the attribute is free of secrets; the
// attribute's other errors are left to its decoding.
func (l *loader) public(ctx *engine.DecodeContext, e hcl.Expression, what string) bool {
	if !l.sensitive {
		return true // only a sensitive variable's value carries the mark
	}
	refs := e.Variables()
	if len(refs) == 0 {
		return true // only a reference can bring a mark in
	}
	v, diags := e.Value(ctx.EvalContext)
	if diags.HasErrors() {
		return true
	}
	return l.publicValue(ctx, e, v, what)
}

// publicValue is [loader.public] for an expression already evaluated to v,
// so that a large value (a schema) is not evaluated twice.
func (l *loader) publicValue(ctx *engine.DecodeContext, e hcl.Expression, v cty.Value, what string) bool {
	if !v.ContainsMarked() {
		return true
	}
	refs := e.Variables()
	subject, name := e.Range(), "a sensitive variable"
	for _, tr := range refs {
		tv, diags := tr.TraverseAbs(ctx.EvalContext)
		if !diags.HasErrors() && tv.ContainsMarked() {
			subject, name = tr.SourceRange(), traversalText(tr)+", which is sensitive"
			break
		}
	}
	l.error(subject, "Sensitive value shown to clients",
		"%s is shown to every client that connects, so it cannot hold a value derived from %s. "+
			"Write it without the secret; secrets belong where clients never see them, such as auth, headers, dsn or env.",
		text.UpperFirst(what), name)
	return false
}

// traversalText writes a reference such as var.api_key or local.x.
func traversalText(tr hcl.Traversal) string {
	var b strings.Builder
	b.WriteString(tr.RootName())
	for _, step := range tr[1:] {
		if a, ok := step.(hcl.TraverseAttr); ok {
			b.WriteString("." + a.Name)
		} else {
			break
		}
	}
	return b.String()
}
