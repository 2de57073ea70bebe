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
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// argSpec is the arg block of a tool (and of a resource_template).
var argSpec = &spec.Block{
	Name:    "arg",
	In:      "tool",
	Labels:  []string{"name"},
	Summary: "One argument of the tool: a property of its inputSchema.",
	Doc: "The arguments become a JSON Schema 2020-12 document. Every call's arguments are validated against it before anything runs, " +
		"defaults are applied, and each violation is reported, all of them with their JSON pointer, in one tool error. " +
		"Programs read the arguments as args.name, typed from the declaration: integer arguments are integers, number arguments floats.",
	Example: `arg "units" {
  type        = string
  description = "Units of the temperature"
  enum        = ["metric", "imperial"]
  default     = "metric"
}`,
	Attrs: []*spec.Attr{
		spec.TypeConstraint("type", "is string, number, integer, bool, any, list(T), set(T), map(T) or object({a = T, b = optional(T)})").DefaultIs("string").Unevaluated(),
		spec.String("description", "says what to pass").Shown(),
		spec.Any("default", "is the value when the client sends none; it makes the argument optional").Unevaluated().Shown(),
		spec.Bool("optional", "lets the argument be left out, with no default").WithDefault(false),
		spec.Bool("sensitive", "marks the value as a secret").WithDefault(false),
		spec.Any("enum", "is the list of the allowed values").Unevaluated().Shown(),
		spec.Any("minimum", "is the least number allowed").Unevaluated().Shown(),
		spec.Any("maximum", "is the greatest number allowed").Unevaluated().Shown(),
		spec.Int("min_length", "is the length of the shortest string allowed").AtLeast(0).Shown(),
		spec.Int("max_length", "is the length of the longest string allowed").AtLeast(0).Shown(),
		spec.String("pattern", "is a regular expression that a string must match").Shown(),
		spec.String("format", "is the format of a string, such as email, uri, date-time or uuid").Shown(),
		spec.Int("min_items", "is the fewest items of a list").AtLeast(0).Shown(),
		spec.Int("max_items", "is the most items of a list").AtLeast(0).Shown(),
		spec.Any("schema", `is the escape hatch: this argument's JSON Schema, as jsonencode({…}) or file("x.json")`).Unevaluated(),
		spec.List("enum_titles", spec.KindString, "label the enum's values, one each in the enum's order, in the form that asks for the argument (ask): a titled choice, a oneOf of const and title; for a string argument").Shown(),
		spec.String("ask", `is the question put to the person when a call lacks this required argument, such as "Which city?": the client shows a form for it (elicitation), and the answer is validated like any argument; a string, a number, an integer or a bool, or a choice (an enum, titled with enum_titles; or, as the schema, a multiple choice)`).Unevaluated().Shown(),
		spec.Bool("within_roots", "makes a call refused unless the argument, an absolute path or a file:// URI, lies within the client's roots (the folders it shares, asked with roots/list): "+
			"without .., and once the symbolic links of the part that exists are resolved; for a tool's string argument").WithDefault(false),
		spec.String("header", `is the HTTP header that mirrors the argument in calls over streamable HTTP (header = "Region": Mcp-Param-Region, SEP-2243), so that gateways can route on it; for a string, integer or bool argument that is not sensitive`),
	},
	Blocks: []spec.Nested{{Block: completeSpec, Max: 1}},
}

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
	// block is still decoded.
	before := len(l.diags)
	v, diags := argSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	// All of these become the tool's input schema, which clients list.
	l.shown(ctx, argSpec, v, "the %s of an argument", true)
	a := schema.Arg{Name: b.Labels[0], Type: &schema.Type{Kind: schema.String},
		Description: v.String("description"), Optional: v.Bool("optional"), Sensitive: v.Bool("sensitive"),
		Format: v.String("format"), Pattern: v.String("pattern")}
	if at := v.Attr("type"); at != nil {
		t, diags := schema.ParseType(at.Expr)
		l.diags = append(l.diags, diags...)
		if t != nil {
			a.Type = t
		} else {
			a.Type = &schema.Type{Kind: schema.Any} // unknown: do not guess
		}
	}
	if at := v.Attr("pattern"); at != nil {
		if _, err := regexp.Compile(a.Pattern); err != nil {
			l.error(at.Expr.Range(), "Invalid pattern", "The pattern is not a valid regular expression: %s.", err)
		}
	}
	if at := v.Attr("enum"); at != nil {
		if list, isList := l.plain(ctx, at).([]any); isList && len(list) > 0 {
			a.Enum = list
			l.checkEnum(a.Type, list, at)
		} else {
			l.error(at.Expr.Range(), "Invalid enum", "enum must be a non-empty list of the allowed values, such as [\"metric\", \"imperial\"].")
		}
	}
	number := func(name string) *float64 {
		at := v.Attr(name)
		if at == nil {
			return nil
		}
		switch n := l.plain(ctx, at).(type) {
		case int:
			f := float64(n)
			return &f
		case float64:
			return &n
		}
		l.error(at.Expr.Range(), "Invalid "+name, "%s must be a number.", name)
		return nil
	}
	count := func(name string) *int {
		if !v.Has(name) {
			return nil
		}
		n := int(v.Int(name))
		return &n
	}
	a.Minimum, a.Maximum = number("minimum"), number("maximum")
	a.MinLength, a.MaxLength = count("min_length"), count("max_length")
	a.MinItems, a.MaxItems = count("min_items"), count("max_items")
	l.checkConstraints(a, v)

	if at := v.Attr("schema"); at != nil {
		a.Schema = l.jsonObject(ctx, at.Expr, "schema", "the schema of an argument")
		a.Type = &schema.Type{Kind: schema.Any}
		if v.Written("type") {
			l.error(at.Expr.Range(), "Both schema and type", "An argument with a schema takes its type from the schema; remove type.")
		}
	}
	if at := v.Attr("header"); at != nil {
		a.Header = l.header(a, at, v.String("header"))
	}
	if at := v.Attr("default"); at != nil {
		a.Default = l.plain(ctx, at)
		a.HasDefault = true
		if a.Optional {
			l.error(at.Expr.Range(), "Both default and optional", "An argument with a default is already optional; remove optional.")
		}
	}
	if at := v.Attr("enum_titles"); at != nil {
		titles := v.Strings("enum_titles")
		switch {
		case len(a.Enum) == 0 || a.Type == nil || a.Type.Kind != schema.String || a.Schema != nil:
			l.error(at.Expr.Range(), "Titles of a choice that is not of strings", "enum_titles label the values of a string argument's enum: give the argument type = string and an enum, or remove enum_titles.")
		case len(titles) != len(a.Enum):
			l.error(at.Expr.Range(), "Titles do not match the enum", "enum_titles has %d titles and the enum %d values: give one title per value, in the enum's order.", len(titles), len(a.Enum))
		default:
			alts := make([]any, len(titles))
			for i, title := range titles {
				alts[i] = map[string]any{"const": a.Enum[i], "title": title}
			}
			a.Form = map[string]any{"type": "string", "oneOf": alts}
		}
	}
	if at := v.Attr("ask"); at != nil {
		a.Ask = l.askable(ctx, a, at)
		if a.Ask != "" && a.Schema != nil {
			a.Form = a.Schema // a choice, which askable checked
		}
	}
	if v.Bool("within_roots") {
		if a.Schema != nil || a.Type == nil || a.Type.Kind != schema.String {
			l.error(v.Attr("within_roots").NameRange, "within_roots on an argument that is not a string", "within_roots checks a path: give the argument type = string, or remove within_roots.")
		} else {
			a.WithinRoots = true
		}
	}
	var complete *hcl.Block
	if c := v.Blocks("complete"); len(c) > 0 {
		complete = c[0]
	}
	return a, complete, len(l.diags) == before || !l.diags[before:].HasErrors()
}

