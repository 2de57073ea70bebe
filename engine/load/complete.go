package load

import (
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// completeSpec is the complete block of an argument of a
// resource_template or a prompt.
var completeSpec = &spec.Block{
	Name:    "complete",
	In:      "arg",
	Summary: "The completions a client is offered for the argument (completion/complete).",
	Doc: "An optional action block (http, exec, sql) whose programs read args.value, the text typed so far; " +
		"values then also reads the action's result. Clients do not complete a tool's own arguments: use enum there.",
	Example: `complete {
  values = expr("filter(['metric', 'imperial'], hasPrefix(#, args.value))")
}`,
	Attrs: append([]*spec.Attr{
		spec.Expr("values", `yields the list of texts to offer, such as expr("map(rows, .name)")`).Mandatory().Unevaluated().Shown(),
	}, pick(toolAttrs, "timeout", "error_if", "error_message", "max_result_bytes")...),
}

// pick returns the attributes of attrs with those names.
func pick(attrs []*spec.Attr, names ...string) []*spec.Attr {
	var out []*spec.Attr
	for _, a := range attrs {
		if slices.Contains(names, a.Name) {
			out = append(out, a)
		}
	}
	return out
}

// completer decodes a complete block, the completions of an argument (name
// is prompt.arg or template.arg): an optional action block whose programs
// read args.value, the text typed so far, and values, a program that
// yields the list of values to offer; nil when it has errors.
func (l *loader) completer(name string, b *hcl.Block) *engine.Completer {
	if !toolName.MatchString(name) {
		name = "complete"
	}
	inner := *b
	inner.Labels, inner.LabelRanges = []string{name}, []hcl.Range{b.DefRange}
	listOfText := &schema.Type{Kind: schema.List, Elem: &schema.Type{Kind: schema.String}}
	before := len(l.diags)
	t, _ := l.toolFor(&inner, l.withActions(completeSpec), toolUse{
		args: []schema.Arg{{Name: engine.CompleterValue, Type: &schema.Type{Kind: schema.String}, Description: "The text typed so far."}},
		outputs: func(ctx *engine.DecodeContext, v *spec.Values) []engine.Output {
			values := v.Attr("values")
			if values == nil || !l.public(ctx, values.Expr, "the values list of a complete block") {
				return nil
			}
			val, diags := ctx.Value(values.Expr)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				return nil
			}
			if rt := mapping.ResultType(val); rt != nil && !fits(rt, listOfText) {
				l.error(values.Expr.Range(), "Wrong type for values", "values is the list of texts to offer, such as expr(\"map(rows, .name)\"), but this is always %s.", goTypeName(rt))
				return nil
			}
			return []engine.Output{{Output: schema.Output{Name: engine.CompleterOutput, Type: listOfText}, Value: val}}
		},
	})
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	return engine.NewCompleter(t)
}
