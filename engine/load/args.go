package load

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

var argSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "type"},
	{Name: "description"},
	{Name: "default"},
	{Name: "optional"},
	{Name: "sensitive"},
	{Name: "enum"},
	{Name: "minimum"},
	{Name: "maximum"},
	{Name: "min_length"},
	{Name: "max_length"},
	{Name: "pattern"},
	{Name: "format"},
	{Name: "min_items"},
	{Name: "max_items"},
	{Name: "schema"},
	{Name: "header"},
	{Name: "ask"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "complete"}}}

// args decodes the arg blocks of a tool, and the type of args.* that its
// programs see. The complete blocks of the arguments go to completes, by
// argument name; with completes nil (a tool's own arguments, which clients
// do not complete), a complete block is an error.
func (l *loader) args(ctx *engine.DecodeContext, blocks hcl.Blocks, completes map[string]*hcl.Block) ([]schema.Arg, types.Map, map[string]hcl.Range) {
	var args []schema.Arg
	defaults := map[string]hcl.Range{}
	env := types.Map{}
	seen := map[string]*hcl.Block{}
	headers := map[string]string{} // lower-case header name: argument
	for _, b := range blocks {
		if b.Type != "arg" {
			continue
		}
		name := b.Labels[0]
		if first, dup := seen[name]; dup {
			l.error(b.LabelRanges[0], "Duplicate argument", "An argument named %q is already declared at %s.", name, first.DefRange)
			continue
		}
		seen[name] = b
		if name == "" {
			l.error(b.LabelRanges[0], "Invalid argument name", "An argument needs a name.")
			continue
		}
		a, complete, ok := l.arg(ctx, b)
		if complete != nil {
			if completes == nil {
				l.error(complete.DefRange, "Completion of a tool argument", "A complete block offers completions for an argument of a resource_template or a prompt (completion/complete); clients do not complete a tool's arguments. Remove it, or use enum.")
			} else {
				completes[name] = complete
			}
		}
		// An argument with an error is still declared for the programs that
		// read it, so that they report their own errors, not "no argument".
		if a.Schema != nil || a.Type == nil {
			env[name] = types.Any
		} else {
			env[name] = a.Type.ExprType()
		}
		if !ok {
			continue
		}
		if a.Header != "" {
			at := b.Body.(*hclsyntax.Body).Attributes["header"]
			key := strings.ToLower(a.Header)
			if prev, dup := headers[key]; dup {
				l.error(at.Expr.Range(), "Duplicate header", "The argument %q is already mirrored in the header %q; header names are compared without case, and each argument needs its own.", prev, a.Header)
			}
			headers[key] = name
		}
		args = append(args, a)
		if a.HasDefault {
			defaults[name] = b.Body.(*hclsyntax.Body).Attributes["default"].Expr.Range()
		}
	}
	return args, env, defaults
}

