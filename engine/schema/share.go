package schema

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Share returns a copy of the schema doc in which a subschema written
// more than once (the same owner object under a repository and under each
// of its forks, say) is written once, under "$defs", and referred to
// elsewhere by "$ref": "#/$defs/name". Only what is shorter for it is
// shared; nothing else changes, and the copy accepts exactly the values
// doc accepts. A name is the property (or the property's items) where
// the subschema is first met, made unique.
//
// Subschemas shorter than minShared bytes stay
// where they are.
//
// doc is returned as it is when nothing repeats, and when it holds what a
// move could change the meaning of: a "$ref" other than one to its own
// "$defs", or an "$id", "$anchor" or "$dynamicAnchor". doc is not
// changed; the copy shares its data (enum values and the like).
func Share(doc map[string]any) map[string]any {
	if doc == nil || !movable(doc) {
		return doc
	}
	out := copySchema(doc)
	defs, _ := out["$defs"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	defs = maps.Clone(defs)
	shared := false
	for range maxShared {
		best, name := largestRepeat(out, defs)
		if best == "" {
			break
		}
		var def any
		ref := DefRef(uniqueDef(defs, name))
		replace(out, best, ref, &def)
		for _, d := range defs {
			if m, ok := d.(map[string]any); ok {
				replace(m, best, ref, &def)
			}
		}
		defs[defNameOf(ref)] = def
		shared = true
	}
	if !shared {
		return doc
	}
	out["$defs"] = defs
	return out
}

// maxShared bounds the subschemas one schema shares.
const maxShared = 256

// minShared is the length, as JSON, of the smallest subschema shared: a
// reference in place of a short one (a date's type and format) saves
// little and reads worse than it.
const minShared = 160

// refLen is about the length of {"$ref":"#/$defs/"} besides the name.
const refLen = len(`{"$ref":"#/$defs/"}`)

// copySchema copies the maps and lists of a schema, down to its values.
func copySchema(v any) map[string]any {
	var out any
	b, err := json.Marshal(v)
	if err != nil || json.Unmarshal(b, &out) != nil {
		return maps.Clone(v.(map[string]any))
	}
	return out.(map[string]any)
}

// movable reports whether v has no keyword whose meaning depends on where
// it is written.
func movable(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor":
				return false
			case "$ref":
				if s, _ := e.(string); !strings.HasPrefix(s, defsPrefix) {
					return false
				}
			}
			if !movable(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !movable(e) {
				return false
			}
		}
	}
	return true
}

// shareOne are the keywords whose value is one schema; those whose
// value is a list of schemas; and those whose value maps names to schemas.
var (
	shareOne  = []string{"items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
	shareList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	shareMaps = []string{"properties", "patternProperties", "dependentSchemas"}
)

// eachSubschema calls f with each schema directly under m, and the name
// it would get as a definition.
func eachSubschema(m map[string]any, name string, f func(s map[string]any, name string)) {
	for _, k := range shareOne {
		if s, ok := m[k].(map[string]any); ok {
			n := name
			if k == "items" {
				n += "_item"
			}
			f(s, n)
		}
	}
	for _, k := range shareList {
		if l, ok := m[k].([]any); ok {
			for _, e := range l {
				if s, ok := e.(map[string]any); ok {
					f(s, name)
				}
			}
		}
	}
	for _, k := range shareMaps {
		if props, ok := m[k].(map[string]any); ok {
			for _, p := range slices.Sorted(maps.Keys(props)) {
				if s, ok := props[p].(map[string]any); ok {
					f(s, p)
				}
			}
		}
	}
}

// largestRepeat finds the subschema, of doc and of the definitions, whose
// sharing saves the most bytes, as JSON, and the name it would take; ""
// when none saves any.
func largestRepeat(doc map[string]any, defs map[string]any) (string, string) {
	count := map[string]int{}
	first := map[string]string{}
	var walk func(s map[string]any, name string, top bool)
	walk = func(s map[string]any, name string, top bool) {
		if !top {
			b, err := json.Marshal(s)
			if err != nil {
				return
			}
			k := string(b)
			if count[k]++; count[k] == 1 {
				first[k] = name
			}
		}
		eachSubschema(s, name, func(c map[string]any, n string) { walk(c, n, false) })
	}
	walk(doc, "schema", true)
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		if s, ok := defs[name].(map[string]any); ok {
			walk(s, name, true)
		}
	}
	best, gain := "", 0
	for k, n := range count {
		if n < 2 || len(k) < minShared {
			continue
		}
		size := len(k)
		name := defName(first[k])
		// n copies become n references and one definition.
		g := (n-1)*size - n*(refLen+len(name)) - len(name) - 4
		if g > gain || g == gain && g > 0 && k < best {
			best, gain = k, g
		}
	}
	if best == "" {
		return "", ""
	}
	return best, defName(first[best])
}

// notName matches what a definition's name does not hold.
var notName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// defName is a definition's name made from a property's.
func defName(s string) string {
	s = strings.Trim(notName.ReplaceAllString(s, "_"), "_")
	if s == "" {
		return "def"
	}
	return s
}

// uniqueDef is name, or name_2, name_3… when defs has it.
func uniqueDef(defs map[string]any, name string) string {
	if _, taken := defs[name]; !taken {
		return name
	}
	for i := 2; ; i++ {
		n := name + "_" + strconv.Itoa(i)
		if _, taken := defs[n]; !taken {
			return n
		}
	}
}

// defNameOf is the name a reference to a definition names.
func defNameOf(ref string) string {
	n, _ := DefName(ref)
	return n
}

// replace puts ref in place of each subschema of m whose JSON is target,
// keeping the first it replaces in def.
func replace(m map[string]any, target, ref string, def *any) {
	set := func(s map[string]any) any { return replaceIn(s, target, ref, def) }
	for _, k := range shareOne {
		if s, ok := m[k].(map[string]any); ok {
			m[k] = set(s)
		}
	}
	for _, k := range shareList {
		if l, ok := m[k].([]any); ok {
			for i, e := range l {
				if s, ok := e.(map[string]any); ok {
					l[i] = set(s)
				}
			}
		}
	}
	for _, k := range shareMaps {
		if props, ok := m[k].(map[string]any); ok {
			for p, e := range props {
				if s, ok := e.(map[string]any); ok {
					props[p] = set(s)
				}
			}
		}
	}
}

// replaceIn is s, or a reference in its place when its JSON is target,
// with the same done below it.
func replaceIn(s any, target, ref string, def *any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	if len(target) > 0 {
		if b, err := json.Marshal(m); err == nil && string(b) == target {
			if *def == nil {
				*def = m
			}
			return map[string]any{"$ref": ref}
		}
	}
	replace(m, target, ref, def)
	return m
}
