package graphql

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/importer/internal/write"
	"github.com/mcpdecl/mcpdecl/importer/overlay"
)

// Options say what to write.
type Options struct {
	// Name is the http_api's name and the prefix of its variables.
	Name string
	// Endpoint is the GraphQL endpoint's URL, the default of the variable
	// <name>_url.
	Endpoint string
	// BearerEnv, when not empty, names the environment variable that holds
	// a bearer token: the http_api then sends it.
	BearerEnv string
	// Schema is the schema's path as the configuration names it (relative
	// to the file written).
	Schema string
	// Overlays curate the tools (names, descriptions, annotations,
	// arguments; operations left out), applied in order.
	Overlays []Overlay
	// Language is the spec of a configuration file, whose blocks and
	// attributes the import writes by their names (load.FileSpec of a
	// registry with the http and graphql adapters); required.
	Language *spec.Block
}

// Operation is one operation file.
type Operation struct {
	// Path is the file's path as the configuration names it, for file().
	Path string
	// Text is its content.
	Text string
}

// Skip is an operation that did not become a tool, and why.
type Skip struct {
	Path, Reason string
}

// Result is what an import wrote.
type Result struct {
	// Data is the configuration.
	Data []byte
	// Imported names the tools written, in order.
	Imported []string
	// Skipped are the operation files that did not become tools.
	Skipped []Skip
	// Env names the environment variables the configuration reads.
	Env []string
	// Hidden are the operations the overlays removed, by their key in the
	// overlays' tree.
	Hidden []string
	// Unmatched are the overlays' actions whose target selected nothing.
	Unmatched []string
}

// maxDepth bounds how deep input objects are written into an argument's
// schema; a recursive input type is cut where it recurs.
const maxDepth = 8

// Import writes the configuration for ops, validated against schema.
func Import(schema *ast.Schema, ops []Operation, opts Options) (*Result, error) {
	if !hclsyntax.ValidIdentifier(opts.Name) {
		return nil, fmt.Errorf("the name %q is not a valid identifier: use letters, digits and underscores", opts.Name)
	}
	if opts.Language == nil {
		return nil, errors.New("no language to write in: set Options.Language to the spec of a configuration file")
	}
	res := &Result{}
	f := hclwrite.NewEmptyFile()
	body := spec.NewWriter(opts.Language, f.Body())
	urlVar := opts.Name + "_url"
	envURL := strings.ToUpper(urlVar)
	res.Env = append(res.Env, envURL)
	v := body.Block("variable", urlVar)
	v.Value("description", cty.StringVal("The URL of the GraphQL endpoint."))
	v.Raw("default", envDefault(envURL, opts.Endpoint))
	if opts.BearerEnv != "" {
		res.Env = append(res.Env, opts.BearerEnv)
		body.AppendNewline()
		t := body.Block("variable", opts.Name+"_token")
		t.Value("description", cty.StringVal("The bearer token the endpoint is called with."))
		t.Raw("default", envDefault(opts.BearerEnv, ""))
		t.Value("sensitive", cty.True)
	}
	body.AppendNewline()
	api := body.Block("http_api", opts.Name)
	api.Traversal("base_url", spec.Ref("var", urlVar))
	if opts.BearerEnv != "" {
		api.Block("auth").Traversal("bearer", spec.Ref("var", opts.Name+"_token"))
	}

	var tools []*toolDecl
	keys := map[string]bool{}
	for _, op := range ops {
		t, err := tool(schema, op)
		if err != nil {
			res.Skipped = append(res.Skipped, Skip{Path: op.Path, Reason: err.Error()})
			continue
		}
		key := t.key
		for i := 2; keys[key]; i++ {
			key = fmt.Sprintf("%s_%d", t.key, i)
		}
		keys[key] = true
		t.key = key
		tools = append(tools, t)
	}
	if len(opts.Overlays) > 0 {
		var skipped []Skip
		var err error
		tools, skipped, res.Hidden, res.Unmatched, err = applyOverlays(tools, opts.Overlays)
		if err != nil {
			return nil, err
		}
		res.Skipped = append(res.Skipped, skipped...)
	}
	used := map[string]bool{}
	for _, t := range tools {
		name := t.name
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s_%d", t.name, i)
		}
		used[name] = true
		t.name = name
		body.AppendNewline()
		t.write(body, opts)
		res.Imported = append(res.Imported, name)
	}
	if err := body.Err(); err != nil {
		return nil, fmt.Errorf("write the configuration: %w", err)
	}
	res.Data = hclwrite.Format(f.Bytes())
	return res, nil
}

