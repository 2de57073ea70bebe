package load

import (
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// localsSpec is the locals block. Its attributes are the names it
// defines, any names: they are read as they are written (loader.locals),
// not through the spec.
var localsSpec = &spec.Block{
	Name:    "locals",
	Summary: "Load-time named values, read as local.NAME.",
	Doc: "Each attribute defines one value, of any name, evaluated once when the files load. " +
		"Locals may refer to variables and to each other, in any order, across files; a name is declared once. " +
		"A value derived from a sensitive variable stays sensitive.",
	Example: `locals {
  base_url = "https://api.example.com/v1"
  users    = "${local.base_url}/users"
}`,
	Open: true,
}

// locals evaluates the locals blocks, in the order their references need,
// and makes the values available as local.<name>.
func (l *loader) locals() {
	pending := map[string]*hcl.Attribute{}
	for _, b := range l.blocks["locals"] {
		attrs, diags := b.Body.JustAttributes()
		l.diags = append(l.diags, diags...)
		for name, attr := range attrs {
			if first, dup := pending[name]; dup {
				l.error(attr.NameRange, "Duplicate local value", "A local value named %q is already declared at %s.", name, first.NameRange)
				continue
			}
			pending[name] = attr
		}
	}
	values := map[string]cty.Value{}
	// The local object is made anew only for an expression that reads
	// locals, after one was added: making it is as long as the locals
	// already done, and an imported API has hundreds of them.
	stale := true
	for len(pending) > 0 {
		progress := false
		for _, name := range slices.Sorted(maps.Keys(pending)) {
			attr := pending[name]
			readsLocal, waits := readsLocals(attr.Expr, pending)
			if waits {
				continue
			}
			if readsLocal && stale {
				l.root.Variables["local"] = cty.ObjectVal(values)
				stale = false
			}
			v, diags := attr.Expr.Value(l.evalContext(attr.Range.Filename))
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				v = cty.DynamicVal // already reported
			}
			values[name] = v
			stale = true
			delete(pending, name)
			progress = true
		}
		if !progress {
			for _, name := range slices.Sorted(maps.Keys(pending)) {
				l.error(pending[name].NameRange, "Cycle in local values", "Local value %q depends on itself, through other local values. Break the cycle.", name)
				values[name] = cty.DynamicVal
			}
			break
		}
	}
	l.root.Variables["local"] = cty.ObjectVal(values)
}

// readsLocals reports whether expr reads local values, and whether one of
// them is still pending.
func readsLocals(expr hcl.Expression, pending map[string]*hcl.Attribute) (reads, waits bool) {
	for _, t := range expr.Variables() {
		if t.RootName() != "local" {
			continue
		}
		reads = true
		if len(t) < 2 {
			continue
		}
		if a, ok := t[1].(hcl.TraverseAttr); ok {
			if _, waiting := pending[a.Name]; waiting {
				return true, true
			}
		}
	}
	return reads, false
}
