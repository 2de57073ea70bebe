package schema

import "maps"

// Dialect is the JSON Schema dialect of the documents this package builds.
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// JSONSchema returns the JSON Schema of the type: {"type": "string"} for a
// string, {} for any, {"type": "array", "items": …} for a list (with
// "uniqueItems": true for a set), {"type": "object",
// "additionalProperties": …} for a map, and for an object {"type":
// "object", "properties": …, "required": […], "additionalProperties":
// false}, where required lists the fields not declared optional, in
// declaration order, and is left out when there are none. Every call
// returns a new document, which the caller may change.
func (t *Type) JSONSchema() map[string]any {
	if t == nil {
		return map[string]any{}
	}
	switch t.Kind {
	case String:
		return map[string]any{"type": "string"}
	case Number:
		return map[string]any{"type": "number"}
	case Integer:
		return map[string]any{"type": "integer"}
	case Bool:
		return map[string]any{"type": "boolean"}
	case List:
		s := map[string]any{"type": "array", "items": t.Elem.JSONSchema()}
		if t.Unique {
			s["uniqueItems"] = true
		}
		return s
	case Map:
		return map[string]any{"type": "object", "additionalProperties": t.Elem.JSONSchema()}
	case Object:
		props := make(map[string]any, len(t.Fields))
		var required []any
		for _, f := range t.Fields {
			props[f.Name] = f.Type.JSONSchema()
			if !f.Optional {
				required = append(required, f.Name)
			}
		}
		return objectSchema(props, required)
	}
	return map[string]any{}
}

// objectSchema is the schema of an object with exactly the given
// properties.
func objectSchema(props map[string]any, required []any) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Arg is one declared tool argument, an arg "name" { … } block.
type Arg struct {
	// Name is the argument's name, its property in the arguments object.
	Name string
	// Description tells the client what the argument is for.
	Description string
	// Type is the argument's declared type; nil means any.
	Type *Type
	// Default is the value a missing argument takes, when HasDefault: a
	// JSON-compatible Go value (string, float64, int, int64, bool, []any,
	// map[string]any or nil).
	Default any
	// HasDefault is true when the argument has a default, which makes it
	// optional.
	HasDefault bool
	// Optional is true when the argument may be left out and has no
	// default.
	Optional bool
	// Sensitive marks an argument whose value must not be logged.
	Sensitive bool
	// Enum, when not empty, lists the values the argument may take.
	Enum []any
	// Minimum and Maximum bound a number, inclusively.
	Minimum, Maximum *float64
	// MinLength and MaxLength bound the length of a string, in characters.
	MinLength, MaxLength *int
	// MinItems and MaxItems bound the length of a list.
	MinItems, MaxItems *int
	// Pattern is a regular expression that a string must match.
	Pattern string
	// Format names a format that a string must have, such as "email",
	// "uri", "date-time" or "uuid".
	Format string
	// Header, when not empty, names the HTTP header that mirrors the
	// argument in a tools/call over streamable HTTP (Mcp-Param-<Header>,
	// SEP-2243), as the property's "x-mcp-header".
	Header string
	// Schema, when not nil, is the escape hatch: the argument's property
	// schema, used as given instead of the one built from the fields
	// above, except that Description and Default are added when it has
	// none of its own.
	Schema map[string]any
	// Form, when not nil, is the property of an elicitation form that
	// asks for the argument, used instead of the one built from the
	// fields above: a titled choice (a oneOf of const and title, or
	// enumNames) or a multiple choice (an array of an enum, or of an anyOf
	// of const and title). It is not part of the schema.
	Form map[string]any
	// Ask, when not empty, is the question put to the person behind the
	// client when a call lacks the argument (elicitation); it is not part
	// of the schema.
	Ask string
	// WithinRoots makes a call refused unless the argument, a path, lies
	// within the client's roots; it is not part of the schema.
	WithinRoots bool
}

// Output is one declared output field, an output "name" { … } block.
type Output struct {
	// Name is the field's name in the structured content.
	Name string
	// Description tells the client what the field holds.
	Description string
	// Type is the field's declared type; nil means any.
	Type *Type
	// Optional is true when the field may be missing from a result.
	Optional bool
	// Schema, when not nil, is the field's whole JSON Schema, in place of
	// the one of Type (the escape hatch, as for arguments).
	Schema map[string]any
}

// InputSchema builds a tool's inputSchema from its arguments: an object
// with one property per argument, where the arguments without a default
// that are not optional are required (in declaration order), and no other
// properties are allowed. Each property is the argument type's JSONSchema
// with the argument's description, default and constraints added.
// "properties" is always there, and "required" only when it is not empty.
// The document is JSON Schema 2020-12 (Dialect) without saying so in a
// "$schema": that is MCP's default (and Compile's), and a client whose
// validator knows draft-07 alone refuses a schema that names 2020-12.
func InputSchema(args []Arg) map[string]any {
	props := make(map[string]any, len(args))
	var required []any
	for _, a := range args {
		props[a.Name] = argSchema(a)
		if !a.HasDefault && !a.Optional {
			required = append(required, a.Name)
		}
	}
	return objectSchema(props, required)
}

// argSchema is the property schema of one argument.
func argSchema(a Arg) map[string]any {
	if a.Schema != nil {
		s := make(map[string]any, len(a.Schema)+2)
		for k, v := range a.Schema {
			s[k] = v
		}
		if _, ok := s["description"]; !ok && a.Description != "" {
			s["description"] = a.Description
		}
		if _, ok := s["default"]; !ok && a.HasDefault {
			s["default"] = a.Default
		}
		if a.Header != "" {
			s["x-mcp-header"] = a.Header
		}
		return s
	}
	s := a.Type.JSONSchema()
	if a.Description != "" {
		s["description"] = a.Description
	}
	if a.HasDefault {
		s["default"] = a.Default
	}
	if len(a.Enum) > 0 {
		s["enum"] = a.Enum
	}
	setFloat(s, "minimum", a.Minimum)
	setFloat(s, "maximum", a.Maximum)
	setInt(s, "minLength", a.MinLength)
	setInt(s, "maxLength", a.MaxLength)
	setInt(s, "minItems", a.MinItems)
	setInt(s, "maxItems", a.MaxItems)
	if a.Pattern != "" {
		s["pattern"] = a.Pattern
	}
	if a.Format != "" {
		s["format"] = a.Format
	}
	if a.Header != "" {
		s["x-mcp-header"] = a.Header
	}
	return s
}

func setFloat(s map[string]any, key string, v *float64) {
	if v != nil {
		s[key] = *v
	}
}

func setInt(s map[string]any, key string, v *int) {
	if v != nil {
		s[key] = *v
	}
}

// OutputSchema builds a tool's outputSchema from its output fields, as
// InputSchema does from arguments: the fields not declared optional are
// required. It returns nil when there are no outputs.
func OutputSchema(outputs []Output) map[string]any {
	if len(outputs) == 0 {
		return nil
	}
	props := make(map[string]any, len(outputs))
	var required []any
	for _, o := range outputs {
		s := o.Type.JSONSchema()
		if o.Schema != nil {
			s = maps.Clone(o.Schema)
		}
		if _, has := s["description"]; !has && o.Description != "" {
			s["description"] = o.Description
		}
		props[o.Name] = s
		if !o.Optional {
			required = append(required, o.Name)
		}
	}
	return objectSchema(props, required)
}