// envDefault writes env("NAME"), or a fallback when it is empty.
func envDefault(name, fallback string) hclwrite.Tokens {
	if fallback == "" {
		return hclwrite.TokensForFunctionCall("env", hclwrite.TokensForValue(cty.StringVal(name)))
	}
	return hclwrite.TokensForFunctionCall("env", hclwrite.TokensForValue(cty.StringVal(name)), hclwrite.TokensForValue(cty.StringVal(fallback)))
}

// toolDecl is one tool to write.
type toolDecl struct {
	// key names the operation in an overlay's tree.
	key                      string
	name, title, description string
	hints                    map[string]bool // annotations an overlay set, by MCP's names
	op                       Operation
	args                     []argDecl
	outputs                  []write.Output
}

type argDecl struct {
	write.Arg
	// omitted is a variable an overlay took out: no argument, not sent.
	omitted bool
	// value, when not nil, is what an overlay fixed the variable to: no
	// argument, always sent.
	value any
}

// tool reads one operation file.
func tool(schema *ast.Schema, op Operation) (*toolDecl, error) {
	doc, err := parser.ParseQuery(&ast.Source{Name: op.Path, Input: op.Text})
	if err != nil {
		return nil, fmt.Errorf("it does not parse: %v", err)
	}
	if errs := validator.Validate(schema, doc); len(errs) > 0 {
		return nil, fmt.Errorf("it does not validate against the schema: %v", errs[0])
	}
	if len(doc.Operations) != 1 {
		return nil, fmt.Errorf("it holds %d operations; a file gives one tool, so write one operation per file", len(doc.Operations))
	}
	o := doc.Operations[0]
	if o.Operation == ast.Subscription {
		return nil, errors.New("it is a subscription, which a tool's one request and one answer cannot serve")
	}
	t := &toolDecl{op: op, key: treeKey(o.Name, op), name: snake(o.Name)}
	if t.name == "" {
		base := path.Base(op.Path)
		t.name = snake(strings.TrimSuffix(base, path.Ext(base)))
	}
	if t.name == "" {
		return nil, errors.New("neither the operation nor the file has a name a tool can take")
	}
	t.description = leadingComment(op.Text)
	if t.description == "" {
		t.description = describe(o)
	}
	for _, d := range o.VariableDefinitions {
		t.args = append(t.args, argFor(schema, d))
	}
	for _, s := range o.SelectionSet {
		f, ok := s.(*ast.Field)
		if !ok || f.Definition == nil || f.Name == "__typename" {
			continue
		}
		key := f.Alias
		if key == "" {
			key = f.Name
		}
		t.outputs = append(t.outputs, write.Output{Name: key, Description: firstSentence(f.Definition.Description), Optional: !f.Definition.Type.NonNull,
			Schema: valueSchema(f.Definition.Type, f.SelectionSet, schema, false), Program: "data" + write.Access(key)})
	}
	return t, nil
}

