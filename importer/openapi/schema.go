package openapi

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// maxSchemaDepth bounds how deep a schema is written out; below it, a
// schema is {} (any value). Recursion is cut where it recurs.
const maxSchemaDepth = 12

// localRef stands for a named schema written once as a local value and
// referred to as local.<name>.
type localRef string

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
}

// use notes that a written tool or local refers to the local n.
func (l *locals) use(n string) {
	l.mu.Lock()
	l.used[n] = true
	l.mu.Unlock()
}

func newLocals() *locals {
	return &locals{values: map[string]any{}, state: map[string]int{}, name: map[string]string{}, taken: names{}, used: map[string]bool{}}
}

// resolve is the schema a local reference stands for, or s itself.
func (l *locals) resolve(s any) any {
	for {
		r, ok := s.(localRef)
		if !ok || l == nil {
			return s
		}
		s = l.values[string(r)]
	}
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

// walk converts v. stack holds the references being inlined (a cycle is
// cut), depth bounds nesting, and level is how many named schemas deep it
// may still go.
func (c *converter) walk(v any, doc string, stack []string, depth, level int) any {
	if depth > maxSchemaDepth {
		return map[string]any{}
	}
	if m, ok := v.(map[string]any); ok {
		if ref, ok := m["$ref"].(string); ok {
			key := refKey(ref, doc)
			if strings.HasPrefix(ref, "#") {
				key = doc + ref
			}
			for _, k := range stack {
				if k == key {
					return map[string]any{"description": "(recursive: " + refName(ref) + ")"}
				}
			}
			target, tdoc, err := c.spec.resolve(ref, doc)
			if err != nil {
				if c.broken == nil {
					c.broken = err
				}
				return map[string]any{}
			}
			if n, ok := named(ref); ok && c.locals != nil {
				if level == 0 && composite(target) {
					stub := map[string]any{"description": "A " + n + "."}
					if d := str(obj(target)["description"]); d != "" {
						stub["description"] = trimText(d, 300)
					}
					if t := obj(target)["type"]; t != nil {
						stub["type"] = t
					}
					return stub
				}
				if level > 0 {
					lkey := fmt.Sprint(level, key)
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
	}
	m, ok := v.(map[string]any)
	if !ok {
		if v == false {
			return map[string]any{"not": map[string]any{}}
		}
		return map[string]any{} // true, or a document's mistake: any value
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		if !keywords[k] || !validKeyword(k, e) {
			continue
		}
		switch k {
		case "properties", "patternProperties", "dependentSchemas":
			props := map[string]any{}
			for name, ps := range obj(e) {
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
		case "allOf", "anyOf", "oneOf", "prefixItems":
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
	return out
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
