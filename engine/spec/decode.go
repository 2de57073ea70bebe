package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Values are what [Block.Decode] read of a body. An attribute that is
// absent, null, or has errors (already reported) reads as its default.
type Values struct {
	block  *Block
	slots  []slot        // by index in block.Attrs
	elems  [][]hcl.Range // a list's element ranges, by index
	blocks []hcl.Blocks  // by index in block.Blocks
}

// A slot is one attribute of [Values]: as written, and its value.
type slot struct {
	attr *hcl.Attribute // nil when absent
	val  any            // nil when absent, null or wrong
}

// Decode reads body through the block's spec, evaluating values with ctx,
// and returns what it read with every error it found.
func (b *Block) Decode(body hcl.Body, ctx *engine.DecodeContext) (*Values, hcl.Diagnostics) {
	b.prepare()
	v := &Values{block: b, slots: make([]slot, len(b.Attrs))}
	content, diags := body.Content(b.schema)
	// HCL reports unknown attributes in no fixed order: in the order of
	// the file, the same every run.
	slices.SortStableFunc(diags, func(x, y *hcl.Diagnostic) int {
		if x.Subject == nil || y.Subject == nil {
			return 0
		}
		return x.Subject.Start.Byte - y.Subject.Start.Byte
	})
	b.suggest(diags)
	if content == nil {
		return v, diags
	}
	for name, attr := range content.Attributes {
		i := b.index[name]
		if first := v.slots[i].attr; first != nil {
			// A name and a former name of one attribute.
			a, later := first, attr
			if later.NameRange.Start.Byte < a.NameRange.Start.Byte {
				a, later = later, a
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + b.Attrs[i].Name,
				Detail:  fmt.Sprintf("%s and %s are two names of one attribute, %s, already set at %s: remove one.", a.Name, later.Name, b.Attrs[i].Name, a.NameRange),
				Subject: later.NameRange.Ptr()})
			v.slots[i].attr = a
			continue
		}
		v.slots[i].attr = attr
	}
	for i, a := range b.Attrs {
		attr := v.slots[i].attr
		if attr == nil {
			if a.Required && len(a.Aliases) > 0 {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
					Detail:  fmt.Sprintf("The argument %q is required, but no definition was found.", a.Name),
					Subject: body.MissingItemRange().Ptr()})
			}
			continue
		}
		if attr.Name != a.Name {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Former name " + attr.Name,
				Detail:  fmt.Sprintf("%s is now called %s: rename it; the former name will stop working in a later release.", attr.Name, a.Name),
				Subject: attr.NameRange.Ptr()})
		}
		if a.Lazy {
			continue
		}
		var more hcl.Diagnostics
		v.slots[i].val, v.elems, more = decodeAttr(a, attr, ctx, v.elems, i)
		diags = append(diags, more...)
	}
	if len(b.Blocks) > 0 {
		v.blocks = b.group(content.Blocks)
		for j, n := range b.Blocks {
			got := v.blocks[j]
			if n.Max > 0 && len(got) > n.Max {
				for _, extra := range got[n.Max:] {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + n.Block.Name + " block",
						Detail:  fmt.Sprintf("%s block takes %s, already declared at %s; merge them.", text.UpperFirst(text.WithArticle(b.Name)), count(n.Max, n.Block.Name), got[0].DefRange),
						Subject: extra.DefRange.Ptr()})
				}
				v.blocks[j] = got[:n.Max]
			}
			if len(got) < n.Min {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing " + n.Block.Name + " block",
					Detail:  fmt.Sprintf("%s block needs %s: %s.", text.UpperFirst(text.WithArticle(b.Name)), count(n.Min, n.Block.Name), n.Block.Summary),
					Subject: body.MissingItemRange().Ptr()})
			}
		}
	}
	return v, diags
}

