package schema

import "strings"

// Kind is the kind of a declared type.
type Kind int

// The kinds of declared types.
const (
	// Any accepts every JSON value.
	Any Kind = iota
	// String is a JSON string.
	String
	// Number is any JSON number.
	Number
	// Integer is a JSON number without a fractional part.
	Integer
	// Bool is true or false.
	Bool
	// List is a JSON array whose items all have the type Elem; a set(T) is
	// a List with Unique set.
	List
	// Map is a JSON object whose values all have the type Elem, under any
	// names.
	Map
	// Object is a JSON object with the declared Fields and no others.
	Object
)

// String returns the keyword that declares the kind, such as "integer" or
// "list".
func (k Kind) String() string {
	switch k {
	case Any:
		return "any"
	case String:
		return "string"
	case Number:
		return "number"
	case Integer:
		return "integer"
	case Bool:
		return "bool"
	case List:
		return "list"
	case Map:
		return "map"
	case Object:
		return "object"
	}
	return "invalid"
}

// Type is a declared type: string, number, integer, bool, any, list(T),
// map(T), set(T) (a list whose items are unique) or object({a = T, b =
// optional(T)}). A nil *Type means any.
type Type struct {
	// Kind is what sort of value the type describes.
	Kind Kind
	// Elem is the type of the items of a List and of the values of a Map.
	Elem *Type
	// Unique marks a List declared as set(T): its items must differ.
	Unique bool
	// Fields are the fields of an Object, in declaration order.
	Fields []Field
}

// Field is one field of an object type.
type Field struct {
	// Name is the field's name, the JSON property name.
	Name string
	// Type is the field's type.
	Type *Type
	// Optional is true when the field was declared as optional(T) and may
	// be missing.
	Optional bool
}

// String writes the type back in the syntax it is declared with, such as
// "list(object({id = integer, tags = optional(set(string))}))".
func (t *Type) String() string {
	var sb strings.Builder
	t.write(&sb)
	return sb.String()
}

func (t *Type) write(sb *strings.Builder) {
	if t == nil {
		sb.WriteString("any")
		return
	}
	switch t.Kind {
	case List, Map:
		if t.Kind == List && t.Unique {
			sb.WriteString("set")
		} else {
			sb.WriteString(t.Kind.String())
		}
		sb.WriteByte('(')
		t.Elem.write(sb)
		sb.WriteByte(')')
	case Object:
		sb.WriteString("object({")
		for i, f := range t.Fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			if isIdentifier(f.Name) {
				sb.WriteString(f.Name)
			} else {
				sb.WriteString(quoteHCL(f.Name))
			}
			sb.WriteString(" = ")
			if f.Optional {
				sb.WriteString("optional(")
			}
			f.Type.write(sb)
			if f.Optional {
				sb.WriteByte(')')
			}
		}
		sb.WriteString("})")
	default:
		sb.WriteString(t.Kind.String())
	}
}

// valueType is the type of the value under the given name in a map or
// object of this type, or nil (any) when there is none.
func (t *Type) valueType(name string) *Type {
	if t == nil {
		return nil
	}
	if t.Kind == Map {
		return t.Elem
	}
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return t.Fields[i].Type
		}
	}
	return nil
}

// isIdentifier reports whether s can be written as a bare HCL identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// quoteHCL writes s as an HCL string literal.
func quoteHCL(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i, r := range s {
		switch r {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '$', '%':
			// "${" and "%{" would start a template sequence.
			sb.WriteRune(r)
			if strings.HasPrefix(s[i+1:], "{") {
				sb.WriteRune(r)
			}
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
