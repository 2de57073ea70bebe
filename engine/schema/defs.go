package schema

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// defsPrefix starts a reference to a definition of the same document.
const defsPrefix = "#/$defs/"

// DefName is the name of the definition a reference such as
// "#/$defs/Pet" or "#/$defs/Pet/properties/name" points into, decoded
// (percent-escapes, then the JSON pointer's ~1 and ~0); ok is false for
// any other reference.
func DefName(ref string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(ref, defsPrefix)
	if !ok || rest == "" {
		return "", false
	}
	seg, _, _ := strings.Cut(rest, "/")
	if s, err := url.PathUnescape(seg); err == nil {
		seg = s
	}
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"), true
}

// DefRef is the reference to the definition name: "#/$defs/" and the name
// escaped as a JSON pointer's segment in a URI fragment.
func DefRef(name string) string {
	seg := strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
	return defsPrefix + (&url.URL{Fragment: seg}).EscapedFragment()
}

// WithDefs returns doc with the definitions it reaches under "$defs":
// those its references ("$ref": "#/$defs/name") name, and those theirs
// name, and so on; definitions nothing reaches are left out, so that a
// tool given a whole document's schemas lists only those it uses. doc's
// own "$defs" (an input_schema's) are kept, and win over defs of the same
// name. doc is not changed: a copy is returned when definitions are added.
func WithDefs(doc, defs map[string]any) map[string]any {
	if len(defs) == 0 || doc == nil {
		return doc
	}
	own, _ := doc["$defs"].(map[string]any)
	lookup := func(name string) (any, bool) {
		if d, ok := own[name]; ok {
			return d, true
		}
		d, ok := defs[name]
		return d, ok
	}
	reached := map[string]any{}
	var queue []string
	visit := func(name string) {
		if _, done := reached[name]; done {
			return
		}
		if d, ok := lookup(name); ok {
			reached[name] = d
			queue = append(queue, name)
		}
	}
	for k, v := range doc {
		if k != "$defs" {
			walkRefs(k, v, visit)
		}
	}
	for name := range own {
		visit(name) // kept as they are, reached or not
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		walkSchemaRefs(reached[name], visit)
	}
	if len(reached) == 0 {
		return doc
	}
	out := make(map[string]any, len(doc)+1)
	for k, v := range doc {
		out[k] = v
	}
	out["$defs"] = reached
	return out
}

// walkSchemaRefs calls visit with the definition named by each reference
// in the schema s, wherever a schema stands (not in enum, const, default
// or examples, whose values are data).
func walkSchemaRefs(s any, visit func(string)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		walkRefs(k, v, visit)
	}
}

// walkRefs is walkSchemaRefs for the keyword k of a schema, whose value is
// v.
func walkRefs(k string, v any, visit func(string)) {
	switch {
	case k == "$ref":
		if ref, ok := v.(string); ok {
			if name, ok := DefName(ref); ok {
				visit(name)
			}
		}
	case subschema[k]:
		if l, ok := v.([]any); ok { // draft 4's tuple items
			for _, e := range l {
				walkSchemaRefs(e, visit)
			}
			return
		}
		walkSchemaRefs(v, visit)
	case subschemaList[k]:
		l, _ := v.([]any)
		for _, e := range l {
			walkSchemaRefs(e, visit)
		}
	case subschemaMap[k] && k != "$defs" && k != "definitions":
		m, _ := v.(map[string]any)
		for _, e := range m {
			walkSchemaRefs(e, visit)
		}
	}
}

// Inline returns doc with its references to its own definitions replaced
// by what they refer to, and without "$defs": the form for clients that
// do not follow "$ref" (MCP revisions before 2025-11-25 name no dialect,
// and many of their clients read a schema as draft 7 or not at all).
// A definition that refers to itself is cut where it recurs. When the
// whole would take more than max bytes of JSON, definitions are cut
// shallower, down to none: a cut one is its type and its description,
// with a note saying so. cut reports whether anything was cut. doc is not
// changed; the result shares its data.
func Inline(doc map[string]any, max int) (out map[string]any, cut bool) {
	defs, _ := doc["$defs"].(map[string]any)
	if len(defs) == 0 {
		return doc, false
	}
	sizes := make(map[string]int, len(defs))
	for name, d := range defs {
		b, _ := json.Marshal(d)
		sizes[name] = len(b)
	}
	base := 0
	for k, v := range doc {
		if k != "$defs" {
			b, _ := json.Marshal(v)
			base += len(k) + len(b)
		}
	}
	for _, depth := range []int{maxInlineDepth, 6, 3, 1, 0} {
		in := &inliner{defs: defs, sizes: sizes, depth: depth, budget: max - base}
		res, ok := in.schema(withoutDefs(doc), nil)
		if !ok {
			continue
		}
		m := res.(map[string]any)
		if in.kept {
			m["$defs"] = defs
		}
		if b, err := json.Marshal(m); err == nil && len(b) <= max || depth == 0 {
			return m, in.cut
		}
	}
	return doc, false // not reached: depth 0 always answers
}

