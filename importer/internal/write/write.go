package write

import (
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Arg is one argument of a tool, as an arg block declares it.
type Arg struct {
	Name, Description string
	// Type is an HCL type expression, such as list(string); "" with
	// Schema, and string is not written (it is the default).
	Type string
	// Schema is the argument's JSON Schema, where Type cannot say it.
	Schema any
	// Optional is written when there is no default.
	Optional bool
	// Default is written when HasDefault is set: it may be null.
	Default    any
	HasDefault bool
	// Enum and the bounds below, when set, are the JSON Schema
	// constraints of a scalar or a list.
	Enum                 []any
	Minimum, Maximum     any
	MinLength, MaxLength any
	MinItems, MaxItems   any
	Pattern, Format      string
}

// Write writes a's arg block in the tool block w, its values (the
// schema, the default, the enum and the bounds) written by value.
func (a *Arg) Write(w *spec.Writer, value func(any) hclwrite.Tokens) {
	ab := w.Block("arg", a.Name)
	if a.Type != "" && a.Type != "string" {
		ab.Raw("type", spec.TypeTokens(a.Type))
	}
	if a.Description != "" {
		ab.Value("description", cty.StringVal(a.Description))
	}
	if a.Schema != nil {
		ab.Raw("schema", value(a.Schema))
	}
	switch {
	case a.HasDefault:
		ab.Raw("default", value(a.Default))
	case a.Optional:
		ab.Value("optional", cty.True)
	}
	if len(a.Enum) > 0 {
		ab.Raw("enum", value(a.Enum))
	}
	for _, c := range []struct {
		name string
		v    any
	}{{"minimum", a.Minimum}, {"maximum", a.Maximum}, {"min_length", a.MinLength}, {"max_length", a.MaxLength},
		{"min_items", a.MinItems}, {"max_items", a.MaxItems}} {
		if c.v != nil {
			ab.Raw(c.name, value(c.v))
		}
	}
	if a.Pattern != "" {
		ab.Value("pattern", cty.StringVal(a.Pattern))
	}
	if a.Format != "" {
		ab.Value("format", cty.StringVal(a.Format))
	}
}

// Output is one output of a tool, as an output block declares it.
type Output struct {
	Name, Description string
	// Type is an HCL type expression, written where there is no Schema.
	Type     string
	Schema   any
	Optional bool
	// Program is the expr-lang program of its value.
	Program string
}

// Write writes o's output block in the tool block w, its schema written
// by value.
func (o *Output) Write(w *spec.Writer, value func(any) hclwrite.Tokens) {
	ob := w.Block("output", o.Name)
	switch {
	case o.Schema != nil:
		ob.Raw("schema", value(o.Schema))
	case o.Type != "":
		ob.Raw("type", spec.TypeTokens(o.Type))
	}
	if o.Description != "" {
		ob.Value("description", cty.StringVal(o.Description))
	}
	if o.Optional {
		ob.Value("optional", cty.True)
	}
	ob.Raw("value", spec.ExprTokens(o.Program))
}