// describe is a tool's description when its file has no leading comment:
// what its root fields are.
func describe(o *ast.OperationDefinition) string {
	kind := "Reads"
	if o.Operation == ast.Mutation {
		kind = "Changes"
	}
	var parts []string
	for _, s := range o.SelectionSet {
		if f, ok := s.(*ast.Field); ok && f.Definition != nil {
			p := f.Name
			if d := firstSentence(f.Definition.Description); d != "" {
				p += " (" + strings.TrimSuffix(d, ".") + ")"
			}
			parts = append(parts, p)
		}
	}
	return kind + " " + strings.Join(parts, ", ") + " through GraphQL."
}

// leadingComment is the text of the # comment lines that open the file.
func leadingComment(text string) string {
	var lines []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" && len(lines) == 0 {
			continue
		}
		c, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		lines = append(lines, strings.TrimSpace(c))
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	return s
}

// snake writes a GraphQL name as a tool or argument name: getCountry →
// get_country.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && rs[i-1] != '_') {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'):
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "_")
}

// argFor is the argument of one variable.
func argFor(schema *ast.Schema, d *ast.VariableDefinition) argDecl {
	a := argDecl{Arg: write.Arg{Name: d.Variable, Optional: !d.Type.NonNull || d.DefaultValue != nil}}
	if d.DefaultValue != nil {
		if v, err := d.DefaultValue.Value(nil); err == nil {
			a.Default, a.HasDefault = v, v != nil
		}
	}
	if def := schema.Types[d.Type.Name()]; def != nil && !def.BuiltIn {
		a.Description = firstSentence(def.Description)
	}
	switch t := d.Type; {
	case t.Elem == nil && scalarType(t.NamedType) != "":
		a.Type = scalarType(t.NamedType)
	case t.Elem != nil && t.Elem.Elem == nil && scalarType(t.Elem.NamedType) != "":
		a.Type = "list(" + scalarType(t.Elem.NamedType) + ")"
	default:
		a.Schema = inputSchema(schema, t, nil, 0, true)
	}
	return a
}

// scalarType is the mcpdecl type of a built-in scalar, or "".
func scalarType(name string) string {
	switch name {
	case "Int":
		return "integer"
	case "Float":
		return "number"
	case "String", "ID":
		return "string"
	case "Boolean":
		return "bool"
	}
	return ""
}

// jsonType is the JSON Schema type of a built-in scalar, or "".
func jsonType(name string) string {
	if t := scalarType(name); t != "bool" {
		return t
	}
	return "boolean"
}

// inputSchema is the JSON Schema of an input type: a variable's, or an
// input object's field. stack holds the input objects being written, so
// that a recursive one is cut where it recurs.
func inputSchema(schema *ast.Schema, t *ast.Type, stack []string, depth int, top bool) map[string]any {
	if t.Elem != nil {
		return map[string]any{"type": "array", "items": inputSchema(schema, t.Elem, stack, depth, false)}
	}
	if jt := jsonType(t.NamedType); jt != "" {
		return map[string]any{"type": jt}
	}
	def := schema.Types[t.NamedType]
	if def == nil {
		return map[string]any{}
	}
	out := map[string]any{}
	if d := firstSentence(def.Description); d != "" && !top {
		out["description"] = d
	}
	switch def.Kind {
	case ast.Enum:
		out["type"] = "string"
		var vals []any
		for _, v := range def.EnumValues {
			vals = append(vals, v.Name)
		}
		out["enum"] = vals
	case ast.InputObject:
		out["type"] = "object"
		if slices.Contains(stack, def.Name) || depth >= maxDepth {
			return out // cut where it recurs
		}
		props := map[string]any{}
		var required []any
		for _, f := range def.Fields {
			p := inputSchema(schema, f.Type, append(stack, def.Name), depth+1, false)
			if d := firstSentence(f.Description); d != "" {
				p["description"] = d
			}
			props[f.Name] = p
			if f.Type.NonNull && f.DefaultValue == nil {
				required = append(required, f.Name)
			}
		}
		out["properties"] = props
		if len(required) > 0 {
			out["required"] = required
		}
		out["additionalProperties"] = false
	default: // a custom scalar: its text form, as the server parses it
		if d := firstSentence(def.Description); d != "" {
			out["description"] = d
		}
	}
	return out
}