// maxInlineDepth bounds how many definitions deep Inline goes at most.
const maxInlineDepth = 32

func withoutDefs(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "$defs" {
			out[k] = v
		}
	}
	return out
}

// inliner replaces references by definitions, within a budget of bytes.
type inliner struct {
	defs   map[string]any
	sizes  map[string]int
	depth  int // definitions deeper than this are cut
	budget int // bytes the inlined definitions may still add
	cut    bool
	// kept is set when a reference into a definition (not to a whole
	// one) is left as it is: the definitions must then stay.
	kept bool
}

// schema inlines the references of the schema s; stack holds the
// definitions being inlined. ok is false when the budget ran out.
func (in *inliner) schema(s any, stack []string) (any, bool) {
	m, isMap := s.(map[string]any)
	if !isMap {
		return s, true
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k == "$ref" {
			continue
		}
		nv, ok := in.keyword(k, v, stack)
		if !ok {
			return nil, false
		}
		out[k] = nv
	}
	ref, _ := m["$ref"].(string)
	name, isDef := DefName(ref)
	def, found := in.defs[name]
	if !isDef || !found || strings.Contains(strings.TrimPrefix(ref, defsPrefix), "/") {
		if ref != "" {
			out["$ref"] = ref // another reference: left as it is
			in.kept = in.kept || isDef
		}
		return out, true
	}
	var target any
	if recursive := slices.Contains(stack, name); recursive || len(stack) >= in.depth {
		in.cut = true
		target = stub(def, name, recursive)
	} else {
		in.budget -= in.sizes[name]
		if in.budget < 0 {
			return nil, false
		}
		var ok bool
		if target, ok = in.schema(def, append(stack, name)); !ok {
			return nil, false
		}
	}
	return merge(target, out), true
}

// keyword inlines the references in the value v of a schema's keyword k.
func (in *inliner) keyword(k string, v any, stack []string) (any, bool) {
	switch {
	case subschema[k]:
		if l, ok := v.([]any); ok {
			return in.list(l, stack)
		}
		return in.schema(v, stack)
	case subschemaList[k]:
		if l, ok := v.([]any); ok {
			return in.list(l, stack)
		}
	case subschemaMap[k]:
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for name, e := range m {
				ne, ok := in.schema(e, stack)
				if !ok {
					return nil, false
				}
				out[name] = ne
			}
			return out, true
		}
	}
	return v, true
}

func (in *inliner) list(l []any, stack []string) (any, bool) {
	out := make([]any, len(l))
	for i, e := range l {
		var ok bool
		if out[i], ok = in.schema(e, stack); !ok {
			return nil, false
		}
	}
	return out, true
}

// stub stands for the definition name where it is cut: its type, and its
// description with a note.
func stub(def any, name string, recursive bool) map[string]any {
	d, _ := def.(map[string]any)
	out := map[string]any{}
	if t, ok := d["type"]; ok {
		out["type"] = t
	}
	note := "(" + name + ": not written out this deep; a client of MCP revision 2025-11-25 or later sees the whole schema)"
	if recursive {
		note = "(" + name + ", recursive: the same schema as the enclosing " + name + ")"
	}
	if desc, ok := d["description"].(string); ok && desc != "" {
		note = desc + " " + note
	}
	out["description"] = note
	return out
}

// merge is the schema target (an inlined definition) with the keywords
// written beside its reference: annotations replace the definition's,
// and any other keyword both share makes the two an allOf.
func merge(target any, siblings map[string]any) any {
	if len(siblings) == 0 {
		return target
	}
	t, ok := target.(map[string]any)
	clash := !ok // true or false

	for k := range siblings {
		if _, has := t[k]; has && !descriptive[k] {
			clash = true
		}
	}
	if clash {
		out := make(map[string]any, len(siblings)+1)
		for k, v := range siblings {
			out[k] = v
		}
		out["allOf"] = append([]any{target}, listOf(siblings["allOf"])...)
		return out
	}
	out := make(map[string]any, len(t)+len(siblings))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range siblings {
		out[k] = v
	}
	return out
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}
