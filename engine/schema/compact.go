package schema

import "strings"

// descriptive are the JSON Schema 2020-12 annotations, which only describe:
// no validator accepts or refuses a value for them.
var descriptive = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
	"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
}

// Keywords whose value is a schema, a list of schemas, or an object of
// schemas by name: where Compact goes on. Every other keyword's value
// (enum, const, required…) is data, kept as it is.
var (
	subschema = map[string]bool{
		"items": true, "additionalItems": true, "additionalProperties": true, "contains": true,
		"not": true, "if": true, "then": true, "else": true, "propertyNames": true,
		"unevaluatedProperties": true, "unevaluatedItems": true,
	}
	subschemaList = map[string]bool{"prefixItems": true, "allOf": true, "anyOf": true, "oneOf": true}
	subschemaMap  = map[string]bool{"properties": true, "patternProperties": true, "dependentSchemas": true, "$defs": true, "definitions": true}
)

// Compact returns a copy of the schema doc without its annotations
// (title, description, default, examples, $comment, deprecated,
// readOnly, writeOnly, the content keywords, and extensions "x-…")
// wherever a schema stands, nor its "$schema" (2020-12, which MCP
// assumes when none is named). Every assertion stays (types, required,
// enum, const, formats, bounds, patterns, additionalProperties…), so the
// copy accepts and refuses exactly the values doc does. doc is not
// changed; the copy shares its data (enum values and the like).
func Compact(doc map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	out := compactSchema(doc).(map[string]any)
	delete(out, "$schema")
	return out
}

// compactSchema is Compact of one schema: an object, or true or false.
func compactSchema(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case descriptive[k] || strings.HasPrefix(k, "x-"):
		case subschema[k]:
			if list, ok := v.([]any); ok && k == "items" { // items as a list: before 2020-12
				out[k] = compactList(list)
			} else {
				out[k] = compactSchema(v)
			}
		case subschemaList[k]:
			if list, ok := v.([]any); ok {
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
	return out
}

func compactList(list []any) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = compactSchema(s)
	}
	return out
}
