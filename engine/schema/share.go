package schema

import (
	"encoding/json"
	"maps"
	"reflect"
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
	keys := newKeyer()
	for range maxShared {
		best, name := largestRepeat(keys, out, defs)
		if best == nil {
			break
		}
		var def any
		ref := DefRef(uniqueDef(defs, name))
		keys.replace(out, best.id, ref, &def)
		for _, d := range defs {
			if m, ok := d.(map[string]any); ok {
				keys.replace(m, best.id, ref, &def)
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

// copySchema copies the maps and lists of a schema, down to its values,
// which it shares.
func copySchema(doc map[string]any) map[string]any {
	var cp func(v any) any
	cp = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, e := range v {
				out[k] = cp(e)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = cp(e)
			}
			return out
		}
		return v
	}
	return cp(doc).(map[string]any)
}

// A keyer writes subschemas as JSON (json.Marshal's, keys sorted) to
// compare them, each map once, from its values' JSON, until
// [keyer.replace] changes it; maps with the same JSON get the same id.
type keyer struct {
	maps    map[uintptr]*keyed // by the map's address
	ids     map[string]int     // by JSON
	strings map[string]string  // strings and keys as JSON
}

// keyed is a map's JSON and id, and the map, kept so that its address is
// not reused while the keyer lives.
type keyed struct {
	m    map[string]any
	json string
	id   int
}

func newKeyer() *keyer {
	return &keyer{maps: map[uintptr]*keyed{}, ids: map[string]int{}, strings: map[string]string{}}
}

// entry is what k knows of m; false when m cannot be written (a NaN).
func (k *keyer) entry(m map[string]any) (*keyed, bool) {
	p := reflect.ValueOf(m).Pointer()
	if e, ok := k.maps[p]; ok {
		return e, true
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range slices.Sorted(maps.Keys(m)) {
		e, ok := k.key(m[name])
		if !ok {
			return nil, false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k.quote(name))
		b.WriteByte(':')
		b.WriteString(e)
	}
	b.WriteByte('}')
	e := &keyed{m: m, json: b.String()}
	id, ok := k.ids[e.json]
	if !ok {
		id = len(k.ids)
		k.ids[e.json] = id
	}
	e.id = id
	k.maps[p] = e
	return e, true
}

// key is v as JSON; false when it cannot be written (a NaN).
func (k *keyer) key(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return k.quote(v), true
	case map[string]any:
		e, ok := k.entry(v)
		if !ok {
			return "", false
		}
		return e.json, true
	case []any:
		var b strings.Builder
		b.WriteByte('[')
		for i, x := range v {
			e, ok := k.key(x)
			if !ok {
				return "", false
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(e)
		}
		b.WriteByte(']')
		return b.String(), true
	}
	out, err := json.Marshal(v)
	return string(out), err == nil
}

// quote is s as a JSON string, as json.Marshal writes it.
func (k *keyer) quote(s string) string {
	q, ok := k.strings[s]
	if !ok {
		b, _ := json.Marshal(s) // a string always marshals
		q = string(b)
		k.strings[s] = q
	}
	return q
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
func largestRepeat(keys *keyer, doc map[string]any, defs map[string]any) (*keyed, string) {
	count := map[int]int{}
	first := map[int]*keyed{}
	names := map[int]string{}
	var walk func(s map[string]any, name string, top bool)
	walk = func(s map[string]any, name string, top bool) {
		if !top {
			e, ok := keys.entry(s)
			if !ok {
				return
			}
			if count[e.id]++; count[e.id] == 1 {
				first[e.id], names[e.id] = e, name
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
	var best *keyed
	gain := 0
	for id, n := range count {
		e := first[id]
		if n < 2 || len(e.json) < minShared {
			continue
		}
		size := len(e.json)
		name := defName(names[id])
		// n copies become n references and one definition.
		g := (n-1)*size - n*(refLen+len(name)) - len(name) - 4
		if g > gain || g == gain && g > 0 && e.json < best.json {
			best, gain = e, g
		}
	}
	if best == nil {
		return nil, ""
	}
	return best, defName(names[best.id])
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

// replace puts ref in place of each subschema of m whose id is target,
// keeping the first it replaces in def, and forgets the JSON of the maps
// it changed. It reports whether it changed m.
func (k *keyer) replace(m map[string]any, target int, ref string, def *any) bool {
	changed := false
	set := func(s map[string]any) any {
		v, c := k.replaceIn(s, target, ref, def)
		changed = changed || c
		return v
	}
	for _, key := range shareOne {
		if s, ok := m[key].(map[string]any); ok {
			m[key] = set(s)
		}
	}
	for _, key := range shareList {
		if l, ok := m[key].([]any); ok {
			for i, e := range l {
				if s, ok := e.(map[string]any); ok {
					l[i] = set(s)
				}
			}
		}
	}
	for _, key := range shareMaps {
		if props, ok := m[key].(map[string]any); ok {
			for p, e := range props {
				if s, ok := e.(map[string]any); ok {
					props[p] = set(s)
				}
			}
			if changed {
				delete(k.maps, reflect.ValueOf(props).Pointer())
			}
		}
	}
	if changed {
		delete(k.maps, reflect.ValueOf(m).Pointer())
	}
	return changed
}

// replaceIn is s, or a reference in its place when its id is target,
// with the same done below it; and whether that changed anything.
func (k *keyer) replaceIn(s map[string]any, target int, ref string, def *any) (any, bool) {
	if e, ok := k.entry(s); ok && e.id == target {
		if *def == nil {
			*def = s
		}
		return map[string]any{"$ref": ref}, true
	}
	return s, k.replace(s, target, ref, def)
}