// group sorts blocks by type, in the order of b.Blocks, each type's in
// the order of the file, on one backing array.
func (b *Block) group(blocks hcl.Blocks) []hcl.Blocks {
	out := make([]hcl.Blocks, len(b.Blocks))
	kind := func(blk *hcl.Block) int {
		for j, n := range b.Blocks {
			if n.Block.Name == blk.Type {
				return j
			}
		}
		return -1 // never so: HCL read the body with b's schema
	}
	if len(blocks) == 0 {
		return out
	}
	var small [16]int // on the stack, for the usual few nested block types
	counts := small[:]
	if len(b.Blocks)+1 > len(small) {
		counts = make([]int, len(b.Blocks)+1)
	}
	for _, blk := range blocks {
		counts[kind(blk)+1]++
	}
	all := make(hcl.Blocks, len(blocks))
	for j := range out {
		out[j] = all[:0:counts[j+1]]
		all = all[counts[j+1]:]
	}
	for _, blk := range blocks {
		if j := kind(blk); j >= 0 {
			out[j] = append(out[j], blk)
		}
	}
	return out
}

// suggest adds "Did you mean …?" to the errors of unknown attributes and
// blocks that HCL made without one, with the names this block declares.
func (b *Block) suggest(diags hcl.Diagnostics) {
	for _, d := range diags {
		var name string
		var names []string
		switch d.Summary {
		case "Unsupported argument":
			_, _ = fmt.Sscanf(d.Detail, "An argument named %q", &name)
			for _, a := range b.Attrs {
				names = append(names, a.Name)
			}
		case "Unsupported block type":
			_, _ = fmt.Sscanf(d.Detail, "Blocks of type %q", &name)
			for _, n := range b.Blocks {
				names = append(names, n.Block.Name)
			}
		default:
			continue
		}
		if name == "" || strings.Contains(d.Detail, "Did you mean") {
			continue
		}
		if best := engine.Closest(name, names); best != "" {
			d.Detail += fmt.Sprintf(" Did you mean %q?", best)
		}
	}
}

// decodeAttr evaluates one attribute as its spec says, with its bounds.
func decodeAttr(a *Attr, attr *hcl.Attribute, ctx *engine.DecodeContext, elems [][]hcl.Range, i int) (any, [][]hcl.Range, hcl.Diagnostics) {
	e := attr.Expr
	switch a.Type.Kind {
	case KindExpr:
		m, diags := ctx.Value(e)
		if diags.HasErrors() {
			return nil, elems, diags
		}
		return m, elems, diags
	case KindAny:
		val, diags := ctx.Eval(e)
		if diags.HasErrors() || val.IsNull() {
			return nil, elems, diags
		}
		return val, elems, diags
	case KindType:
		ty, diags := typeexpr.TypeConstraint(e)
		if diags.HasErrors() {
			return nil, elems, diags
		}
		return ty, elems, diags
	case KindList:
		return decodeList(a, e, ctx, elems, i)
	case KindMap:
		val, diags := ctx.Eval(e)
		if diags.HasErrors() || val.IsNull() {
			return nil, elems, diags
		}
		val, _ = val.UnmarkDeep()
		if !val.IsWhollyKnown() {
			return nil, elems, diags
		}
		ty := cty.Map(ctyType(a.Type.Elem.Kind))
		cv, err := convert.Convert(val, ty)
		if err != nil {
			return nil, elems, append(diags, a.invalid(e.Range(), "a map of "+plural(a.Type.Elem.Kind)+"; got "+val.Type().FriendlyName()))
		}
		return cv, elems, diags
	}
	val, diags := ctx.Typed(e, ctyType(a.Type.Kind), what(a.Type.Kind))
	if diags.HasErrors() || val.IsNull() {
		return nil, elems, diags
	}
	out, d := a.check(val, e.Range())
	if d != nil {
		return nil, elems, append(diags, d)
	}
	return out, elems, diags
}

