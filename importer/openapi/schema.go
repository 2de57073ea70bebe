package openapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// maxSchemaDepth bounds how deep a schema is written out; below it, a
// schema is {} (any value). Recursion is cut where it recurs.
const maxSchemaDepth = 12

// maxDefDepth is maxSchemaDepth within a definition of a tool's input.
// There every reference to a schema that may hold others is a definition
// of its own, so the depth is the document's own nesting, which Azure's
// documents, bundled from several files, take past twelve levels.
const maxDefDepth = 64

// localRef stands for a named schema written once as a local value and
// referred to as local.<name>.
type localRef string

// defRef stands for a named schema of a tool's input, written once in
// the file's definitions (a local that each tool gives as its defs) and
// referred to as {"$ref": "#/$defs/<name>"} (its name is of letters,
// digits and underscores: nothing to escape).
type defRef string

// keywords are the JSON Schema 2020-12 keywords kept; everything else
// (OpenAPI's discriminator, xml, example, extensions…) is dropped.
var keywords = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "default": true, "enum": true, "const": true,
	"multipleOf": true, "maximum": true, "minimum": true, "exclusiveMaximum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true, "maxItems": true, "minItems": true, "uniqueItems": true,
	"maxProperties": true, "minProperties": true, "required": true, "properties": true, "patternProperties": true,
	"additionalProperties": true, "items": true, "prefixItems": true, "contains": true, "minContains": true,
	"maxContains": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true,
	"else": true, "propertyNames": true, "dependentRequired": true, "dependentSchemas": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "contentMediaType": true, "contentEncoding": true,
}

// converter turns OpenAPI schemas into JSON Schema 2020-12: OpenAPI
// 3.0's nullable and boolean exclusive bounds rewritten, patterns Go
// cannot run dropped, and references either to named schemas (written
// once, as locals) or inlined, with recursion cut where it recurs.
type converter struct {
	spec   *Spec
	locals *locals
	// dropped notes what could not be kept, such as a pattern.
	dropped []string
	// broken is the first broken reference met.
	broken error
	// dynamic is the dynamic scope: the $dynamicAnchors of the schemas
	// being converted, outermost first.
	dynamic []anchor
	// textBudget is the longest description, in bytes (see texts.go).
	textBudget int
	// output is set for a response's schema.
	output bool
	// defs is set for a tool's input: a named schema that may hold
	// others is a definition (defRef), written whole, at any depth.
	// Otherwise (outputs) it is a local, and named levels bound it.
	defs bool
	// here is set for the next call of walk: the schema it is given is
	// written in place even if a reference points to it (see pointed).
	here bool
}

// locals are the named schemas of a document, converted once each.
type locals struct {
	values map[string]any    // by local name
	state  map[string]int    // by reference key: 1 converting, 2 done
	name   map[string]string // local name by reference key
	taken  names
	order  []string // local names, each after those it refers to

	mu   sync.Mutex      // guards used: tools are rendered concurrently
	used map[string]bool // the locals the written tools refer to

	// The definitions of the tools' inputs.
	defs      map[string]any    // by definition name
	defState  map[string]int    // by reference key: 1 converting, 2 done
	defName   map[string]string // definition name by reference key
	defsTaken names
	defsUsed  map[string]bool     // the definitions the written tools refer to
	defSize   map[string]int      // bytes of each definition's JSON, measured once
	defEdges  map[string][]string // the definitions each definition refers to
	// pointers are the schemas references point into (see
	// Spec.pointers), found once, when a tool's input first needs them.
	pointers map[uintptr]pointer
}

// use notes that a written tool or local refers to the local n.
func (l *locals) use(n string) {
	l.mu.Lock()
	l.used[n] = true
	l.mu.Unlock()
}

// useDef notes that a written tool refers to the definition n.
func (l *locals) useDef(n string) {
	l.mu.Lock()
	l.defsUsed[n] = true
	l.mu.Unlock()
}