// arg decodes one arg block.
func (l *loader) arg(ctx *engine.DecodeContext, b *hcl.Block) (schema.Arg, *hcl.Block, bool) {
	// A typo such as an unknown attribute is reported, and the rest of the
	// block is still decoded: the partial content holds what was valid.
	before := len(l.diags)
	content, diags := b.Body.Content(argSchema)
	l.diags = append(l.diags, diags...)
	attrs := content.Attributes
	a := schema.Arg{Name: b.Labels[0], Type: &schema.Type{Kind: schema.String}}
	// All of these become the tool's input schema, which clients list.
	l.publicAttrs(ctx, attrs, func(name string) string { return "the " + name + " of an argument" },
		"description", "default", "enum", "minimum", "maximum", "min_length", "max_length",
		"pattern", "format", "min_items", "max_items")
	if at, ok := attrs["type"]; ok {
		t, diags := schema.ParseType(at.Expr)
		l.diags = append(l.diags, diags...)
		if t != nil {
			a.Type = t
		} else {
			a.Type = &schema.Type{Kind: schema.Any} // unknown: do not guess
		}
	}
	if at, ok := attrs["description"]; ok {
		a.Description = l.str(ctx, at)
	}
	if at, ok := attrs["optional"]; ok {
		a.Optional = l.boolean(ctx, at)
	}
	if at, ok := attrs["sensitive"]; ok {
		a.Sensitive = l.boolean(ctx, at)
	}
	if at, ok := attrs["format"]; ok {
		a.Format = l.str(ctx, at)
	}
	if at, ok := attrs["pattern"]; ok {
		a.Pattern = l.str(ctx, at)
		if _, err := regexp.Compile(a.Pattern); err != nil {
			l.error(at.Expr.Range(), "Invalid pattern", "The pattern is not a valid regular expression: %s.", err)
		}
	}
	if at, ok := attrs["enum"]; ok {
		v := l.plain(ctx, at)
		if list, isList := v.([]any); isList && len(list) > 0 {
			a.Enum = list
			l.checkEnum(a.Type, list, at)
		} else {
			l.error(at.Expr.Range(), "Invalid enum", "enum must be a non-empty list of the allowed values, such as [\"metric\", \"imperial\"].")
		}
	}
	number := func(name string) *float64 {
		at, ok := attrs[name]
		if !ok {
			return nil
		}
		switch v := l.plain(ctx, at).(type) {
		case int:
			f := float64(v)
			return &f
		case float64:
			return &v
		}
		l.error(at.Expr.Range(), "Invalid "+name, "%s must be a number.", name)
		return nil
	}
	count := func(name string) *int {
		at, ok := attrs[name]
		if !ok {
			return nil
		}
		if v, isInt := l.plain(ctx, at).(int); isInt && v >= 0 {
			return &v
		}
		l.error(at.Expr.Range(), "Invalid "+name, "%s must be a whole number, 0 or more.", name)
		return nil
	}
	a.Minimum, a.Maximum = number("minimum"), number("maximum")
	a.MinLength, a.MaxLength = count("min_length"), count("max_length")
	a.MinItems, a.MaxItems = count("min_items"), count("max_items")
	l.checkConstraints(a, attrs)

	if at, ok := attrs["schema"]; ok {
		a.Schema = l.jsonObject(ctx, at.Expr, "schema", "the schema of an argument")
		a.Type = &schema.Type{Kind: schema.Any}
		if _, typed := attrs["type"]; typed {
			l.error(at.Expr.Range(), "Both schema and type", "An argument with a schema takes its type from the schema; remove type.")
		}
	}
	if at, ok := attrs["header"]; ok {
		a.Header = l.header(ctx, a, at)
	}
	if at, ok := attrs["default"]; ok {
		a.Default = l.plain(ctx, at)
		a.HasDefault = true
		if a.Optional {
			l.error(at.Expr.Range(), "Both default and optional", "An argument with a default is already optional; remove optional.")
		}
	}
	if at, ok := attrs["ask"]; ok {
		a.Ask = l.askable(ctx, a, at)
	}
	complete := l.atMostOne(content.Blocks, "complete", "argument")
	return a, complete, len(l.diags) == before || !l.diags[before:].HasErrors()
}

// askable reads an argument's ask: the question put to the person when a
// call lacks the argument. The argument must be required (one with a
// default or optional is never missing), of a type a form holds, and not
// sensitive (a form must not ask for secrets).
func (l *loader) askable(ctx *engine.DecodeContext, a schema.Arg, at *hcl.Attribute) string {
	l.public(ctx, at.Expr, "the ask of an argument")
	q := l.str(ctx, at)
	switch {
	case strings.TrimSpace(q) == "":
		l.error(at.Expr.Range(), "Invalid ask", "ask is the question put to the person when a call lacks the argument, such as \"Which city?\".")
	case a.Schema != nil || a.Type == nil || (a.Type.Kind != schema.String && a.Type.Kind != schema.Number && a.Type.Kind != schema.Integer && a.Type.Kind != schema.Bool):
		l.error(at.NameRange, "Ask for an argument of this type", "A form asks for a string, a number, an integer or a bool; this argument is none of them.")
	case a.Sensitive:
		l.error(at.NameRange, "Ask for a sensitive argument", "A form must not ask for secrets (the client shows and may keep the answers): remove ask, or sensitive.")
	case a.HasDefault || a.Optional:
		l.error(at.NameRange, "Ask for an argument that is never missing", "An argument with a default, or optional, is never missing, so it is never asked for: remove ask, or the default.")
	default:
		return q
	}
	return ""
}

