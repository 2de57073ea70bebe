package httpaction

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// errorf is an error diagnostic about rng.
var errorf = spec.Errorf

// warnf returns a warning diagnostic: the configuration loads, but likely
// not as its author meant.
func warnf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	d := errorf(rng, summary, format, args...)
	d.Severity = hcl.DiagWarning
	return d
}

// entry is one key = value pair of an object written in the configuration.
type entry struct {
	name     string
	keyRange hcl.Range
	expr     hcl.Expression
}

// objectEntries lists the pairs of e when it is written as an object
// constructor { key = value, … }, so that each can be checked on its own
// and diagnostics point at the one that is wrong. ok is false when e is
// something else, such as a variable: then the caller evaluates it whole.
func objectEntries(ctx *engine.DecodeContext, e hcl.Expression) (entries []entry, ok bool, diags hcl.Diagnostics) {
	if _, isObject := e.(*hclsyntax.ObjectConsExpr); !isObject {
		return nil, false, nil
	}
	pairs, diags := hcl.ExprMap(e)
	if diags.HasErrors() {
		return nil, false, nil
	}
	seen := map[string]hcl.Range{}
	for _, p := range pairs {
		k, more := p.Key.Value(ctx.EvalContext)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		k, _ = k.UnmarkDeep()
		if k.IsNull() || !k.IsKnown() {
			diags = append(diags, errorf(p.Key.Range(), "Invalid key", "A key must be a string known when the configuration loads."))
			continue
		}
		ks, err := convert.Convert(k, cty.String)
		if err != nil {
			diags = append(diags, errorf(p.Key.Range(), "Invalid key", "A key must be a string; got %s.", k.Type().FriendlyName()))
			continue
		}
		name := ks.AsString()
		if prev, dup := seen[name]; dup {
			diags = append(diags, errorf(p.Key.Range(), "Duplicate key", "%q is already set at %s.", name, prev))
			continue
		}
		seen[name] = p.Key.Range()
		entries = append(entries, entry{name: name, keyRange: p.Key.Range(), expr: p.Value})
	}
	return entries, true, diags
}

// stringMap converts a load-time value to a map of strings.
func stringMap(v cty.Value) (map[string]string, error) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		return nil, nil
	}
	if !v.Type().IsMapType() && !v.Type().IsObjectType() {
		return nil, fmt.Errorf("got %s", v.Type().FriendlyName())
	}
	m := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		s, err := convert.Convert(e, cty.String)
		if err != nil || s.IsNull() {
			return nil, fmt.Errorf("the value of %q is %s, not a string", k.AsString(), e.Type().FriendlyName())
		}
		m[k.AsString()] = s.AsString()
	}
	return m, nil
}

// intList converts a load-time value to a list of whole numbers.
func intList(v cty.Value) ([]int, error) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType()) {
		return nil, fmt.Errorf("got %s", v.Type().FriendlyName())
	}
	var out []int
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		n, err := convert.Convert(e, cty.Number)
		if err != nil || n.IsNull() {
			return nil, fmt.Errorf("%s is not a number", e.Type().FriendlyName())
		}
		i, acc := n.AsBigFloat().Int64()
		if acc != big.Exact {
			return nil, fmt.Errorf("%s is not a whole number", n.AsBigFloat().String())
		}
		out = append(out, int(i))
	}
	return out, nil
}

// sortRanges sorts ranges by their position in their files.
func sortRanges(rs []hcl.Range) {
	slices.SortFunc(rs, func(a, b hcl.Range) int {
		if c := strings.Compare(a.Filename, b.Filename); c != 0 {
			return c
		}
		return a.Start.Byte - b.Start.Byte
	})
}

// textRange returns the range of text[start:end] inside the string written
// by e, when e is a plain quoted string whose text maps byte for byte onto
// the file; otherwise the range of e.
func textRange(e hcl.Expression, text string, start, end int) hcl.Range {
	t, ok := e.(*hclsyntax.TemplateExpr)
	if !ok || len(t.Parts) != 1 {
		return e.Range()
	}
	lit, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr)
	if !ok {
		return e.Range()
	}
	r := lit.SrcRange
	if r.End.Byte-r.Start.Byte != len(text) || r.Start.Line != r.End.Line {
		return e.Range()
	}
	out := r
	out.Start.Byte += start
	out.Start.Column += utf8.RuneCountInString(text[:start])
	out.End = out.Start
	out.End.Byte += end - start
	out.End.Column += utf8.RuneCountInString(text[start:end])
	return out
}
