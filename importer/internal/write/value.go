package write

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// KeyTokens writes k as an object key: bare when it is a plain name, else
// quoted. A bare for opens a for expression, and null, true, false, in,
// the template keywords and a name with a hyphen read as something else
// to a person (null, a minus), so they are quoted too.
func KeyTokens(k string) hclwrite.Tokens {
	switch k {
	case "null", "true", "false", "for", "in", "if", "else", "endif", "endfor":
		return hclwrite.TokensForValue(cty.StringVal(k))
	}
	if hclsyntax.ValidIdentifier(k) && !strings.Contains(k, "-") {
		return hclwrite.TokensForIdentifier(k)
	}
	return hclwrite.TokensForValue(cty.StringVal(k))
}

// ValueTokens writes a plain value (a schema, a default: maps with string
// keys, lists, strings, bools, int64 and float64 numbers, nil) as HCL, its
// keys by KeyTokens and in order. ref, when not nil, writes the values it
// knows (such as a reference to a named schema) and reports whether it
// did; a value of another type is written null.
func ValueTokens(v any, ref func(any) (hclwrite.Tokens, bool)) hclwrite.Tokens {
	if ref != nil {
		if t, ok := ref(v); ok {
			return t
		}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		attrs := make([]hclwrite.ObjectAttrTokens, len(keys))
		for i, k := range keys {
			attrs[i] = hclwrite.ObjectAttrTokens{Name: KeyTokens(k), Value: ValueTokens(x[k], ref)}
		}
		return hclwrite.TokensForObject(attrs)
	case []any:
		elems := make([]hclwrite.Tokens, len(x))
		for i, e := range x {
			elems[i] = ValueTokens(e, ref)
		}
		return hclwrite.TokensForTuple(elems)
	case string:
		return hclwrite.TokensForValue(cty.StringVal(x))
	case bool:
		return hclwrite.TokensForValue(cty.BoolVal(x))
	case int64:
		return hclwrite.TokensForValue(cty.NumberIntVal(x))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType))
		}
		// The shortest decimal that reads back as x: hclwrite's own
		// (math/big's shortest) writes 2^64, DigitalOcean's maximum of
		// group_concat_max_len, as 18446744073709550000, the float64 below.
		return hclwrite.Tokens{{Type: hclsyntax.TokenNumberLit, Bytes: []byte(strconv.FormatFloat(x, 'f', -1, 64))}}
	}
	return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType))
}