// header reads an argument's header: the name of the HTTP header that
// mirrors it (Mcp-Param-<name>, SEP-2243). The name must be an HTTP token
// of ASCII letters, digits and - . _ (and the like), and the argument a
// string, an integer or a bool that is not sensitive.
func (l *loader) header(ctx *engine.DecodeContext, a schema.Arg, at *hcl.Attribute) string {
	name := l.str(ctx, at)
	if name == "" {
		l.error(at.Expr.Range(), "Invalid header", "header names the HTTP header that mirrors the argument, such as \"Region\" for Mcp-Param-Region.")
		return ""
	}
	for _, c := range name {
		if c > 0x7e || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			l.error(at.Expr.Range(), "Invalid header", "%q is not a valid header name: use ASCII letters, digits and - . _ ~ ! # $ %% & ' * + ^ ` |, without spaces.", name)
			return ""
		}
	}
	switch {
	case a.Schema != nil || a.Type == nil || (a.Type.Kind != schema.String && a.Type.Kind != schema.Integer && a.Type.Kind != schema.Bool):
		typ := "its schema's"
		if a.Schema == nil && a.Type != nil {
			typ = a.Type.String()
		}
		l.error(at.NameRange, "Header for an argument of this type", "Only a string, integer or bool argument can be mirrored in a header; this one's type is %s.", typ)
		return ""
	case a.Sensitive:
		l.error(at.NameRange, "Header for a sensitive argument", "A header is seen by every proxy and load balancer on the way, and logged by many: a sensitive argument cannot be mirrored in one.")
		return ""
	}
	return name
}

// checkEnum reports the enum values that do not fit the argument's type,
// which no call could ever pass, at the offending element where it can.
func (l *loader) checkEnum(t *schema.Type, values []any, at *hcl.Attribute) {
	if t == nil || t.Kind == schema.Any {
		return
	}
	v, err := schema.Compile(t.JSONSchema())
	if err != nil {
		return // the type's own schema always compiles; nothing to add here
	}
	var elems []hclsyntax.Expression
	if tuple, ok := at.Expr.(*hclsyntax.TupleConsExpr); ok && len(tuple.Exprs) == len(values) {
		elems = tuple.Exprs
	}
	for i, value := range values {
		if len(v.Validate(value)) == 0 {
			continue
		}
		rng := at.Expr.Range()
		if elems != nil {
			rng = elems[i].Range()
		}
		l.error(rng, "Enum value does not fit the type", "The enum value %s (element %d) does not fit the argument's type, %s, so no call could pass it; change the value or the type.", jsonenc.Text(value), i, t)
	}
}

// checkConstraints reports constraints that cannot apply to the argument's
// type, which JSON Schema would silently ignore.
func (l *loader) checkConstraints(a schema.Arg, attrs hcl.Attributes) {
	applies := map[string]schema.Kind{
		"min_length": schema.String, "max_length": schema.String, "pattern": schema.String, "format": schema.String,
		"minimum": schema.Number, "maximum": schema.Number,
		"min_items": schema.List, "max_items": schema.List,
	}
	for name, kind := range applies {
		at, ok := attrs[name]
		if !ok || a.Type.Kind == schema.Any {
			continue
		}
		k := a.Type.Kind
		if k == schema.Integer {
			k = schema.Number
		}
		if k != kind {
			l.error(at.NameRange, "Constraint does not apply", "%s does not apply to an argument of type %s.", name, a.Type)
		}
	}
}

// checkDefaults reports defaults that the arguments' own constraints
// reject, using validate: the tool's compiled input schema, or the one of
// its arguments alone when the tool has other errors.
func (l *loader) checkDefaults(validate func(map[string]any) []schema.Violation, args []schema.Arg, ranges map[string]hcl.Range) {
	if len(ranges) == 0 {
		return
	}
	defaults := map[string]any{}
	for _, a := range args {
		if a.HasDefault {
			defaults[a.Name] = a.Default
		}
	}
	bad := map[string][]schema.Violation{}
	for _, v := range validate(defaults) {
		name, _, _ := strings.Cut(strings.TrimPrefix(v.Pointer, "/"), "/")
		if _, ok := ranges[name]; ok && v.Pointer != "" {
			bad[name] = append(bad[name], v)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(bad)) {
		l.error(ranges[name], "Invalid default", "The default does not satisfy the argument's own constraints:\n%s", schema.FormatViolations(bad[name]))
	}
}

// str evaluates an attribute that must be a load-time string.
func (l *loader) str(ctx *engine.DecodeContext, at *hcl.Attribute) string {
	s, diags := ctx.String(at.Expr)
	l.diags = append(l.diags, diags...)
	return s
}

// boolean evaluates an attribute that must be true or false.
func (l *loader) boolean(ctx *engine.DecodeContext, at *hcl.Attribute) bool {
	b, diags := ctx.Bool(at.Expr)
	l.diags = append(l.diags, diags...)
	return b
}

// plain evaluates an attribute into a plain Go value.
func (l *loader) plain(ctx *engine.DecodeContext, at *hcl.Attribute) any {
	v, diags := ctx.Eval(at.Expr)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return nil // reported, here or where the unknown value comes from
	}
	g, err := mapping.FromCty(v)
	if err != nil {
		l.error(at.Expr.Range(), fmt.Sprintf("Invalid %s", at.Name), "%s.", err)
		return nil
	}
	return g
}
