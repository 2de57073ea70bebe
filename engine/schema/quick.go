package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// A quick is a schema compiled for the common case: a value that is
// valid. It understands the keywords InputSchema and OutputSchema write
// (type, properties, required, additionalProperties, items, enum,
// uniqueItems and the bounds) and nothing else; a schema that uses any
// other keyword ($ref, allOf, …), or one of them in a shape the full
// validator would refuse, has none. So a document that has a quick always
// compiles in full too, which Compile leaves until a value needs it.
//
// accepts reports true only when the value is certainly valid. When it
// reports false the value may still be valid (a json.Number compared with
// a bound, a string with a format, a Go type that is not JSON's), and the
// full validator decides and explains. So a quick never changes a
// verdict, it only spares the full validator's allocations when there is
// nothing to say; FuzzQuick checks that it never accepts what the full
// validator refuses.
type quick struct {
	types      uint8 // bits of the JSON types allowed; 0 allows all
	properties map[string]*quick
	required   []string
	// additional checks properties not in properties; nil allows any, and
	// noAdditional refuses all.
	additional   *quick
	noAdditional bool
	items        *quick
	enum         []any // strings, booleans and null only
	unique       bool
	// pattern or format: the full validator decides every string.
	stringsNeedFull bool

	minLength, maxLength int // -1 when absent
	minItems, maxItems   int // -1 when absent
	minimum, maximum     float64
	exclusiveMin         float64
	exclusiveMax         float64
	hasBounds            bool
}

// The JSON types, as bits of quick.types.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tString
	tNumber
	tInteger
	tArray
	tObject
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "string": tString, "number": tNumber | tInteger,
	"integer": tInteger, "array": tArray, "object": tObject,
}

// annotations are keywords that never make a value invalid, each with the
// shape the meta-schema wants of it.
var annotations = map[string]func(any) bool{
	"title": isString, "description": isString, "$comment": isString,
	"deprecated": isBool, "readOnly": isBool, "writeOnly": isBool,
	"default":  func(any) bool { return true },
	"examples": func(v any) bool { _, ok := v.([]any); return ok },
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isBool(v any) bool   { _, ok := v.(bool); return ok }

// compileQuick returns the quick form of doc, a schema document made of
// JSON's Go values, or nil when doc uses a keyword it does not understand.
func compileQuick(doc any, root bool) *quick {
	m, ok := doc.(map[string]any)
	if !ok {
		if b, ok := doc.(bool); ok && b {
			return &quick{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
		}
		return nil // false refuses everything; leave it to the full validator
	}
	q := &quick{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minimum: math.Inf(-1), maximum: math.Inf(1), exclusiveMin: math.Inf(-1), exclusiveMax: math.Inf(1)}
	for k, v := range m {
		switch {
		case annotations[k] != nil:
			if !annotations[k](v) {
				return nil
			}
		case k == "$schema":
			if !root || v != "https://json-schema.org/draft/2020-12/schema" {
				return nil
			}
		case k == "type":
			switch t := v.(type) {
			case string:
				if typeBits[t] == 0 {
					return nil
				}
				q.types = typeBits[t]
			case []any:
				// The meta-schema wants at least one type, each once.
				for _, e := range t {
					s, _ := e.(string)
					if typeBits[s] == 0 || q.types&typeBits[s] == typeBits[s] {
						return nil
					}
					q.types |= typeBits[s]
				}
				if q.types == 0 {
					return nil
				}
			default:
				return nil
			}
		case k == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			q.properties = make(map[string]*quick, len(props))
			for name, p := range props {
				if q.properties[name] = compileQuick(p, false); q.properties[name] == nil {
					return nil
				}
			}
		case k == "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok || slices.Contains(q.required, s) { // each once, says the meta-schema
					return nil
				}
				q.required = append(q.required, s)
			}
		case k == "additionalProperties":
			if b, ok := v.(bool); ok {
				q.noAdditional = !b
				continue
			}
			if q.additional = compileQuick(v, false); q.additional == nil {
				return nil
			}
		case k == "items":
			if q.items = compileQuick(v, false); q.items == nil {
				return nil
			}
		case k == "enum":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, e := range list {
				switch e.(type) {
				case string, bool, nil:
				default:
					return nil
				}
			}
			q.enum = list
		case k == "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			q.unique = b
		case k == "pattern":
			// The full validator compiles patterns with Go's regexp too.
			p, ok := v.(string)
			if !ok {
				return nil
			}
			if _, err := regexp.Compile(p); err != nil {
				return nil
			}
			q.stringsNeedFull = true
		case k == "format":
			if _, ok := v.(string); !ok {
				return nil
			}
			q.stringsNeedFull = true
		case k == "minLength" || k == "maxLength" || k == "minItems" || k == "maxItems":
			n, ok := wholeCount(v)
			if !ok {
				return nil
			}
			switch k {
			case "minLength":
				q.minLength = n
			case "maxLength":
				q.maxLength = n
			case "minItems":
				q.minItems = n
			default:
				q.maxItems = n
			}
		case k == "minimum" || k == "maximum" || k == "exclusiveMinimum" || k == "exclusiveMaximum":
			f, ok := exactFloat(v)
			if !ok {
				return nil
			}
			q.hasBounds = true
			switch k {
			case "minimum":
				q.minimum = f
			case "maximum":
				q.maximum = f
			case "exclusiveMinimum":
				q.exclusiveMin = f
			default:
				q.exclusiveMax = f
			}
		default:
			return nil
		}
	}
	return q
}