// askable reads an argument's ask: the question put to the person when a
// call lacks the argument. The argument must be required (one with a
// default or optional is never missing), of a type a form holds, and not
// sensitive (a form must not ask for secrets).
func (l *loader) askable(ctx *engine.DecodeContext, a schema.Arg, at *hcl.Attribute) string {
	l.public(ctx, at.Expr, "the ask of an argument")
	q, diags := ctx.String(at.Expr)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return ""
	}
	switch {
	case strings.TrimSpace(q) == "":
		l.error(at.Expr.Range(), "Invalid ask", "ask is the question put to the person when a call lacks the argument, such as \"Which city?\".")
	case a.Schema != nil && !formChoice(a.Schema):
		l.error(at.NameRange, "Ask for an argument of this schema", "A form asks for a string, a number, an integer or a bool, or, with a schema, a choice as elicitation has them: {type = \"string\", enum = […]} or {type = \"string\", oneOf = [{const = …, title = …}, …]}, or a multiple choice {type = \"array\", items = {type = \"string\", enum = […]}} or {type = \"array\", items = {anyOf = [{const = …, title = …}, …]}}; this schema is none of them.")
	case a.Schema == nil && (a.Type == nil || (a.Type.Kind != schema.String && a.Type.Kind != schema.Number && a.Type.Kind != schema.Integer && a.Type.Kind != schema.Bool)):
		l.error(at.NameRange, "Ask for an argument of this type", "A form asks for a string, a number, an integer or a bool, or a choice given as the argument's schema; this argument is none of them.")
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
func (l *loader) header(a schema.Arg, at *hcl.Attribute, name string) string {
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
func (l *loader) checkConstraints(a schema.Arg, v *spec.Values) {
	applies := map[string]schema.Kind{
		"min_length": schema.String, "max_length": schema.String, "pattern": schema.String, "format": schema.String,
		"minimum": schema.Number, "maximum": schema.Number,
		"min_items": schema.List, "max_items": schema.List,
	}
	for name, kind := range applies {
		at := v.Attr(name)
		if at == nil || a.Type.Kind == schema.Any {
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

// formChoice reports whether s, an argument's schema, is a choice that an
// elicitation form holds (sep1330): a string of an enum or of a oneOf of
// const and title, or an array whose items are those of an enum or of an
// anyOf of const and title, every value a string.
func formChoice(s map[string]any) bool {
	strs := func(v any) bool {
		list, ok := v.([]any)
		for _, x := range list {
			if _, isString := x.(string); !isString {
				return false
			}
		}
		return ok && len(list) > 0
	}
	titled := func(v any) bool {
		list, ok := v.([]any)
		for _, x := range list {
			alt, _ := x.(map[string]any)
			_, okConst := alt["const"].(string)
			_, okTitle := alt["title"].(string)
			if !okConst || !okTitle {
				return false
			}
		}
		return ok && len(list) > 0
	}
	switch s["type"] {
	case "string":
		return strs(s["enum"]) || titled(s["oneOf"])
	case "array":
		items, _ := s["items"].(map[string]any)
		return items != nil && (items["type"] == "string" && strs(items["enum"]) || titled(items["anyOf"]))
	}
	return false
}