func newLocals() *locals {
	return &locals{values: map[string]any{}, state: map[string]int{}, name: map[string]string{}, taken: names{}, used: map[string]bool{},
		defs: map[string]any{}, defState: map[string]int{}, defName: map[string]string{}, defsTaken: names{}, defsUsed: map[string]bool{},
		defSize: map[string]int{}, defEdges: map[string][]string{}}
}

// resolve is the schema a local or a definition reference stands for, or
// s itself.
func (l *locals) resolve(s any) any {
	for l != nil {
		switch r := s.(type) {
		case localRef:
			s = l.values[string(r)]
		case defRef:
			s = l.defs[string(r)]
		default:
			return s
		}
	}
	return s
}

// reach is how many bytes of JSON the definitions that the schemas ss
// refer to take, with those they refer to in turn: what a tool with these
// arguments lists under $defs. It stops counting once past limit (when
// limit is not negative), so that a tool of a document whose schemas all
// refer to each other costs no more than the budget to measure.
func (l *locals) reach(ss []any, limit int) int {
	seen := map[string]bool{}
	var queue []string
	for _, s := range ss {
		for _, d := range defRefs(s, nil) {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	total := 0
	for len(queue) > 0 && (limit < 0 || total <= limit) {
		n := queue[0]
		queue = queue[1:]
		size, ok := l.defSize[n]
		if !ok {
			b, _ := json.Marshal(l.defs[n]) // a defRef is a string: as long as its name
			size = len(b)
			l.defSize[n] = size
			l.defEdges[n] = slices.Compact(slices.Sorted(slices.Values(defRefs(l.defs[n], nil))))
		}
		total += size
		for _, d := range l.defEdges[n] {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	return total
}

// defNameRE is a name of a document's schema kept as the name of its
// definition: references and HCL keys take it as it is.
var defNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,99}$`)

// def converts the named schema n (target, the reference key key) as a
// definition, once: a reference to it met while it is being converted
// (a recursive schema) is a reference like any other.
func (c *converter) def(n, key string, target any, tdoc string) defRef {
	l := c.locals
	dkey := key + c.scope(target)
	if l.defState[dkey] != 0 {
		return defRef(l.defName[dkey])
	}
	name := n
	if !defNameRE.MatchString(name) {
		name = identifier(n, "s")
	}
	name = l.defsTaken.unique(name, 100)
	l.defName[dkey] = name
	l.defState[dkey] = 1
	c.here = true
	l.defs[name] = c.walk(target, tdoc, []string{key}, 0, namedLevels)
	l.defState[dkey] = 2
	return defRef(name)
}

// named reports whether a reference names a reusable schema, and its name.
func named(ref string) (string, bool) {
	for _, prefix := range []string{"#/components/schemas/", "#/definitions/"} {
		if i := strings.Index(ref, prefix); i >= 0 && !strings.Contains(ref[i+len(prefix):], "/") {
			return ref[i+len(prefix):], true
		}
	}
	return "", false
}

// namedLevels is how many named schemas deep a schema is written out: a
// tool's schema shows the named schemas it refers to (as schema_x locals)
// and those they refer to (as schema_y_brief locals); deeper, an object is
// {"type": "object"} with its description. Without this bound, documents
// whose schemas all refer to each other (Microsoft Graph's) would write
// every tool's schema as the whole document.
const namedLevels = 2

// convert returns the JSON Schema of v, read from document doc.
func (c *converter) convert(v any, doc string) any {
	return c.walk(v, doc, nil, 0, namedLevels)
}

// convertFlat converts the schema of a request body whose properties
// become a tool's arguments. The body is not written as a schema of its
// own, so it spends no named level: the references at its top, and those
// of its allOf parts, are followed in place, and its properties are
// written as deep as a parameter's schema would be. The caller checks that
// the result flattens (objectShape), and converts the body as a whole
// when it does not.
func (c *converter) convertFlat(v any, doc string) any {
	return c.flat(v, doc, nil, 0)
}

func (c *converter) flat(v any, doc string, stack []string, depth int) any {
	m := obj(v)
	c.here = true // the body's own schema, whose properties become arguments
	if m == nil || depth > maxSchemaDepth || m["nullable"] == true || m["x-nullable"] == true {
		return c.walk(v, doc, stack, depth, namedLevels)
	}
	if n := c.bind(m, doc); n > 0 {
		defer c.unbind(n)
	}
	if ref, ok := m["$ref"].(string); ok {
		key := refID(ref, doc)
		target, tdoc, err := c.spec.resolve(ref, doc)
		if err != nil || slices.Contains(stack, key) {
			return c.walk(v, doc, stack, depth, namedLevels) // reported, or cut, there
		}
		return c.flat(target, tdoc, append(stack, key), depth+1)
	}
	parts := list(m["allOf"])
	if len(parts) == 0 || foldable(m) {
		return c.walk(m, doc, stack, depth, namedLevels)
	}
	c.here = false
	rest := make(map[string]any, len(m))
	for k, e := range m {
		if k != "allOf" && k != "$defs" {
			rest[k] = e
		}
	}
	out := obj(c.walk(rest, doc, stack, depth, namedLevels))
	flat := make([]any, len(parts))
	for i, p := range parts {
		flat[i] = c.flat(p, doc, stack, depth+1)
	}
	out["allOf"] = flat
	return out
}

// walk converts v. stack holds the references being inlined (a cycle is
// cut), depth bounds nesting, and level is how many named schemas deep it
// may still go.
func (c *converter) walk(v any, doc string, stack []string, depth, level int) any {
	here := c.here
	c.here = false
	limit := maxSchemaDepth
	if c.defs {
		limit = maxDefDepth
	}
	if depth > limit {
		return map[string]any{}
	}
	if m, ok := v.(map[string]any); ok {
		if p, ok := c.pointed(m); ok && !here {
			// Written in place, it would be written again where the
			// references to it are.
			return c.def(p.name, p.key, m, doc)
		}
		if n := c.bind(m, doc); n > 0 {
			defer c.unbind(n)
		}
		if ref, ok := m["$ref"].(string); ok {
			return c.ref(ref, doc, stack, depth, level, true)
		}
		if ref, ok := m["$dynamicRef"].(string); ok {
			return c.dynamicRef(ref, stack, depth, level)
		}
		if foldable(m) {
			return c.fold(m, doc, stack, depth, level)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		if v == false {
			return map[string]any{"not": map[string]any{}}
		}
		return map[string]any{} // true, or a document's mistake: any value
	}
	out := make(map[string]any, len(m))
	// Keywords and properties are walked in order: the order references
	// are first met in names their definitions and locals (Pet, then
	// Pet_2), and every import must write the same files.
	for _, k := range sortedKeys(m) {
		e := m[k]
		if !keywords[k] || !validKeyword(k, e) || c.output && (k == "readOnly" || k == "writeOnly") {
			continue // of an output, every field is read: readOnly says nothing
		}
		switch k {
		case "properties", "patternProperties", "dependentSchemas":
			props := map[string]any{}
			for _, name := range sortedKeys(obj(e)) {
				ps := obj(e)[name]
				if k == "patternProperties" && !goRegexp(name) {
					c.dropped = append(c.dropped, "the pattern property "+name+" (a regular expression Go cannot run)")
					continue
				}
				props[name] = c.walk(ps, doc, stack, depth+1, level)
			}
			out[k] = props
		case "items":
			if l, ok := e.([]any); ok { // draft 4 tuple form
				out["prefixItems"] = c.walkList(l, doc, stack, depth, level)
				continue
			}
			out[k] = c.walk(e, doc, stack, depth+1, level)
		case "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
			"unevaluatedProperties", "unevaluatedItems":
			out[k] = c.walk(e, doc, stack, depth+1, level)
		case "allOf":
			out[k] = c.allOf(m, doc, stack, depth, level)
		case "anyOf", "oneOf", "prefixItems":
			out[k] = c.walkList(list(e), doc, stack, depth, level)
		case "pattern":
			if p, ok := e.(string); ok && goRegexp(p) && norm.NFC.IsNormalString(p) {
				out[k] = p
			} else {
				c.dropped = append(c.dropped, "the pattern "+str(e)+" (a regular expression Go cannot run)")
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			if b, ok := e.(bool); ok { // OpenAPI 3.0 and Swagger 2.0
				bound := "minimum"
				if k == "exclusiveMaximum" {
					bound = "maximum"
				}
				if b && m[bound] != nil {
					out[k] = m[bound]
				}
				continue
			}
			out[k] = e
		case "type":
			out[k] = schemaType(e)
		case "required":
			if l, ok := e.([]any); ok && len(l) > 0 {
				out[k] = l
			}
		default:
			out[k] = e
		}
	}
	// Bounds made exclusive above replace the inclusive ones.
	for _, k := range []string{"minimum", "maximum"} {
		ex := "exclusiveM" + k[1:]
		if b, ok := m[ex].(bool); ok && b {
			delete(out, k)
		}
	}
	// OpenAPI 3.0's nullable, and x-nullable, its Swagger 2.0 extension
	// that servers and mock servers honour alike.
	if m["nullable"] == true || m["x-nullable"] == true {
		nullable(out)
	}
	c.describe(out, m)
	return out
}

// ref converts a reference. For a tool's input, a reference to a schema
// that may hold others is a definition: a named schema's, or, for a
// pointer into one (such as #/components/schemas/Server/properties/ip,
// which documents bundled from several files are full of), one named
// after the path. Otherwise a reference to a named schema is a local
// (while named levels remain; past them, an object is cut to its type and
// description unless stub is false); to anything else, the target
// inlined. A reference to a schema being inlined is a cycle, cut.
func (c *converter) ref(ref, doc string, stack []string, depth, level int, stub bool) any {
	key := refID(ref, doc)
	if c.locals != nil && c.defs {
		// A definition may refer to itself: nothing to cut. A pointer
		// inlined instead would be written out again, a level deeper,
		// wherever it is met, and a chain of them (Azure's network
		// interfaces and address pools) cut by depth, not where it recurs.
		if target, tdoc, err := c.spec.resolve(ref, doc); err == nil && composite(target) {
			n, ok := named(ref)
			if !ok {
				n = pointerName(ref)
				if p, ok := c.pointed(obj(target)); ok {
					n, key = p.name, p.key
				}
			}
			return c.def(n, key, target, tdoc)
		}
	}
	if slices.Contains(stack, key) {
		return map[string]any{"description": "(recursive: " + refName(ref) + ")"}
	}
	target, tdoc, err := c.spec.resolve(ref, doc)
	if err != nil {
		if c.broken == nil {
			c.broken = err
		}
		return map[string]any{}
	}
	if n, ok := named(ref); ok && c.locals != nil && !c.defs {
		if level == 0 && stub && composite(target) {
			stub := map[string]any{"description": "A " + n + "."}
			if d := fitText(str(obj(target)["description"]), budget(obj(target), min(300, c.textBudget))); d != "" {
				stub["description"] = d
			}
			if t := obj(target)["type"]; t != nil {
				stub["type"] = t
			}
			return stub
		}
		if level > 0 {
			// A schema holding a $dynamicRef means what the anchors bound
			// around it say: one local per binding.
			lkey := fmt.Sprint(level, key) + c.scope(target)
			switch c.locals.state[lkey] {
			case 2:
				return localRef(c.locals.name[lkey])
			case 0:
				c.locals.state[lkey] = 1
				v := c.walk(target, tdoc, []string{key}, 0, level-1)
				name := "schema_" + identifier(n, "s")
				if level < namedLevels {
					name += "_brief"
				}
				local := c.locals.taken.unique(name, 120)
				c.locals.values[local] = v
				c.locals.name[lkey] = local
				c.locals.state[lkey] = 2
				c.locals.order = append(c.locals.order, local)
				return localRef(local)
			}
		}
		// Being converted (a cycle), or a plain value at the last
		// level: inlined, a cycle cut below.
	}
	return c.walk(target, tdoc, append(stack, key), depth+1, level)
}

// anchor is a $dynamicAnchor in the dynamic scope: the schema that a
// $dynamicRef to its name stands for.
type anchor struct {
	name   string
	schema map[string]any
	doc    string
}

// bind adds the $dynamicAnchors that schema m declares (itself, and in its
// $defs) to the dynamic scope, and returns how many; unbind takes them out
// when m has been converted.
func (c *converter) bind(m map[string]any, doc string) int {
	n := 0
	if a, ok := m["$dynamicAnchor"].(string); ok {
		c.dynamic = append(c.dynamic, anchor{a, m, doc})
		n++
	}
	defs := obj(m["$defs"])
	for _, k := range sortedKeys(defs) {
		d := obj(defs[k])
		if a, ok := d["$dynamicAnchor"].(string); ok {
			c.dynamic = append(c.dynamic, anchor{a, d, doc})
			n++
		}
	}
	return n
}

func (c *converter) unbind(n int) { c.dynamic = c.dynamic[:len(c.dynamic)-n] }

// dynamicRef converts a $dynamicRef (JSON Schema 2020-12): it stands for
// the outermost schema of the dynamic scope that declares its anchor, such
// as the item type a response binds a generic paginated schema to. A
// reference to another document, or to an anchor nothing declares, is any
// value.
func (c *converter) dynamicRef(ref string, stack []string, depth, level int) any {
	name, ok := strings.CutPrefix(ref, "#")
	if !ok || name == "" || strings.Contains(name, "/") {
		return map[string]any{}
	}
	for _, a := range c.dynamic {
		if a.name != name {
			continue
		}
		key := fmt.Sprintf("%s#$dynamicAnchor:%s:%p", a.doc, name, a.schema)
		if slices.Contains(stack, key) {
			return map[string]any{"description": "(recursive: " + name + ")"}
		}
		return c.walk(a.schema, a.doc, append(stack, key), depth+1, level)
	}
	return map[string]any{}
}

// scope is what of the dynamic scope a named schema's conversion depends
// on: nothing, unless the schema holds a $dynamicRef and anchors are bound.
func (c *converter) scope(target any) string {
	if len(c.dynamic) == 0 || !hasDynamicRef(target, 0) {
		return ""
	}
	var b strings.Builder
	for _, a := range c.dynamic {
		fmt.Fprintf(&b, "\x00%s=%s%p", a.name, a.doc, a.schema)
	}
	return b.String()
}

// hasDynamicRef reports whether a schema holds a $dynamicRef (references
// are not followed).
func hasDynamicRef(v any, depth int) bool {
	if depth > maxSchemaDepth {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["$dynamicRef"]; ok {
			return true
		}
		for _, e := range x {
			if hasDynamicRef(e, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasDynamicRef(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// foldable reports whether a schema is allOf: [{required: […]}, {$ref: X}]
// (in any order, with more required-only parts, a description or a title):
// X with more fields required, as documents write a schema for creating a
// thing from the one for updating it.
func foldable(m map[string]any) bool {
	parts := list(m["allOf"])
	if len(parts) < 2 || m["nullable"] == true || m["x-nullable"] == true {
		return false
	}
	for k, e := range m {
		switch {
		case k == "allOf", k == "required", k == "description", k == "title", strings.HasPrefix(k, "x-"):
		case k == "type" && e == "object":
		default:
			return false
		}
	}
	refs := 0
	for _, p := range parts {
		pm := obj(p)
		if _, ok := pm["$ref"].(string); ok {
			if len(pm) != 1 {
				return false
			}
			refs++
			continue
		}
		if len(list(pm["required"])) == 0 {
			return false
		}
		for k, e := range pm {
			switch {
			case k == "required", k == "description", k == "title":
			case k == "type" && e == "object":
			default:
				return false
			}
		}
	}
	return refs == 1
}

// fold converts a foldable schema as its referenced schema, inlined at
// this level, with the parts' required lists added: written as a local,
// the reference would spend a named level, and past the last one its
// properties would be cut while the required list still named them.
func (c *converter) fold(m map[string]any, doc string, stack []string, depth, level int) any {
	required := list(m["required"])
	var ref string
	for _, p := range list(m["allOf"]) {
		pm := obj(p)
		if r, ok := pm["$ref"].(string); ok {
			ref = r
			continue
		}
		required = append(required, list(pm["required"])...)
	}
	// The target, followed through references in place.
	target, tdoc := any(map[string]any{"$ref": ref}), doc
	for i := 0; ; i++ {
		r, ok := obj(target)["$ref"].(string)
		if !ok {
			break
		}
		key := refID(r, tdoc)
		if i == 32 || slices.Contains(stack, key) {
			return c.walk(map[string]any{"allOf": m["allOf"]}, doc, stack, depth, level)
		}
		t, d, err := c.spec.resolve(r, tdoc)
		if err != nil {
			if c.broken == nil {
				c.broken = err
			}
			return map[string]any{}
		}
		target, tdoc, stack = t, d, append(stack, key)
	}
	out := obj(c.walk(target, tdoc, stack, depth+1, level))
	if out == nil { // the target was itself a reference, written as a local
		out = map[string]any{"allOf": []any{c.walk(target, tdoc, stack, depth+1, level)}}
	}
	seen := map[string]bool{}
	var all []any
	for _, r := range append(list(out["required"]), required...) {
		if s, ok := r.(string); ok && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	if len(all) > 0 {
		out["required"] = all
	}
	for _, k := range []string{"description", "title"} {
		if s, ok := m[k].(string); ok {
			out[k] = s
		}
	}
	if m["type"] == "object" && out["type"] == nil {
		out["type"] = "object"
	}
	c.describe(out, m)
	return out
}

// allOf converts the parts of m's allOf. Past the named levels, a
// referenced part whose properties a sibling's required list names (m's,
// or another part's) is written out, not cut to its type: the list would
// require fields the schema does not type.
func (c *converter) allOf(m map[string]any, doc string, stack []string, depth, level int) []any {
	parts := list(m["allOf"])
	var required []any
	if level == 0 {
		required = list(m["required"])
		for _, p := range parts {
			required = append(required, list(obj(p)["required"])...)
		}
	}
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		if r, ok := obj(p)["$ref"].(string); ok && len(required) > 0 && c.names(r, doc, required) {
			out = append(out, c.ref(r, doc, stack, depth+1, level, false))
			continue
		}
		out = append(out, c.walk(p, doc, stack, depth+1, level))
	}
	return out
}

// names reports whether the schema a reference points to has a property
// of one of the names, itself or in its allOf parts.
func (c *converter) names(ref, doc string, names []any) bool {
	target, tdoc, _, err := c.spec.deref(map[string]any{"$ref": ref}, doc)
	if err != nil {
		return false
	}
	m := obj(target)
	schemas := []map[string]any{m}
	for _, p := range list(m["allOf"]) {
		if pm, _, _, err := c.spec.deref(p, tdoc); err == nil {
			schemas = append(schemas, obj(pm))
		}
	}
	for _, s := range schemas {
		props := obj(s["properties"])
		for _, n := range names {
			if _, ok := props[str(n)]; ok {
				return true
			}
		}
	}
	return false
}

func (c *converter) walkList(l []any, doc string, stack []string, depth, level int) []any {
	out := make([]any, 0, len(l))
	for _, e := range l {
		out = append(out, c.walk(e, doc, stack, depth+1, level))
	}
	return out
}

// nullable lets a schema accept null too.
func nullable(s map[string]any) {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		for _, e := range t {
			if e == "null" {
				return
			}
		}
		s["type"] = append(t, "null")
	default:
		if s["type"] == nil && len(s) > 0 && (s["allOf"] != nil || s["oneOf"] != nil || s["anyOf"] != nil) {
			s2 := map[string]any{}
			for k, v := range s {
				s2[k] = v
				delete(s, k)
			}
			s["anyOf"] = []any{s2, map[string]any{"type": "null"}}
			return
		}
	}
	if e, ok := s["enum"].([]any); ok {
		s["enum"] = append(e, nil)
	}
}

// types are the names JSON Schema's type keyword takes.
var types = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// schemaType is a valid type keyword from what a document says: Swagger's
// file is a string.
func schemaType(e any) any {
	if e == "file" {
		return "string"
	}
	if l, ok := e.([]any); ok {
		var out []any
		for _, t := range l {
			if s, ok := t.(string); ok && types[s] {
				out = append(out, s)
			}
		}
		return out
	}
	return e
}

// validKeyword reports whether a keyword's value has the kind JSON Schema
// requires of it: a document that breaks this (a description that is a
// number, a type that is an object) would make the tool's schema invalid.
func validKeyword(k string, e any) bool {
	switch k {
	case "type":
		if s, ok := e.(string); ok {
			return types[s] || s == "file"
		}
		l, ok := e.([]any)
		return ok && len(schemaType(l).([]any)) > 0
	case "format", "title", "description", "pattern", "contentMediaType", "contentEncoding":
		_, ok := e.(string)
		return ok
	case "multipleOf":
		return isNumber(e) && e != nil && toFloat(e) > 0
	case "maximum", "minimum":
		return e != nil && isNumber(e)
	case "exclusiveMaximum", "exclusiveMinimum":
		_, isBool := e.(bool)
		return isBool || e != nil && isNumber(e)
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "minContains", "maxContains":
		return e != nil && isCount(e)
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		_, ok := e.(bool)
		return ok
	case "enum":
		_, ok := e.([]any)
		return ok
	case "required":
		l, ok := e.([]any)
		for _, r := range l {
			if _, isString := r.(string); !isString {
				return false
			}
		}
		return ok
	case "properties", "patternProperties", "dependentSchemas", "dependentRequired":
		_, ok := e.(map[string]any)
		return ok
	case "allOf", "anyOf", "oneOf", "prefixItems":
		l, ok := e.([]any)
		return ok && len(l) > 0
	case "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
		"unevaluatedProperties", "unevaluatedItems":
		switch e.(type) {
		case map[string]any, bool:
			return true
		case []any:
			return k == "items"
		}
		return false
	}
	return true
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// composite reports whether a schema may hold other schemas: an object,
// a list, a combination.
func composite(v any) bool {
	m := obj(v)
	for _, k := range []string{"properties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "not", "$ref", "patternProperties"} {
		if m[k] != nil {
			return true
		}
	}
	return m["type"] == "object" || m["type"] == "array"
}

// pointer is a schema that a reference of the document points into (not
// to a named schema, such as #/components/schemas/Server/properties/ip):
// in a tool's input it is a definition, written once whether it is met
// through a reference or in place, under one key and one name.
type pointer struct{ key, name string }

// pointed reports whether m is a schema that a reference points into, for
// a tool's input.
func (c *converter) pointed(m map[string]any) (pointer, bool) {
	if !c.defs || c.locals == nil || m == nil {
		return pointer{}, false
	}
	if c.locals.pointers == nil {
		c.locals.pointers = c.spec.pointers()
	}
	p, ok := c.locals.pointers[reflect.ValueOf(m).Pointer()]
	return p, ok
}

// pointers finds the schemas that the references of the documents read
// so far (and of those they name) point into, other than named schemas
// and values that hold no schema: each under the least of the keys of
// the references to it, whatever order they are met in.
func (s *Spec) pointers() map[uintptr]pointer {
	out := map[uintptr]pointer{}
	scanned := map[string]bool{}
	var visit func(v any, loc string)
	visit = func(v any, loc string) {
		switch t := v.(type) {
		case map[string]any:
			if ref, ok := t["$ref"].(string); ok {
				if _, isNamed := named(ref); !isNamed {
					if target, _, err := s.resolve(ref, loc); err == nil && composite(target) {
						p, key := reflect.ValueOf(target).Pointer(), refID(ref, loc)
						if had, ok := out[p]; !ok || key < had.key {
							out[p] = pointer{key, pointerName(ref)}
						}
					}
				}
			}
			for _, e := range t {
				visit(e, loc)
			}
		case []any:
			for _, e := range t {
				visit(e, loc)
			}
		}
	}
	for {
		var locs []string
		for loc := range s.docs {
			if !scanned[loc] {
				locs = append(locs, loc)
			}
		}
		if len(locs) == 0 {
			return out
		}
		for _, loc := range locs {
			scanned[loc] = true
			visit(s.docs[loc], loc)
		}
	}
}

// pointerName names the definition of a reference that is not to a named
// schema: the schema it points into, then the properties and keywords on
// the way (the last three), such as Server_ip_item for
// #/components/schemas/Server/properties/ip/items.
func pointerName(ref string) string {
	file, pointer, _ := strings.Cut(ref, "#")
	for _, prefix := range []string{"/components/schemas/", "/definitions/"} {
		if i := strings.LastIndex(pointer, prefix); i >= 0 {
			pointer = pointer[i+len(prefix):]
			break
		}
	}
	var segs []string
	for _, s := range strings.Split(strings.Trim(pointer, "/"), "/") {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		segs = append(segs, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
	}
	if segs[0] == "" { // a whole document
		segs[0] = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	parts := []string{segs[0]}
	for i := 1; i < len(segs); i++ {
		switch k := segs[i]; k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			if i+1 < len(segs) {
				i++
				parts = append(parts, segs[i])
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if i+1 < len(segs) {
				i++
				k += segs[i]
			}
			parts = append(parts, k)
		case "items":
			parts = append(parts, "item")
		default:
			parts = append(parts, k)
		}
	}
	if len(parts) > 4 {
		parts = append(parts[:1], parts[len(parts)-3:]...)
	}
	return strings.Join(parts, "_")
}

// refName is the last segment of a reference, for messages.
func refName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

// goRegexp reports whether Go's regexp (RE2), which validates patterns,
// can run p.
func goRegexp(p string) bool {
	_, err := regexp.Compile(p)
	return err == nil
}

// objectShape returns the properties and required names of a converted
// schema that is an object with properties, merging allOf parts that are
// themselves objects; ok is false for any other schema.
func (l *locals) objectShape(s any) (props map[string]any, required map[string]bool, ok bool) {
	m := obj(l.resolve(s))
	if m == nil {
		return nil, nil, false
	}
	props, required = map[string]any{}, map[string]bool{}
	var merge func(m map[string]any) bool
	merge = func(m map[string]any) bool {
		if t, has := m["type"]; has && t != "object" {
			return false
		}
		if m["oneOf"] != nil || m["anyOf"] != nil || m["not"] != nil || m["if"] != nil {
			return false
		}
		for k, v := range obj(m["properties"]) {
			if _, dup := props[k]; !dup {
				props[k] = v
			}
		}
		for _, r := range list(m["required"]) {
			required[str(r)] = true
		}
		for _, part := range list(m["allOf"]) {
			pm := obj(l.resolve(part))
			if pm == nil || !merge(pm) {
				return false
			}
		}
		return true
	}
	if !merge(m) || len(props) == 0 {
		return nil, nil, false
	}
	return props, required, true
}