// wholeCount reads a non-negative whole number of a schema.
func wholeCount(v any) (int, bool) {
	f, ok := exactFloat(v)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// exactFloat returns v, a number, as the float64 that equals it exactly,
// or false when there is none.
func exactFloat(v any) (float64, bool) {
	const exact = 1 << 53
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		f := float64(x)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case int:
		return float64(x), x >= -exact && x <= exact
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), x >= -exact && x <= exact
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint:
		return float64(x), x <= exact
	case uint64:
		return float64(x), x <= exact
	}
	return 0, false
}

// accepts reports whether v is certainly valid; see quick.
func (q *quick) accepts(v any) bool {
	switch x := v.(type) {
	case nil:
		return q.allows(tNull) && q.inEnum(v)
	case bool:
		return q.allows(tBoolean) && q.inEnum(v)
	case string:
		if !q.allows(tString) || q.stringsNeedFull || !q.inEnum(v) {
			return false
		}
		if q.minLength >= 0 || q.maxLength >= 0 {
			n := utf8.RuneCountInString(x)
			if n < q.minLength || (q.maxLength >= 0 && n > q.maxLength) {
				return false
			}
		}
		return true
	case []any:
		if !q.allows(tArray) || q.enum != nil || len(x) < q.minItems || (q.maxItems >= 0 && len(x) > q.maxItems) {
			return false
		}
		if q.items != nil {
			for _, e := range x {
				if !q.items.accepts(e) {
					return false
				}
			}
		}
		return !q.unique || distinct(x)
	case map[string]any:
		return q.acceptsObject(x, true)
	case json.Number:
		return q.acceptsNumber(string(x))
	}
	f, ok := exactFloat(v)
	if !ok || q.enum != nil {
		return false
	}
	if f != math.Trunc(f) {
		if q.types != 0 && q.types&tNumber == 0 {
			return false
		}
	} else if !q.allows(tInteger) {
		return false
	}
	return f >= q.minimum && f <= q.maximum && f > q.exclusiveMin && f < q.exclusiveMax
}

// acceptsObject reports whether x is certainly valid; its required
// properties may be missing unless required is true.
func (q *quick) acceptsObject(x map[string]any, required bool) bool {
	if !q.allows(tObject) || q.enum != nil {
		return false
	}
	if required {
		for _, name := range q.required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
	}
	for name, e := range x {
		p, ok := q.properties[name]
		switch {
		case ok:
		case q.noAdditional:
			return false
		case q.additional != nil:
			p = q.additional
		default:
			continue
		}
		if !p.accepts(e) {
			return false
		}
	}
	return true
}

// acceptsNumber reports whether s, a json.Number, is certainly valid.
// Whole numbers of up to 15 digits are exact as float64s. Any other is
// rounded by ParseFloat, but never across a bound that it lies strictly
// within, as bounds are float64s too: so those are checked strictly, and
// one equal to a bound is left to the full validator.
func (q *quick) acceptsNumber(s string) bool {
	whole, ok := jsonenc.NumberSyntax(s)
	switch {
	case !ok || q.enum != nil:
		return false
	case whole && !q.allows(tInteger):
		return false
	case !whole && q.types != 0 && q.types&tNumber == 0:
		return false // perhaps 2.0 or 1e1, which are integers
	case !q.hasBounds:
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	if whole && len(s) <= 15 {
		return f >= q.minimum && f <= q.maximum && f > q.exclusiveMin && f < q.exclusiveMax
	}
	return f > q.minimum && f < q.maximum && f > q.exclusiveMin && f < q.exclusiveMax
}

// allows reports whether the schema allows the JSON type t.
func (q *quick) allows(t uint8) bool { return q.types == 0 || q.types&t != 0 }

// inEnum reports whether v, a string, boolean or null, is one of the
// schema's enum, if it has one.
func (q *quick) inEnum(v any) bool {
	if q.enum == nil {
		return true
	}
	for _, e := range q.enum {
		if e == v {
			return true
		}
	}
	return false
}

// distinct reports whether the strings, booleans, nulls and numbers of
// list are all different; false for a list holding anything else.
func distinct(list []any) bool {
	type key struct {
		kind byte
		s    string
		f    float64
	}
	seen := make(map[key]struct{}, len(list))
	for _, e := range list {
		var k key
		switch x := e.(type) {
		case nil:
			k.kind = 'n'
		case bool:
			k.kind = 'b'
			if x {
				k.f = 1
			}
		case string:
			k.kind, k.s = 's', x
		case json.Number:
			whole, ok := jsonenc.NumberSyntax(string(x))
			if !ok || !whole || len(x) > 15 {
				return false
			}
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				return false
			}
			k.kind, k.f = 'f', f
		default:
			f, ok := exactFloat(e)
			if !ok {
				return false
			}
			k.kind, k.f = 'f', f
		}
		if _, dup := seen[k]; dup {
			return false
		}
		seen[k] = struct{}{}
	}
	return true
}
