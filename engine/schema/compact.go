package schema

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Compact returns a copy of the schema doc as a model needs it to read a
// result: its shape (types, properties, items, required names, enum and
// const values, references and their $defs) without what only describes
// (title, description, default, examples, $comment, deprecated, readOnly,
// writeOnly, the content keywords, extensions "x-…", the "$schema" that
// MCP assumes) and without the assertions that only narrow a value the
// shape already gives (formats, bounds, patterns, multipleOf,
// uniqueItems, additionalProperties false, propertyNames, contains,
// dependentRequired and dependentSchemas, if/then/else, not). The parts
// of an allOf that are all objects are merged into one object when no
// property is given twice. A copy longer than CompactBudget is cut to it
// from its deepest levels up.
//
// The copy accepts every value doc accepts (a client that checks a
// result against it never refuses one the server sends, which checks
// against doc): where a narrowing assertion goes, a oneOf becomes an
// anyOf, since two alternatives may no longer exclude each other. doc is
// not changed; the copy shares its data (enum values and the like).
func Compact(doc map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	out, _ := compactSchema(doc).(map[string]any)
	if out == nil { // never so: an object stays an object
		return map[string]any{}
	}
	delete(out, "$schema")
	return fit(out)
}

// Keywords that Compact drops: the annotations, which only describe (no
// validator accepts or refuses a value for them), and the assertions that
// only narrow the shape the other keywords give.
var (
	descriptive = map[string]bool{
		"title": true, "description": true, "default": true, "examples": true, "$comment": true,
		"deprecated": true, "readOnly": true, "writeOnly": true,
		"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
	}
	narrowing = map[string]bool{
		"format": true, "pattern": true, "multipleOf": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
		"minLength": true, "maxLength": true, "minItems": true, "maxItems": true, "uniqueItems": true,
		"minProperties": true, "maxProperties": true, "minContains": true, "maxContains": true,
		"propertyNames": true, "contains": true, "dependentRequired": true, "dependentSchemas": true,
		"if": true, "then": true, "else": true, "not": true,
		"unevaluatedProperties": true, "unevaluatedItems": true,
	}
)

// Keywords whose value is a schema, a list of schemas, or an object of
// schemas by name: where Compact goes on. Every other keyword's value
// (enum, const, required…) is data, kept as it is.
var (
	subschema     = map[string]bool{"items": true, "additionalItems": true, "additionalProperties": true}
	subschemaList = map[string]bool{"prefixItems": true, "allOf": true, "anyOf": true, "oneOf": true}
	subschemaMap  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true}
)

// compactSchema is Compact of one schema: an object, or true or false.
func compactSchema(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case descriptive[k] || narrowing[k] || strings.HasPrefix(k, "x-"):
		case (k == "additionalProperties" || k == "additionalItems") && (v == false || v == true):
		case subschema[k]:
			if list, ok := v.([]any); ok && k == "items" { // items as a list: before 2020-12
				out[k] = compactList(list)
			} else {
				out[k] = compactSchema(v)
			}
		case subschemaList[k]:
			if list, ok := v.([]any); ok {
				if k == "oneOf" {
					if _, both := m["anyOf"]; both {
						continue // the anyOf alone, looser
					}
					k = "anyOf"
				}
				out[k] = compactList(list)
			} else {
				out[k] = v
			}
		case subschemaMap[k]:
			if byName, ok := v.(map[string]any); ok {
				c := make(map[string]any, len(byName))
				for name, s := range byName {
					c[name] = compactSchema(s)
				}
				out[k] = c
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	mergeAllOf(out)
	return out
}

func compactList(list []any) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = compactSchema(s)
	}
	return out
}

// mergeAllOf merges, in a compacted schema s, the parts of its allOf into
// s itself when each is an object schema of type, properties and
// required only, and no property is given by two of them (nor by s):
// then the one object accepts exactly what all of them do.
func mergeAllOf(s map[string]any) {
	parts, ok := s["allOf"].([]any)
	if !ok || len(parts) == 0 {
		return
	}
	if t, ok := s["type"]; ok && t != "object" {
		return
	}
	for k := range s {
		if k != "allOf" && k != "type" && k != "properties" && k != "required" {
			return
		}
	}
	props, _ := s["properties"].(map[string]any)
	merged := maps.Clone(props)
	if merged == nil {
		merged = map[string]any{}
	}
	var required []any
	if r, ok := s["required"].([]any); ok {
		required = slices.Clone(r)
	}
	for _, p := range parts {
		m, ok := p.(map[string]any)
		if !ok || m["type"] != "object" {
			return
		}
		for k := range m {
			if k != "type" && k != "properties" && k != "required" {
				return
			}
		}
		ps, _ := m["properties"].(map[string]any)
		for name, sch := range ps {
			if prev, ok := merged[name]; ok && !reflect.DeepEqual(prev, sch) {
				return
			}
			merged[name] = sch
		}
		if r, ok := m["required"].([]any); ok {
			for _, n := range r {
				if !slices.Contains(required, n) {
					required = append(required, n)
				}
			}
		}
	}
	delete(s, "allOf")
	s["type"] = "object"
	if len(merged) > 0 {
		s["properties"] = merged
	}
	if len(required) > 0 {
		s["required"] = required
	}
}

