package load

import (
	"reflect"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// outputSpec is the output block of a tool.
var outputSpec = &spec.Block{
	Name:    "output",
	In:      "tool",
	Labels:  []string{"name"},
	Summary: "One field of the structured result: a property of the tool's outputSchema and of its structuredContent.",
	Doc: "The server validates each result against the output schema before returning it; " +
		"a mismatch is a tool error that names the field, never a silent wrong answer.",
	Example: `output "greeting" {
  type        = string
  description = "The greeting"
  value       = expr("'Hello, ' + string(len(args))")
}`,
	Attrs: []*spec.Attr{
		spec.Expr("value", "is the field's value, usually an expr(…) over args and the action's variables").Mandatory().Unevaluated().Shown(),
		spec.TypeConstraint("type", "is the field's type, as an arg's").DefaultIs("any").Unevaluated(),
		spec.Any("schema", `is the field's whole JSON Schema, as jsonencode({…}) or file("x.json"), instead of type (its own description wins)`).Unevaluated(),
		spec.String("description", "says what the field holds").Shown(),
		spec.Bool("optional", "lets a null value leave the field out of the result").WithDefault(false),
	},
}

// outputs decodes the output blocks.
func (l *loader) outputs(ctx *engine.DecodeContext, blocks hcl.Blocks) []engine.Output {
	var outs []engine.Output
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if first, dup := seen[name]; dup {
			l.error(b.LabelRanges[0], "Duplicate output", "An output named %q is already declared at %s.", name, first.DefRange)
			continue
		}
		seen[name] = b
		v, diags := outputSpec.Decode(b.Body, ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		l.shown(ctx, outputSpec, v, "the %s of an output", false)
		o := engine.Output{Output: schema.Output{Name: name, Type: &schema.Type{Kind: schema.Any}, Description: v.String("description"), Optional: v.Bool("optional")}}
		if a := v.Attr("type"); a != nil {
			t, diags := schema.ParseType(a.Expr)
			l.diags = append(l.diags, diags...)
			if t != nil {
				o.Type = t
			}
		}
		if a := v.Attr("schema"); a != nil {
			if v.Written("type") {
				l.error(a.Expr.Range(), "Both schema and type", "An output with a schema takes its type from the schema; remove type.")
			}
			o.Schema = l.jsonObject(ctx, a.Expr, "schema", "the schema of an output")
		}
		a := v.Attr("value")
		if !l.public(ctx, a.Expr, "the value of an output") {
			continue
		}
		val, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if rt := mapping.ResultType(val); rt != nil && !fits(rt, o.Type) {
			l.error(a.Expr.Range(), "Wrong type for output",
				"Output %q is declared as %s, but its value is always %s. Change the type or the value.", name, o.Type, goTypeName(rt))
			continue
		}
		o.Value = val
		outs = append(outs, o)
	}
	return outs
}

// fits reports whether values of Go type rt can be of the declared type.
// It only rules out what can never match.
func fits(rt reflect.Type, t *schema.Type) bool {
	k := rt.Kind()
	switch t.Kind {
	case schema.String:
		return k == reflect.String
	case schema.Bool:
		return k == reflect.Bool
	case schema.Number:
		return k >= reflect.Int && k <= reflect.Float64
	case schema.Integer:
		return k >= reflect.Int && k <= reflect.Float64
	case schema.List:
		return k == reflect.Slice || k == reflect.Array
	case schema.Map, schema.Object:
		return k == reflect.Map || k == reflect.Struct
	}
	return true
}
