// Package gqlschema reads a GraphQL schema, written as SDL or as the result
// of an introspection query, into gqlparser's schema: what the graphql
// action validates its query against, and what `mcpdecl import graphql`
// writes tools from.
package gqlschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// Parse reads a schema: SDL, or the JSON result of an introspection query
// (with or without its "data" envelope), which it writes as SDL first. name
// names the source in the parser's errors, which are *gqlerror.Error with
// the line and column of SDL.
func Parse(name string, data []byte) (*ast.Schema, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		sdl, err := introspectionSDL(t)
		if err != nil {
			return nil, err
		}
		return validator.LoadSchema(validator.Prelude, &ast.Source{Name: name, Input: sdl})
	}
	return validator.LoadSchema(validator.Prelude, &ast.Source{Name: name, Input: string(data)})
}

// The parts of an introspection result that make a schema.
type (
	introspection struct {
		Data *struct {
			Schema *introSchema `json:"__schema"`
		} `json:"data"`
		Schema *introSchema `json:"__schema"`
	}
	introSchema struct {
		QueryType        *introName  `json:"queryType"`
		MutationType     *introName  `json:"mutationType"`
		SubscriptionType *introName  `json:"subscriptionType"`
		Types            []introType `json:"types"`
	}
	introName struct {
		Name string `json:"name"`
	}
	introType struct {
		Kind          string       `json:"kind"`
		Name          string       `json:"name"`
		Description   string       `json:"description"`
		Fields        []introField `json:"fields"`
		InputFields   []introInput `json:"inputFields"`
		Interfaces    []introRef   `json:"interfaces"`
		EnumValues    []introEnum  `json:"enumValues"`
		PossibleTypes []introRef   `json:"possibleTypes"`
		OfType        *introRef    `json:"ofType"`
	}
	introField struct {
		Name        string       `json:"name"`
		Description string       `json:"description"`
		Args        []introInput `json:"args"`
		Type        introRef     `json:"type"`
	}
	introInput struct {
		Name         string   `json:"name"`
		Description  string   `json:"description"`
		Type         introRef `json:"type"`
		DefaultValue *string  `json:"defaultValue"`
	}
	introEnum struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	introRef struct {
		Kind   string    `json:"kind"`
		Name   string    `json:"name"`
		OfType *introRef `json:"ofType"`
	}
)

// introspectionSDL writes an introspection result as SDL, which the
// parser then reads and checks like any schema.
func introspectionSDL(data []byte) (string, error) {
	var in introspection
	if err := json.Unmarshal(data, &in); err != nil {
		return "", fmt.Errorf("it starts with { but is not an introspection result: %v", err)
	}
	s := in.Schema
	if in.Data != nil && in.Data.Schema != nil {
		s = in.Data.Schema
	}
	if s == nil || s.QueryType == nil {
		return "", errors.New(`it is JSON without "__schema" and its queryType: give the result of an introspection query, or SDL`)
	}
	var b strings.Builder
	b.WriteString("schema {\n  query: " + s.QueryType.Name + "\n")
	if s.MutationType != nil {
		b.WriteString("  mutation: " + s.MutationType.Name + "\n")
	}
	if s.SubscriptionType != nil {
		b.WriteString("  subscription: " + s.SubscriptionType.Name + "\n")
	}
	b.WriteString("}\n")
	for _, t := range s.Types {
		if strings.HasPrefix(t.Name, "__") || builtin[t.Name] {
			continue
		}
		description(&b, "", t.Description)
		switch t.Kind {
		case "SCALAR":
			b.WriteString("scalar " + t.Name + "\n")
		case "OBJECT", "INTERFACE":
			kw := "type "
			if t.Kind == "INTERFACE" {
				kw = "interface "
			}
			b.WriteString(kw + t.Name)
			for i, r := range t.Interfaces {
				if i == 0 {
					b.WriteString(" implements ")
				} else {
					b.WriteString(" & ")
				}
				b.WriteString(r.Name)
			}
			b.WriteString(" {\n")
			for _, f := range t.Fields {
				description(&b, "  ", f.Description)
				b.WriteString("  " + f.Name)
				if len(f.Args) > 0 {
					b.WriteString("(")
					for i, a := range f.Args {
						if i > 0 {
							b.WriteString(", ")
						}
						writeInput(&b, a)
					}
					b.WriteString(")")
				}
				b.WriteString(": " + typeRef(f.Type) + "\n")
			}
			b.WriteString("}\n")
		case "UNION":
			b.WriteString("union " + t.Name + " =")
			for i, r := range t.PossibleTypes {
				if i > 0 {
					b.WriteString(" |")
				}
				b.WriteString(" " + r.Name)
			}
			b.WriteString("\n")
		case "ENUM":
			b.WriteString("enum " + t.Name + " {\n")
			for _, v := range t.EnumValues {
				description(&b, "  ", v.Description)
				b.WriteString("  " + v.Name + "\n")
			}
			b.WriteString("}\n")
		case "INPUT_OBJECT":
			b.WriteString("input " + t.Name + " {\n")
			for _, f := range t.InputFields {
				description(&b, "  ", f.Description)
				b.WriteString("  ")
				writeInput(&b, f)
				b.WriteString("\n")
			}
			b.WriteString("}\n")
		default:
			return "", fmt.Errorf("type %s is of an unknown kind %q", t.Name, t.Kind)
		}
	}
	return b.String(), nil
}

// builtin names the scalars every schema has.
var builtin = map[string]bool{"Int": true, "Float": true, "String": true, "Boolean": true, "ID": true}

func writeInput(b *strings.Builder, a introInput) {
	b.WriteString(a.Name + ": " + typeRef(a.Type))
	if a.DefaultValue != nil {
		b.WriteString(" = " + *a.DefaultValue)
	}
}

func typeRef(r introRef) string {
	switch {
	case r.Kind == "NON_NULL" && r.OfType != nil:
		return typeRef(*r.OfType) + "!"
	case r.Kind == "LIST" && r.OfType != nil:
		return "[" + typeRef(*r.OfType) + "]"
	}
	return r.Name
}

// description writes a description as a block string.
func description(b *strings.Builder, indent, s string) {
	if s == "" {
		return
	}
	b.WriteString(indent + `"""` + strings.ReplaceAll(s, `"""`, `\"""`) + `"""` + "\n")
}