// CompactBudget is the most bytes of JSON that Compact writes of a
// schema deeper than its first level (about a hundred tokens): past it,
// the deepest levels are cut, one at a time, to their types (an object's
// properties go, an array keeps the type of its items) until it fits, or
// until only the top level's properties and their types are left. A
// schema that refers to others ($ref) is not cut.
const CompactBudget = 400

// fit cuts the compacted schema s to CompactBudget (see there).
func fit(s map[string]any) map[string]any {
	if refers(s) || fits(s) {
		return s
	}
	for keep := levels(s) - 1; keep >= 1; keep-- {
		c, _ := cutAt(s, 0, keep).(map[string]any)
		if keep == 1 || fits(c) {
			return c
		}
	}
	return s
}

// fits reports whether v is CompactBudget bytes of JSON or less, or
// cannot be written as JSON. Most schemas are far longer: a count of the
// bytes their JSON has at least tells so without writing it.
func fits(v any) bool {
	if atLeast(v, CompactBudget+1) > CompactBudget {
		return false
	}
	b, err := json.Marshal(v)
	return err != nil || len(b) <= CompactBudget
}

// atLeast counts the bytes that v has at least as JSON (a string's
// escapes and a number's digits are left out), up to past limit.
func atLeast(v any, limit int) int {
	switch v := v.(type) {
	case map[string]any:
		n := 1 + len(v) // the braces, and the commas
		for k, e := range v {
			if n += len(k) + 3 + atLeast(e, limit-n); n >= limit {
				return n
			}
		}
		return n
	case []any:
		n := 1 + max(len(v), 1)
		for _, e := range v {
			if n += atLeast(e, limit-n); n >= limit {
				return n
			}
		}
		return n
	case string:
		return len(v) + 2
	case bool:
		return 4
	case nil:
		return 4
	}
	return 1
}

// refers reports whether v holds a "$ref" or a "$dynamicRef", as a key
// or a string, which a cut could leave dangling.
func refers(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "$ref" || k == "$dynamicRef" || refers(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, refers)
	case string:
		return v == "$ref" || v == "$dynamicRef"
	}
	return false
}

// levels is how many levels of properties a compacted schema has: 0 for
// one without properties, 1 for an object whose properties have none…
// An array's items, and the alternatives of anyOf and allOf, are on the
// level of the schema they are in.
func levels(s any) int {
	m, ok := s.(map[string]any)
	if !ok {
		return 0
	}
	n := 0
	for k, v := range m {
		switch {
		case k == "properties" || k == "patternProperties":
			byName, _ := v.(map[string]any)
			for _, p := range byName {
				n = max(n, 1+levels(p))
			}
		case k == "additionalProperties":
			if _, ok := v.(map[string]any); ok {
				n = max(n, 1+levels(v))
			}
		case k == "items" || k == "additionalItems":
			n = max(n, levels(v))
		case k == "prefixItems" || k == "allOf" || k == "anyOf":
			list, _ := v.([]any)
			for _, e := range list {
				n = max(n, levels(e))
			}
		}
	}
	return n
}

// cutAt is the compacted schema s, at level, with the schemas at level
// keep that hold others cut to their type: it accepts every value s
// accepts.
func cutAt(s any, level, keep int) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	if level >= keep {
		if levels(m) == 0 && m["items"] == nil && m["anyOf"] == nil && m["allOf"] == nil && m["prefixItems"] == nil {
			return m // a leaf: its type, enum or const
		}
		c := map[string]any{}
		if t := typeOf(m); t != nil {
			c["type"] = t
		}
		if items, ok := m["items"].(map[string]any); ok {
			c["items"] = cutAt(items, level, keep)
		}
		return c
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "properties", "patternProperties":
			byName, _ := v.(map[string]any)
			c := make(map[string]any, len(byName))
			for name, p := range byName {
				c[name] = cutAt(p, level+1, keep)
			}
			out[k] = c
		case "additionalProperties":
			out[k] = cutAt(v, level+1, keep)
		case "items", "additionalItems":
			out[k] = cutAt(v, level, keep)
		case "prefixItems", "allOf", "anyOf":
			list, _ := v.([]any)
			c := make([]any, len(list))
			for i, e := range list {
				c[i] = cutAt(e, level, keep)
			}
			out[k] = c
		default:
			out[k] = v
		}
	}
	return out
}

// typeOf is the type keyword of a compacted schema, or the types its
// anyOf alternatives all name; nil when some alternative takes any type.
func typeOf(m map[string]any) any {
	if t, ok := m["type"]; ok {
		return t
	}
	alts, _ := m["anyOf"].([]any)
	if len(alts) == 0 {
		return nil
	}
	var types []any
	for _, a := range alts {
		t := typeOf(obj(a))
		if t == nil {
			return nil
		}
		list, ok := t.([]any)
		if !ok {
			list = []any{t}
		}
		for _, x := range list {
			if !slices.Contains(types, x) {
				types = append(types, x)
			}
		}
	}
	if len(types) == 1 {
		return types[0]
	}
	return types
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