// decodeList reads a list element by element, so that an error points at
// its element; a list that is not written out (var.origins) is read whole.
func decodeList(a *Attr, e hcl.Expression, ctx *engine.DecodeContext, elems [][]hcl.Range, i int) (any, [][]hcl.Range, hcl.Diagnostics) {
	elem := &Attr{Name: a.Name, Type: *a.Type.Elem, Doc: a.Doc}
	var diags hcl.Diagnostics
	var out []any
	var ranges []hcl.Range
	if exprs, d := hcl.ExprList(e); !d.HasErrors() {
		for _, el := range exprs {
			val, more := ctx.Typed(el, ctyType(elem.Type.Kind), what(elem.Type.Kind))
			diags = append(diags, more...)
			if more.HasErrors() || val.IsNull() {
				continue
			}
			x, bad := elem.check(val, el.Range())
			if bad != nil {
				diags = append(diags, bad)
				continue
			}
			out, ranges = append(out, x), append(ranges, el.Range())
		}
	} else {
		val, more := ctx.Eval(e)
		diags = append(diags, more...)
		if more.HasErrors() || val.IsNull() {
			return nil, elems, diags
		}
		val, _ = val.UnmarkDeep()
		if !val.IsWhollyKnown() {
			return nil, elems, diags
		}
		cv, err := convert.Convert(val, cty.List(ctyType(elem.Type.Kind)))
		if err != nil {
			return nil, elems, append(diags, a.invalid(e.Range(), "a list of "+plural(elem.Type.Kind)+", not "+text.WithArticle(val.Type().FriendlyName())))
		}
		for _, x := range cv.AsValueSlice() {
			y, bad := elem.check(x, e.Range())
			if bad != nil {
				diags = append(diags, bad)
				continue
			}
			out, ranges = append(out, y), append(ranges, e.Range())
		}
	}
	if elems == nil {
		elems = make([][]hcl.Range, i+1)
	}
	for len(elems) <= i {
		elems = append(elems, nil)
	}
	elems[i] = ranges
	if out == nil {
		out = []any{}
	}
	return out, elems, diags
}

// check converts val, of the attribute's scalar kind and known, to its Go
// value, and checks its bounds or choices.
func (a *Attr) check(val cty.Value, rng hcl.Range) (any, *hcl.Diagnostic) {
	switch a.Type.Kind {
	case KindString:
		return val.AsString(), nil
	case KindBool:
		return val.True(), nil
	case KindInt:
		n, d := engine.WholeNumber(val, rng)
		if d != nil {
			return nil, d
		}
		if (a.Min != nil && n < *a.Min) || (a.Max != nil && n > *a.Max) {
			return nil, a.invalid(rng, fmt.Sprintf("%s, not %d", a.Bounds(), n))
		}
		return n, nil
	case KindDuration:
		d, bad := engine.DurationAt(val.AsString(), rng)
		if bad != nil {
			return nil, bad
		}
		if (a.Min != nil && int64(d) < *a.Min) || (a.Max != nil && int64(d) > *a.Max) {
			return nil, a.invalid(rng, fmt.Sprintf("%s, not %s", a.Bounds(), d))
		}
		return d, nil
	case KindEnum:
		s := val.AsString()
		for _, c := range a.Type.Choices {
			if c.Value == s {
				return s, nil
			}
		}
		return nil, a.invalid(rng, fmt.Sprintf("%s, not %q", a.ChoicesText(), s))
	}
	return val, nil
}

// invalid is the error of a value that does not fit the attribute:
// "ttl is how long a result is kept: at most 720h0m0s (30 days), not
// 800h0m0s."
func (a *Attr) invalid(rng hcl.Range, fit string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + a.Name,
		Detail: fmt.Sprintf("%s %s: %s.", a.Name, a.Doc, fit), Subject: rng.Ptr()}
}

// Bounds words the bounds of an int or a duration: "a whole number from 1
// to 100", "at most 720h0m0s (30 days)"; "" without bounds.
func (a *Attr) Bounds() string {
	word := func(n int64) string {
		if a.Type.Kind == KindDuration {
			return durationText(time.Duration(n))
		}
		return fmt.Sprint(n)
	}
	var b string
	switch {
	case a.Min != nil && a.Max != nil:
		b = fmt.Sprintf("from %s to %s", word(*a.Min), word(*a.Max))
	case a.Min != nil:
		b = "at least " + word(*a.Min)
	case a.Max != nil:
		b = "at most " + word(*a.Max)
	default:
		return ""
	}
	if a.Type.Kind == KindInt {
		return "a whole number " + b
	}
	return b
}

// durationText writes d as Go does, and in days when it is whole days:
// "720h0m0s (30 days)".
func durationText(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= 2*day && d%day == 0 {
		return fmt.Sprintf("%s (%d days)", d, d/day)
	}
	return d.String()
}

