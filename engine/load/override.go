package load

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/zclconf/go-cty/cty"
)

// Override changes attributes of one top-level block of an adapter, such as
// an http_api or a database, before the adapter decodes it: it is how a
// test's mock takes the place of an upstream while the adapter's own code
// still runs.
type Override struct {
	// Kind and Name say which block: "http_api" and "weather" for
	// http_api "weather".
	Kind, Name string
	// Set gives attributes their value, whether the block writes them or
	// not.
	Set map[string]cty.Value
	// Rewrite replaces the value of attributes the block writes: each
	// function is given the attribute's value and returns the one to use.
	Rewrite map[string]func(cty.Value) (cty.Value, error)
	// Range is where the override is declared, for the error when the
	// configuration declares no such block.
	Range hcl.Range
}

// Value is a variable's value given with a place in a file, as a test's
// variables block gives it.
type Value struct {
	Value cty.Value
	Range hcl.Range
}

// override returns the block to decode in place of b: b itself, or b with
// the attributes its override sets.
func (l *loader) override(b *hcl.Block) *hcl.Block {
	for i := range l.opts.Overrides {
		o := &l.opts.Overrides[i]
		if o.Kind != b.Type || o.Name != b.Labels[0] {
			continue
		}
		l.overridden[i] = true
		nb := *b
		nb.Body = &overrideBody{Body: b.Body, o: o, rng: b.DefRange}
		return &nb
	}
	return b
}

// checkOverrides reports the overrides whose block the configuration does
// not declare.
func (l *loader) checkOverrides() {
	for i, o := range l.opts.Overrides {
		if l.overridden[i] {
			continue
		}
		detail := fmt.Sprintf("The configuration declares no %s named %q", o.Kind, o.Name)
		if names := l.names(o.Kind); len(names) > 0 {
			detail += "; it declares " + strings.Join(text.Quoted(names), ", ") + "."
		} else {
			detail += ", nor any other " + o.Kind + "."
		}
		l.error(o.Range, "Mock of an undeclared "+o.Kind, "%s Name one of its blocks, or remove the mock.", detail)
	}
}

// overrideBody is a block's body with an override's attributes.
type overrideBody struct {
	hcl.Body
	o   *Override
	rng hcl.Range
}

// Content implements hcl.Body.
func (b *overrideBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, diags := b.Body.Content(b.schema(schema))
	b.apply(c, schema)
	return c, diags
}

// PartialContent implements hcl.Body.
func (b *overrideBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, rest, diags := b.Body.PartialContent(b.schema(schema))
	b.apply(c, schema)
	return c, rest, diags
}

// schema is s with the attributes the override sets no longer required
// of the block itself.
func (b *overrideBody) schema(s *hcl.BodySchema) *hcl.BodySchema {
	out := *s
	out.Attributes = slices.Clone(s.Attributes)
	for i, a := range out.Attributes {
		if _, set := b.o.Set[a.Name]; set {
			out.Attributes[i].Required = false
		}
	}
	return &out
}

// apply puts the override's attributes into c, those the schema has.
func (b *overrideBody) apply(c *hcl.BodyContent, schema *hcl.BodySchema) {
	if c == nil {
		return
	}
	if c.Attributes == nil {
		c.Attributes = hcl.Attributes{}
	}
	for _, a := range schema.Attributes {
		if v, ok := b.o.Set[a.Name]; ok {
			rng := b.rng
			if orig, ok := c.Attributes[a.Name]; ok {
				rng = orig.Expr.Range()
			}
			c.Attributes[a.Name] = &hcl.Attribute{Name: a.Name, Expr: hcl.StaticExpr(v, rng), Range: rng, NameRange: rng}
			continue
		}
		f, ok := b.o.Rewrite[a.Name]
		orig, present := c.Attributes[a.Name]
		if !ok || !present {
			continue
		}
		c.Attributes[a.Name] = &hcl.Attribute{
			Name:      a.Name,
			Expr:      &rewrittenExpr{Expression: orig.Expr, f: f, what: b.o.Kind + " " + a.Name},
			Range:     orig.Range,
			NameRange: orig.NameRange,
		}
	}
}

// rewrittenExpr is an expression whose value an override rewrites.
type rewrittenExpr struct {
	hcl.Expression
	f    func(cty.Value) (cty.Value, error)
	what string
}

// Value implements hcl.Expression.
func (e *rewrittenExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := e.Expression.Value(ctx)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return v, diags
	}
	inner, marks := v.Unmark()
	out, err := e.f(inner)
	if err != nil {
		return cty.DynamicVal, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cannot mock this " + strings.SplitN(e.what, " ", 2)[0],
			Detail:   fmt.Sprintf("The %s cannot be mocked: %s.", e.what, err),
			Subject:  e.Range().Ptr(),
		})
	}
	return out.WithMarks(marks), diags
}

// checkValues reports the values given for variables that no variable
// block declares.
func (l *loader) checkValues() {
	for _, name := range slices.Sorted(maps.Keys(l.opts.Values)) {
		if l.declared(name) {
			continue
		}
		detail := fmt.Sprintf("A value is given for variable %q, but the configuration declares no such variable.", name)
		if vars := l.variableNames(); len(vars) > 0 {
			detail += " It declares " + strings.Join(text.Quoted(vars), ", ") + "."
		}
		l.error(l.opts.Values[name].Range, "Unknown variable", "%s", detail)
	}
}

// variableNames lists the names of the variable blocks, sorted.
func (l *loader) variableNames() []string {
	var names []string
	for _, b := range l.blocks["variable"] {
		names = append(names, b.Labels[0])
	}
	slices.Sort(names)
	return slices.Compact(names)
}
