package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CoerceStrings takes for a number, an integer or a boolean each string in
// value that is exactly one written as JSON ("3", "-2.5", "1e3", "true",
// "false") and stands where the schema wants such a value and allows no
// string: models sometimes quote the numbers they send. Anything else in
// such a string (a space, a "+", hex, "NaN", "Infinity", "True") leaves it
// a string, and so does a number with a fraction where only an integer is
// allowed ("3.0" is an integer, "3.5" is not), so that validation reports
// it as it would have. A number becomes a json.Number, as encoding/json
// decodes it with UseNumber.
//
// The schema is read where it says what types a place holds: "type", and
// the "properties", "patternProperties", "additionalProperties",
// "prefixItems" and "items" that lead there, through "$ref" and "allOf"
// (all of whose types must allow the value); the branches of "anyOf",
// "oneOf" and "if" are not followed, and a place whose type is not said is
// left alone. Maps and lists in value are changed in place; the result is
// value itself unless value is a string that was taken for something else.
// changed reports whether anything was taken.
func (v *Validator) CoerceStrings(value any) (result any, changed bool) {
	full, err := v.full()
	if err != nil {
		return value, false
	}
	return coerceStrings([]*jsonschema.Schema{full.schema}, value)
}

// coerceStrings coerces value, a place that all of schemas apply to.
func coerceStrings(schemas []*jsonschema.Schema, value any) (any, bool) {
	schemas = applied(schemas)
	switch x := value.(type) {
	case string:
		return coerceString(schemas, x)
	case map[string]any:
		changed := false
		for k, e := range x {
			var sub []*jsonschema.Schema
			for _, s := range schemas {
				sub = appendPropertySchemas(sub, s, k)
			}
			if n, ok := coerceStrings(sub, e); ok {
				x[k] = n
				changed = true
			}
		}
		return x, changed
	case []any:
		changed := false
		for i, e := range x {
			var sub []*jsonschema.Schema
			for _, s := range schemas {
				sub = appendItemSchemas(sub, s, i)
			}
			if n, ok := coerceStrings(sub, e); ok {
				x[i] = n
				changed = true
			}
		}
		return x, changed
	}
	return value, false
}

// maxApplied bounds the schemas that one place is read against.
const maxApplied = 64

// applied is schemas with those they refer to ($ref) or include (allOf),
// each once.
func applied(schemas []*jsonschema.Schema) []*jsonschema.Schema {
	if len(schemas) == 0 {
		return nil
	}
	out := make([]*jsonschema.Schema, 0, len(schemas))
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || len(out) == maxApplied || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
		add(s.Ref)
		for _, a := range s.AllOf {
			add(a)
		}
	}
	for _, s := range schemas {
		add(s)
	}
	return out
}

// appendPropertySchemas appends the schemas that s applies to its
// property name.
func appendPropertySchemas(out []*jsonschema.Schema, s *jsonschema.Schema, name string) []*jsonschema.Schema {
	matched := false
	if p, ok := s.Properties[name]; ok {
		out, matched = append(out, p), true
	}
	for re, p := range s.PatternProperties {
		if re.MatchString(name) {
			out, matched = append(out, p), true
		}
	}
	if p, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
		out = append(out, p)
	}
	return out
}

// appendItemSchemas appends the schemas that s applies to the item at i
// of a list.
func appendItemSchemas(out []*jsonschema.Schema, s *jsonschema.Schema, i int) []*jsonschema.Schema {
	switch {
	case i < len(s.PrefixItems):
		return append(out, s.PrefixItems[i])
	case s.Items2020 != nil:
		return append(out, s.Items2020)
	}
	// Drafts before 2020-12.
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		return append(out, items)
	case []*jsonschema.Schema:
		if i < len(items) {
			return append(out, items[i])
		}
		if more, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			return append(out, more)
		}
	}
	return out
}

// coerceString takes s for the number or boolean it writes, when every
// one of schemas says the place holds no string but such a value.
func coerceString(schemas []*jsonschema.Schema, s string) (any, bool) {
	var allowed uint8
	said := false
	for _, sch := range schemas {
		if sch.Types == nil || sch.Types.IsEmpty() {
			continue
		}
		var bits uint8
		for _, t := range sch.Types.ToStrings() {
			bits |= typeBits[t]
		}
		if !said {
			allowed, said = bits, true
		} else {
			allowed &= bits
		}
	}
	if !said || allowed&tString != 0 {
		return s, false
	}
	switch {
	case allowed&tBoolean != 0 && (s == "true" || s == "false"):
		return s == "true", true
	case allowed&(tNumber|tInteger) == 0 || !isJSONNumber(s):
		return s, false
	case allowed&tNumber != 0 || isWhole(s):
		return json.Number(s), true
	}
	return s, false
}

// isJSONNumber reports whether s is exactly a number written as JSON: no
// space, sign "+", leading zero, hex, "NaN" or "Infinity".
func isJSONNumber(s string) bool {
	// Valid JSON that starts with a minus or a digit and ends with a digit
	// is a number and nothing around it.
	return s != "" && (s[0] == '-' || isDigit(s[0])) && isDigit(s[len(s)-1]) && json.Valid([]byte(s))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isWhole reports whether s, a JSON number, has no fractional part, as
// JSON Schema's integer wants: "3", "3.0", "1e2", "25e-1" is not.
func isWhole(s string) bool {
	s = strings.TrimPrefix(s, "-")
	mantissa, exponent := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mantissa = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil { // out of range: beyond every digit either way
			e = len(s)
			if s[i+1] == '-' {
				e = -len(s)
			}
		}
		exponent = max(-len(s), min(e, len(s)))
	}
	intPart, frac, _ := strings.Cut(mantissa, ".")
	// The digits are intPart then frac; the point falls after point of
	// them. Whole when every digit after it is 0.
	point := len(intPart) + exponent
	for i := max(point, 0); i < len(intPart)+len(frac); i++ {
		var d byte
		if i < len(intPart) {
			d = intPart[i]
		} else {
			d = frac[i-len(intPart)]
		}
		if d != '0' {
			return false
		}
	}
	return true
}