// ChoicesText words an enum's choices: `"memory" (this process) or
// "redis" (shared by every replica)`, or `one of "a", "b" or "c"`.
func (a *Attr) ChoicesText() string {
	q := make([]string, len(a.Type.Choices))
	for i, c := range a.Type.Choices {
		q[i] = fmt.Sprintf("%q", c.Value)
		if c.Doc != "" {
			q[i] += " (" + c.Doc + ")"
		}
	}
	list := text.Or(q)
	if len(q) > 2 {
		return "one of " + list
	}
	return list
}

func ctyType(k Kind) cty.Type {
	switch k {
	case KindInt:
		return cty.Number
	case KindBool:
		return cty.Bool
	}
	return cty.String // string, duration, enum
}

// what names a scalar kind in a type error, as [engine.DecodeContext.Typed]
// wants it.
func what(k Kind) string {
	switch k {
	case KindInt:
		return "a whole number"
	case KindBool:
		return "true or false"
	case KindDuration:
		return `a duration such as "10s"`
	}
	return "a string"
}

// plural names the values of a scalar kind: "strings".
func plural(k Kind) string {
	switch k {
	case KindInt:
		return "whole numbers"
	case KindBool:
		return "booleans"
	case KindDuration:
		return "durations"
	}
	return "strings"
}

func count(n int, name string) string {
	if n == 1 {
		return "one " + name + " block"
	}
	return fmt.Sprintf("%d %s blocks", n, name)
}

// index returns the index of the attribute name; it panics when the spec
// does not declare it, a mistake in the code.
func (v *Values) index(name string) int {
	i, ok := v.block.index[name]
	if !ok || v.block.Attrs[i].Name != name {
		panic(fmt.Sprintf("spec: block %s declares no attribute %q", v.block.Path(), name))
	}
	return i
}

// Attr is the attribute as written, or nil when absent: for where to
// point in an error.
func (v *Values) Attr(name string) *hcl.Attribute { return v.slots[v.index(name)].attr }

// Has reports whether the attribute is written and decoded without error
// to a value that is not null.
func (v *Values) Has(name string) bool { return v.slots[v.index(name)].val != nil }

// Written reports whether the attribute is written, whatever its value.
func (v *Values) Written(name string) bool { return v.slots[v.index(name)].attr != nil }

func (v *Values) get(name string) any {
	i := v.index(name)
	if x := v.slots[i].val; x != nil {
		return x
	}
	return v.block.Attrs[i].Default
}

// String reads a string or an enum.
func (v *Values) String(name string) string {
	s, _ := v.get(name).(string)
	return s
}

// Int reads a whole number.
func (v *Values) Int(name string) int64 {
	switch n := v.get(name).(type) {
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}

// Bool reads true or false.
func (v *Values) Bool(name string) bool {
	b, _ := v.get(name).(bool)
	return b
}

// Duration reads a duration.
func (v *Values) Duration(name string) time.Duration {
	d, _ := v.get(name).(time.Duration)
	return d
}

// Strings reads a list of strings, and Ranges where each element is
// written.
func (v *Values) Strings(name string) []string {
	l, _ := v.get(name).([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, x.(string))
	}
	return out
}

// Ranges are where the elements of a list that decoded are written.
func (v *Values) Ranges(name string) []hcl.Range {
	i := v.index(name)
	if i < len(v.elems) {
		return v.elems[i]
	}
	return nil
}

// Value reads an any or a map attribute: cty.NilVal when absent.
func (v *Values) Value(name string) cty.Value {
	c, _ := v.get(name).(cty.Value)
	return c
}

// Program reads an expr attribute: nil when absent.
func (v *Values) Program(name string) mapping.Value {
	m, _ := v.get(name).(mapping.Value)
	return m
}

// Type reads a type attribute: cty.DynamicPseudoType (any) when absent.
func (v *Values) Type(name string) cty.Type {
	if t, ok := v.get(name).(cty.Type); ok {
		return t
	}
	return cty.DynamicPseudoType
}

// Blocks are the nested blocks of that type, at most as many as the spec
// allows.
func (v *Values) Blocks(name string) hcl.Blocks {
	for j, n := range v.block.Blocks {
		if n.Block.Name == name {
			if v.blocks == nil {
				return nil
			}
			return v.blocks[j]
		}
	}
	panic(fmt.Sprintf("spec: block %s declares no block %q", v.block.Path(), name))
}