// valueSchema is the JSON Schema of what a field yields: a scalar, an
// enum's name, or an object of the fields its selection picks. A nullable
// value also takes null, except at the top, where the output is optional.
func valueSchema(t *ast.Type, set ast.SelectionSet, schema *ast.Schema, nullable bool) map[string]any {
	var out map[string]any
	switch {
	case t.Elem != nil:
		out = map[string]any{"type": "array", "items": valueSchema(t.Elem, set, schema, !t.Elem.NonNull)}
	case len(set) > 0:
		props := map[string]any{}
		var required []any
		addFields(props, &required, set, schema)
		out = map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			out["required"] = required
		}
	default:
		out = map[string]any{}
		if jt := jsonType(t.NamedType); jt != "" {
			out["type"] = jt
		} else if def := schema.Types[t.NamedType]; def != nil && def.Kind == ast.Enum {
			out["type"] = "string"
		}
	}
	if nullable {
		if typ, ok := out["type"].(string); ok {
			out["type"] = []any{typ, "null"}
		}
	}
	return out
}

// addFields adds the fields of a selection set to an object's properties.
// Fields of fragments on one type of an interface or a union may be
// absent: they are not required.
func addFields(props map[string]any, required *[]any, set ast.SelectionSet, schema *ast.Schema) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			if s.Name == "__typename" || s.Definition == nil {
				props[key] = map[string]any{"type": "string"}
			} else {
				props[key] = valueSchema(s.Definition.Type, s.SelectionSet, schema, !s.Definition.Type.NonNull)
			}
			// @include and @skip may leave the field out.
			conditional := s.Directives.ForName("include") != nil || s.Directives.ForName("skip") != nil
			if !conditional && !slices.Contains(*required, any(key)) {
				*required = append(*required, key)
			}
		case *ast.InlineFragment:
			var none []any
			addFields(props, &none, s.SelectionSet, schema)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				var none []any
				addFields(props, &none, s.Definition.SelectionSet, schema)
			}
		}
	}
}

// write writes the tool block.
func (t *toolDecl) write(body *spec.Writer, opts Options) {
	blk := body.Block("tool", t.name)
	if t.title != "" {
		blk.Value("title", cty.StringVal(t.title))
	}
	blk.Value("description", cty.StringVal(t.description))
	if len(t.hints) > 0 {
		an := blk.Block("annotations")
		for i, name := range overlay.HintNames {
			if v, ok := t.hints[name]; ok {
				an.Value(overlay.HintAttrs[i], cty.BoolVal(v))
			}
		}
	}
	for _, a := range t.args {
		if a.omitted || a.value != nil {
			continue
		}
		a.Write(blk, valueTokens)
	}
	g := blk.Block("graphql")
	g.Traversal("api", spec.Ref("http_api", opts.Name))
	g.Value("schema", cty.StringVal(opts.Schema))
	g.Raw("query", hclwrite.TokensForFunctionCall("file", hclwrite.TokensForValue(cty.StringVal(t.op.Path))))
	var attrs []hclwrite.ObjectAttrTokens
	for _, a := range t.args {
		value := spec.ExprTokens("args." + a.Name)
		switch {
		case a.omitted:
			continue
		case a.value != nil:
			value = valueTokens(a.value)
		}
		attrs = append(attrs, hclwrite.ObjectAttrTokens{Name: write.KeyTokens(a.Name), Value: value})
	}
	if len(attrs) > 0 {
		g.Raw("variables", hclwrite.TokensForObject(attrs))
	}
	for _, o := range t.outputs {
		o.Write(blk, valueTokens)
	}
}

// valueTokens writes a plain value (a schema, a default) as HCL.
func valueTokens(v any) hclwrite.Tokens { return write.ValueTokens(v, nil) }
