package schema

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// parse parses src as an HCL expression.
func parse(t *testing.T, src string) hcl.Expression {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "types.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parsing %s: %s", src, diags.Error())
	}
	return expr
}

func TestParseType(t *testing.T) {
	str := &Type{Kind: String}
	integer := &Type{Kind: Integer}
	tests := []struct {
		src  string
		want *Type
		text string // String(), when it differs from src
	}{
		{src: "string", want: str},
		{src: "number", want: &Type{Kind: Number}},
		{src: "integer", want: integer},
		{src: "bool", want: &Type{Kind: Bool}},
		{src: "any", want: &Type{Kind: Any}},
		{src: "list(string)", want: &Type{Kind: List, Elem: str}},
		{src: "set(integer)", want: &Type{Kind: List, Elem: integer, Unique: true}},
		{src: "map(list(any))", want: &Type{Kind: Map, Elem: &Type{Kind: List, Elem: &Type{Kind: Any}}}},
		{src: "object({})", want: &Type{Kind: Object, Fields: []Field{}}},
		{
			src: "list(object({id = integer, tags = optional(list(string))}))",
			want: &Type{Kind: List, Elem: &Type{Kind: Object, Fields: []Field{
				{Name: "id", Type: integer},
				{Name: "tags", Type: &Type{Kind: List, Elem: str}, Optional: true},
			}}},
		},
		{
			// Fields keep their order; names may be quoted.
			src: `object({zeta = bool, "user id" = string, alpha = optional(object({x = number}))})`,
			want: &Type{Kind: Object, Fields: []Field{
				{Name: "zeta", Type: &Type{Kind: Bool}},
				{Name: "user id", Type: str},
				{Name: "alpha", Type: &Type{Kind: Object, Fields: []Field{{Name: "x", Type: &Type{Kind: Number}}}}, Optional: true},
			}},
		},
		{
			src:  "object({\n  a = string,\n  b = integer\n})",
			want: &Type{Kind: Object, Fields: []Field{{Name: "a", Type: str}, {Name: "b", Type: integer}}},
			text: "object({a = string, b = integer})",
		},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, diags := ParseType(parse(t, tt.src))
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics: %s", diags.Error())
			}
			if !equalTypes(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			text := tt.text
			if text == "" {
				text = tt.src
			}
			if got.String() != text {
				t.Errorf("String() = %q, want %q", got.String(), text)
			}
		})
	}
}

func equalTypes(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Unique != b.Unique || len(a.Fields) != len(b.Fields) || !equalTypes(a.Elem, b.Elem) {
		return false
	}
	for i := range a.Fields {
		fa, fb := a.Fields[i], b.Fields[i]
		if fa.Name != fb.Name || fa.Optional != fb.Optional || !equalTypes(fa.Type, fb.Type) {
			return false
		}
	}
	return true
}

