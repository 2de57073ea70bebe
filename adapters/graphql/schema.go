package graphqlaction

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpdecl/mcpdecl/engine"
)

// schemaCache keeps the schemas read lately, by content, so that the tools
// of a large API that share one schema parse it once per load, and a
// reload parses only a schema that changed. It keeps a few at most.
type schemaCache struct {
	mu      sync.Mutex
	entries []cached // most recent last
}

type cached struct {
	sum    [sha256.Size]byte
	schema *ast.Schema
	err    error
}

// maxCachedSchemas bounds the schemas a cache keeps.
const maxCachedSchemas = 8

func newSchemaCache() *schemaCache { return &schemaCache{} }

// load reads the schema at path (relative to the file being decoded): SDL,
// or the JSON result of an introspection query. rng is where the path is
// written, for errors that are not inside the schema.
func (c *schemaCache) load(ctx *engine.DecodeContext, path string, rng hcl.Range) (*ast.Schema, hcl.Diagnostics) {
	data, resolved, err := ctx.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the GraphQL schema",
			Detail: upperFirst(err.Error()) + ".", Subject: rng.Ptr()}}
	}
	sum := sha256.Sum256(data)
	c.mu.Lock()
	for i, e := range c.entries {
		if e.sum == sum {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.schema, schemaError(e.err, resolved, rng)
		}
	}
	c.mu.Unlock()

	schema, err := parseSchema(resolved, data)
	c.mu.Lock()
	c.entries = append(c.entries, cached{sum: sum, schema: schema, err: err})
	if len(c.entries) > maxCachedSchemas {
		c.entries = c.entries[1:]
	}
	c.mu.Unlock()
	return schema, schemaError(err, resolved, rng)
}

// schemaError describes an error of the schema at path: at its place in
// the file when the parser gives one.
func schemaError(err error, path string, rng hcl.Range) hcl.Diagnostics {
	if err == nil {
		return nil
	}
	var ge *gqlerror.Error
	if errors.As(err, &ge) && len(ge.Locations) > 0 && ge.Locations[0].Line > 0 {
		loc := ge.Locations[0]
		at := hcl.Range{Filename: path, Start: hcl.Pos{Line: loc.Line, Column: loc.Column}, End: hcl.Pos{Line: loc.Line, Column: loc.Column + 1}}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid GraphQL schema",
			Detail: fmt.Sprintf("The schema %s is invalid: %s. It is named at %s.", path, strings.TrimSuffix(ge.Message, "."), rng), Subject: at.Ptr()}}
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid GraphQL schema",
		Detail: fmt.Sprintf("The schema %s is invalid: %s.", path, strings.TrimSuffix(err.Error(), ".")), Subject: rng.Ptr()}}
}

// parseSchema reads SDL, or an introspection result (JSON, with or without
// its "data" envelope).
func parseSchema(name string, data []byte) (*ast.Schema, error) {
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

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