func TestParseTypeErrors(t *testing.T) {
	const accepted = "The type must be one of string, number, integer, bool, any, list(T), map(T), set(T) or object({...})"
	tests := []struct {
		src     string
		subject string // the source text the diagnostic points at
		detail  string
	}{
		{"strng", "strng", accepted + `; got "strng". Did you mean "string"?`},
		{"String", "String", accepted + `; got "String". Did you mean "string"?`},
		{"boolean", "boolean", accepted + `; got "boolean". Did you mean "bool"?`},
		{"int", "int", accepted + `; got "int". Did you mean "integer"?`},
		{"banana", "banana", accepted + `; got "banana".`},
		{"list(strng)", "strng", accepted + `; got "strng". Did you mean "string"?`},
		{"map(list(intger))", "intger", accepted + `; got "intger". Did you mean "integer"?`},
		{"lst(string)", "lst", accepted + `; got "lst(…)". Did you mean "list"?`},
		{"list", "list", "list needs the type of its items in parentheses, such as list(string)."},
		{"map", "map", "map needs the type of its values in parentheses, such as map(string)."},
		{"object", "object", "object needs its fields, such as object({id = integer, name = optional(string)})."},
		{"list()", "()", "list needs exactly one argument, the type of its items, such as list(string)."},
		{"set(string, number, bool)", "number, bool", "set needs exactly one argument, the type of its items, such as set(string)."},
		{"string()", "()", "string takes no arguments; write it as just string."},
		{"object(string)", "string", "object takes a map of its fields to their types, in braces, such as object({id = integer, name = optional(string)})."},
		{"object({a.b = string})", "a.b", `A field name is a bare name such as id, or a quoted string such as "user-id".`},
		{"object({a = strin})", "strin", accepted + `; got "strin". Did you mean "string"?`},
		{"optional(string)", "optional", "optional(T) is only valid as the type of an object field, such as object({name = optional(string)}); an argument or output is made optional with optional = true."},
		{"list(optional(string))", "optional", "optional(T) is only valid as the type of an object field, such as object({name = optional(string)}); an argument or output is made optional with optional = true."},
		{"object({a = optional(optional(string))})", "optional", "optional(T) is only valid as the type of an object field, such as object({name = optional(string)}); an argument or output is made optional with optional = true."},
		{"object({a = optional(string, \"x\")})", `"x"`, "optional needs exactly one argument, the type of the field, such as optional(string)."},
		{"optional", "optional", "optional(T) marks a field of an object as one that may be left out, such as object({name = optional(string)}); it is not a type of its own."},
		{"tuple([string])", "tuple", "Tuple types are not supported; use list(T) for a list of values of one type, or object({...}) for named fields of different types."},
		{`"string"`, `"string"`, `A type is written without quotes: write string instead of "string".`},
		{`"list(number)"`, `"list(number)"`, `A type is written without quotes: write list(number) instead of "list(number)".`},
		{`"strng"`, `"strng"`, accepted + `, written without quotes; got the string "strng". Did you mean "string"?`},
		{"[string]", "[string]", accepted + "; brackets make a list value, not a type: write list(T) instead, such as list(string)."},
		{"{a = string}", "{a = string}", accepted + "; braces alone make an object value, not a type: write object({...}) around them."},
		{"var.kind", "var.kind", accepted + "; got the reference var.kind, but a type cannot refer to anything."},
		{"1 + 2", "1 + 2", accepted + "; got an expression that is not a type."},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, diags := ParseType(parse(t, tt.src))
			if got != nil {
				t.Errorf("got type %s, want none", got)
			}
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %s", len(diags), diags.Error())
			}
			d := diags[0]
			if d.Severity != hcl.DiagError || d.Summary != "Invalid type" {
				t.Errorf("severity %v, summary %q", d.Severity, d.Summary)
			}
			if d.Detail != tt.detail {
				t.Errorf("detail:\n got %s\nwant %s", d.Detail, tt.detail)
			}
			if d.Subject == nil {
				t.Fatal("no subject")
			}
			subject := tt.src[d.Subject.Start.Byte:d.Subject.End.Byte]
			if subject != tt.subject {
				t.Errorf("subject %q (%s), want %q", subject, d.Subject, tt.subject)
			}
			if d.Subject.Filename != "types.hcl" {
				t.Errorf("subject file %q", d.Subject.Filename)
			}
		})
	}
}

func TestParseTypeDuplicateField(t *testing.T) {
	src := "object({a = string, b = bool, a = number})"
	_, diags := ParseType(parse(t, src))
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics: %s", len(diags), diags.Error())
	}
	d := diags[0]
	if want := `The field "a" is already declared at types.hcl:1,9-10; each field of an object needs a different name.`; d.Detail != want {
		t.Errorf("detail %q, want %q", d.Detail, want)
	}
	if d.Subject.Start.Byte != strings.LastIndex(src, "a =") || d.Subject.End.Byte != strings.LastIndex(src, "a =")+1 {
		t.Errorf("subject %s does not point at the second a", d.Subject)
	}
}

func TestParseTypeReportsEveryField(t *testing.T) {
	_, diags := ParseType(parse(t, "object({a = strng, b = integer, c = lst(string)})"))
	if len(diags) != 2 {
		t.Fatalf("got %d diagnostics, want 2: %s", len(diags), diags.Error())
	}
}

func TestTypeStringQuotesNames(t *testing.T) {
	typ := &Type{Kind: Object, Fields: []Field{
		{Name: "plain_name", Type: &Type{Kind: String}},
		{Name: "with space", Type: nil, Optional: true},
		{Name: "${x}", Type: &Type{Kind: Map, Elem: &Type{Kind: Number}}},
	}}
	want := `object({plain_name = string, "with space" = optional(any), "$${x}" = map(number)})`
	if typ.String() != want {
		t.Errorf("String() = %s, want %s", typ, want)
	}
	// What String writes parses back to the same type.
	back, diags := ParseType(parse(t, typ.String()))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	typ.Fields[1].Type = &Type{Kind: Any}
	if !equalTypes(back, typ) {
		t.Errorf("parsed back as %s", back)
	}
}
