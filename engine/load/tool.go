package load

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
)

// toolName is the rule of the MCP specification for tool names.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// toolSchema lists what a tool block may hold; the action blocks are added
// from the registry.
func (l *loader) toolSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "title"},
			{Name: "description", Required: true},
			{Name: "timeout"},
			{Name: "text"},
			{Name: "error_if"},
			{Name: "error_message"},
			{Name: "input_schema"},
			{Name: "defs"},
			{Name: "max_concurrency"},
			{Name: "max_result_bytes"},
			{Name: "scopes"},
			{Name: "tags"},
			{Name: "icons"},
			{Name: "meta"},
			{Name: "sanitize"},
		},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "annotations"},
			{Type: "arg", LabelNames: []string{"name"}},
			{Type: "output", LabelNames: []string{"name"}},
			{Type: "content", LabelNames: []string{"type"}},
			{Type: "rate_limit"},
			{Type: "cache"},
			{Type: "log"},
		},
	}
	for _, kind := range l.opts.Registry.ActionKinds() {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: kind})
	}
	return s
}

// toolsPerWorker is the fewest tools worth a goroutine of their own.
const toolsPerWorker = 64

// tools decodes every tool block, on every CPU: each tool compiles its
// programs and schemas independently, and large configurations load
// faster. What the tools share (the evaluation contexts, the registry, the
// redactor) is only read, or safe for concurrent use.
func (l *loader) tools() []*engine.Tool {
	schema := l.toolSchema()
	blocks := l.checkUnique(l.blocks["tool"], "tool")
	for _, b := range blocks {
		l.evalContext(b.DefRange.Filename) // created now, read concurrently below
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(blocks)/toolsPerWorker))
	decoded := make([]*engine.Tool, len(blocks))
	diags := make([]hcl.Diagnostics, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			worker := *l
			worker.diags = nil
			for i := w; i < len(blocks); i += workers {
				decoded[i] = worker.tool(blocks[i], schema)
			}
			diags[w] = worker.diags
		})
	}
	wg.Wait()
	for _, d := range diags {
		l.diags = append(l.diags, d...)
	}
	var tools []*engine.Tool
	for _, t := range decoded {
		if t != nil {
			tools = append(tools, t)
		}
	}
	return tools
}

// annotationsBlock is the annotations block of a tool.
type annotationsBlock struct {
	ReadOnly    *bool `hcl:"read_only_hint,optional"`
	Destructive *bool `hcl:"destructive_hint,optional"`
	Idempotent  *bool `hcl:"idempotent_hint,optional"`
	OpenWorld   *bool `hcl:"open_world_hint,optional"`
}

// scopes decodes a tool's scopes: a list of distinct, non-empty strings
// without spaces (a token's scope claim separates scopes with spaces).
func (l *loader) scopes(ctx *engine.DecodeContext, a *hcl.Attribute) []string {
	return l.words(ctx, a, "scopes", `["tickets:read"]`, func(s string) string {
		if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
			return fmt.Sprintf("The scope %q is empty or holds a space, a quote or a backslash; scopes are single words such as tickets:read.", s)
		}
		return ""
	})
}

// maxTag is the length of the longest tag, in bytes.
const maxTag = 128

// tags decodes a tool's tags: a list of distinct, non-empty strings of
// printable characters, which toolsets select tools by.
func (l *loader) tags(ctx *engine.DecodeContext, a *hcl.Attribute) []string {
	return l.words(ctx, a, "tags", `["issues", "read"]`, func(s string) string {
		if s == "" || len(s) > maxTag || strings.ContainsFunc(s, unicode.IsControl) {
			return fmt.Sprintf("The tag %q is empty, longer than %d bytes or holds a control character; tags are short labels such as issues.", s, maxTag)
		}
		return ""
	})
}

// words decodes a list of distinct strings, each checked by invalid (which
// says what is wrong, or ""). attr names the attribute in errors; example
// is a valid value.
func (l *loader) words(ctx *engine.DecodeContext, a *hcl.Attribute, attr, example string, invalid func(string) string) []string {
	v, diags := ctx.Eval(a.Expr)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || !v.IsKnown() {
		return nil
	}
	summary := "Invalid " + attr
	detail := fmt.Sprintf("%s must be a list of strings, such as %s.", attr, example)
	ty := v.Type()
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		l.error(a.Expr.Range(), summary, "%s", detail)
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String || !e.IsKnown() {
			l.error(a.Expr.Range(), summary, "%s", detail)
			return nil
		}
		s := e.AsString()
		if msg := invalid(s); msg != "" {
			l.error(a.Expr.Range(), strings.TrimSuffix(summary, "s"), "%s", msg)
			return nil
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// toolUse is what a block decoded as a tool serves when it is not a tool
// block (a resource's contents, an argument's completions): what its use
// adds to what the block declares.
type toolUse struct {
	// args are arguments the block has without declaring them.
	args []schema.Arg
	// outputs, when not nil, decodes outputs the block declares otherwise
	// than with output blocks; ctx.Env holds the result's variables.
	outputs func(ctx *engine.DecodeContext) []engine.Output
	// completes, when not nil, receives the complete blocks of the
	// block's arguments, by name; when nil, they are errors.
	completes map[string]*hcl.Block
}

// tool decodes one tool block; nil when it has errors.
func (l *loader) tool(b *hcl.Block, bodySchema *hcl.BodySchema) *engine.Tool {
	return l.toolFor(b, bodySchema, toolUse{})
}

// toolFor decodes a block as a tool for use; nil when it has errors.
func (l *loader) toolFor(b *hcl.Block, bodySchema *hcl.BodySchema, use toolUse) *engine.Tool {
	before := len(l.diags)
	name := b.Labels[0]
	if !toolName.MatchString(name) {
		l.error(b.LabelRanges[0], "Invalid tool name",
			"%q is not a valid tool name: use 1 to 128 letters, digits, underscores, dashes and dots.", name)
	}
	content, diags := b.Body.Content(bodySchema)
	l.diags = append(l.diags, diags...)
	ctx := l.decodeContext(b.DefRange.Filename)
	spec := engine.ToolSpec{Name: name, Range: b.DefRange}
	l.publicAttrs(ctx, content.Attributes, func(attr string) string { return "the " + attr + " of a tool" },
		"title", "description", "icons")

	str := func(attr string, dst *string) {
		if a, ok := content.Attributes[attr]; ok {
			s, diags := ctx.String(a.Expr)
			l.diags = append(l.diags, diags...)
			*dst = s
		}
	}
	str("title", &spec.Title)
	str("description", &spec.Description)
	if a, ok := content.Attributes["description"]; ok && spec.Description == "" && !l.diags.HasErrors() {
		l.error(a.Expr.Range(), "Empty description", "Every tool needs a description: it is how a model decides when to call the tool.")
	}
	if a, ok := content.Attributes["timeout"]; ok {
		d, diags := ctx.Duration(a.Expr)
		l.diags = append(l.diags, diags...)
		spec.Timeout = d
	}

	if a, ok := content.Attributes["icons"]; ok {
		spec.Icons = l.icons(ctx, a)
	}
	if a, ok := content.Attributes["meta"]; ok {
		spec.Meta = l.jsonObject(ctx, a.Expr, "meta", "the meta of a tool")
	}
	if a, ok := content.Attributes["max_concurrency"]; ok {
		n, diags := ctx.Int(a.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() && (n < 1 || n > 1<<20) {
			l.error(a.Expr.Range(), "Invalid max_concurrency", "max_concurrency is how many calls of this tool may run at once: a whole number from 1.")
		}
		spec.MaxConcurrency = int(n)
	}
	if a, ok := content.Attributes["max_result_bytes"]; ok {
		n, diags := ctx.Int(a.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() && n < 1 {
			l.error(a.Expr.Range(), "Invalid max_result_bytes", "max_result_bytes caps the size of this tool's results: a whole number of bytes from 1.")
		}
		spec.MaxResultBytes = n
	}
	if a, ok := content.Attributes["scopes"]; ok {
		spec.Scopes = l.scopes(ctx, a)
	}
	if a, ok := content.Attributes["tags"]; ok {
		spec.Tags = l.tags(ctx, a)
	}
	if a, ok := content.Attributes["sanitize"]; ok {
		// Only an explicit false turns cleaning off; null keeps it.
		keep, diags := ctx.Bool(a.Expr)
		l.diags = append(l.diags, diags...)
		if v, _ := ctx.Eval(a.Expr); !diags.HasErrors() && !v.IsNull() {
			spec.NoSanitize = !keep
		}
	}
	spec.RateLimiter = l.rateLimiter(ctx, content.Blocks)

	var argsEnv types.Map
	var defaults map[string]hcl.Range
	spec.Args, argsEnv, defaults = l.args(ctx, content.Blocks, use.completes)
	for _, a := range use.args {
		spec.Args = append(spec.Args, a)
		argsEnv[a.Name] = a.Type.ExprType()
	}
	if a, ok := content.Attributes["input_schema"]; ok {
		spec.InputSchema = l.inputSchema(ctx, a, spec.Args)
		argsEnv[types.Extra] = types.Any
	}
	if a, ok := content.Attributes["defs"]; ok {
		spec.Defs = l.defs(ctx, a)
	}

	for _, ab := range content.Blocks {
		if ab.Type != "annotations" {
			continue
		}
		if spec.Annotations != nil {
			l.error(ab.DefRange, "Duplicate annotations block", "A tool takes at most one annotations block; merge them.")
			continue
		}
		if attrs, diags := ab.Body.JustAttributes(); !diags.HasErrors() {
			for _, a := range attrs {
				l.public(ctx, a.Expr, "the annotation "+a.Name+" of a tool")
			}
		}
		var ann annotationsBlock
		l.diags = append(l.diags, decodeBody(ctx, ab.Body, &ann)...)
		spec.Annotations = &engine.Annotations{
			ReadOnlyHint: ann.ReadOnly, DestructiveHint: ann.Destructive,
			IdempotentHint: ann.Idempotent, OpenWorldHint: ann.OpenWorld,
		}
	}

	var public hcl.Range // of the cache block's public = true
	spec.Cache, public = l.cachePolicy(ctx, content.Blocks, spec.Annotations)

	// The action sees the arguments; what runs after it also sees its result.
	caller := engine.CallerType(l.claims)
	ctx.Env = mapping.Env{"args": argsEnv, "caller": caller}
	resultEnv := mapping.Env{"args": argsEnv, "caller": caller}
	var actionBlock *hcl.Block
	for _, ab := range content.Blocks {
		adapter, ok := l.opts.Registry.Action(ab.Type)
		if !ok {
			continue
		}
		if actionBlock != nil {
			l.error(ab.DefRange, "More than one action",
				"This tool already has %s action at %s. A tool runs one action; split it into two tools.", engine.WithArticle(actionBlock.Type), actionBlock.DefRange)
			continue
		}
		actionBlock = ab
		action, diags := adapter.DecodeAction(ctx, ab)
		l.diags = append(l.diags, diags...)
		spec.Action = action
		for k, v := range adapter.Result() {
			resultEnv[k] = v
		}
		if rt, ok := action.(engine.ResultTyper); ok {
			for k, v := range rt.ResultTypes() {
				resultEnv[k] = v
			}
		}
	}
	spec.Logs = l.logs(ctx, content.Blocks)

	ctx.Env = resultEnv
	spec.Outputs = l.outputs(ctx, content.Blocks)
	if use.outputs != nil {
		spec.Outputs = append(spec.Outputs, use.outputs(ctx)...)
	}
	program := func(attr string, want reflect.Kind) mapping.Value {
		a, ok := content.Attributes[attr]
		if !ok {
			return nil
		}
		// The text and the error message reach the client; whether the
		// call fails (error_if) does not.
		if attr != "error_if" && !l.public(ctx, a.Expr, "the "+attr+" of "+shownBy(b.Type)) {
			return nil
		}
		v, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		if rt := mapping.ResultType(v); rt != nil && want != reflect.Invalid && rt.Kind() != want {
			l.error(a.Expr.Range(), "Wrong type for "+attr, "%s must yield a %s, but this yields %s.", attr, want, goTypeName(rt))
		}
		return v
	}
	spec.Content = l.contents(ctx, content.Blocks)
	if a, ok := content.Attributes["text"]; ok && len(spec.Content) > 0 {
		l.error(a.NameRange, "Both text and content blocks", "With content blocks, the content of a result is exactly those blocks; write the text as content \"text\" { text = … } among them.")
	}
	spec.Text = program("text", reflect.Invalid)
	spec.ErrorIf = program("error_if", reflect.Bool)
	spec.ErrorMsg = program("error_message", reflect.Invalid)
	l.checkPublicCache(ctx, &spec, public)

	if len(l.diags) > before && l.diags[before:].HasErrors() {
		// Report invalid defaults in the same run as the other errors,
		// checked against the arguments' own schema.
		if v, err := schema.Compile(schema.WithDefs(schema.InputSchema(spec.Args), spec.Defs)); err == nil {
			l.checkDefaults(v.ValidatePartial, spec.Args, defaults)
		}
		return nil
	}
	spec.ReadsCaller = ctx.ReadsCaller
	spec.Schemas = l.schemas
	t, err := engine.NewTool(spec, l.settings, l.redactor)
	if err != nil {
		l.error(b.DefRange, "Invalid tool schema", "%s.", err)
		return nil
	}
	l.checkDefaults(t.ValidateDefaults, spec.Args, defaults)
	return t
}

// shownBy names what a block of type typ declares, as an error message
// says whose attribute clients see: "a tool", "a resource_template", "a
// complete block".
func shownBy(typ string) string {
	if typ == "complete" {
		return "a complete block"
	}
	return engine.WithArticle(typ)
}

// inputSchema reads the input_schema escape hatch: a JSON Schema object
// given as jsonencode({…}), file("x.json") or an HCL object.
func (l *loader) inputSchema(ctx *engine.DecodeContext, a *hcl.Attribute, args []schema.Arg) map[string]any {
	doc := l.jsonObject(ctx, a.Expr, "input_schema", "the input_schema of a tool")
	if doc == nil {
		return nil
	}
	if doc["type"] != "object" {
		l.error(a.Expr.Range(), "Invalid input_schema", `The input schema of a tool must have "type": "object".`)
		return nil
	}
	if len(args) > 0 {
		l.error(a.Expr.Range(), "Both input_schema and arg blocks", "A tool declares its arguments either with arg blocks or with input_schema, not both; keep one.")
		return nil
	}
	if _, err := schema.Compile(doc); err != nil {
		l.error(a.Expr.Range(), "Invalid input_schema", "The schema does not compile: %s.", err)
		return nil
	}
	return doc
}

// defs reads a tool's defs: named JSON Schemas that its arguments refer to
// as {"$ref": "#/$defs/name"}, given as an object of schemas (such as a
// local shared by the tools of an imported API) or as jsonencode({…}).
func (l *loader) defs(ctx *engine.DecodeContext, a *hcl.Attribute) map[string]any {
	m := l.jsonObject(ctx, a.Expr, "defs", "the defs of a tool")
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch m[name].(type) {
		case map[string]any, bool:
		default:
			l.error(a.Expr.Range(), "Invalid defs", `defs maps names to JSON Schemas, such as { Pet = { type = "object" } }; %q is not a schema.`, name)
			return nil
		}
	}
	return m
}

// jsonObject evaluates a load-time JSON object: a string holding JSON (as
// from jsonencode or file), or an HCL object. Clients see it, so it must
// be public; shownAs names it in that error.
func (l *loader) jsonObject(ctx *engine.DecodeContext, e hcl.Expression, what, shownAs string) map[string]any {
	g, ok := literal(e, func(tr hcl.Traversal) (any, bool) { return l.localJSON(ctx, tr) })
	if !ok {
		v, diags := ctx.Eval(e)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() || !v.IsWhollyKnown() {
			return nil // reported, here or where the unknown value comes from
		}
		if !l.publicValue(ctx, e, v, shownAs) {
			return nil
		}
		var err error
		if g, err = mapping.FromCty(v); err != nil {
			l.error(e.Range(), "Invalid "+what, "%s.", err)
			return nil
		}
	}
	if s, ok := g.(string); ok {
		var err error
		g, err = decodeJSON(s)
		if err != nil {
			l.error(e.Range(), "Invalid "+what, "The value is not a JSON object: %s.", err)
			return nil
		}
	}
	m, ok := g.(map[string]any)
	if !ok {
		l.error(e.Range(), "Invalid "+what, "%s must be a JSON Schema object, such as jsonencode({type = \"string\"}) or file(\"schema.json\").", what)
		return nil
	}
	return m
}

// localJSON is the value of a local (tr is local.name) as JSON's Go values,
// converted once: an imported API names the schemas its tools share as
// locals. It reports false for a local that is sensitive, not known or
// not plain data (an expr() program), which the caller evaluates to say so.
// The value is shared by every tool that reads it, so it is never changed.
func (l *loader) localJSON(ctx *engine.DecodeContext, tr hcl.Traversal) (any, bool) {
	name := tr[1].(hcl.TraverseAttr).Name
	if g, ok := l.localValues.Load(name); ok {
		return g, true
	}
	v, diags := tr.TraverseAbs(ctx.EvalContext)
	if diags.HasErrors() || !v.IsWhollyKnown() || v.ContainsMarked() {
		return nil, false
	}
	g, err := mapping.FromCty(v)
	if err != nil {
		return nil, false
	}
	l.localValues.Store(name, g)
	return g, true
}

// outputs decodes the output blocks.
func (l *loader) outputs(ctx *engine.DecodeContext, blocks hcl.Blocks) []engine.Output {
	var outs []engine.Output
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		if b.Type != "output" {
			continue
		}
		name := b.Labels[0]
		if first, dup := seen[name]; dup {
			l.error(b.LabelRanges[0], "Duplicate output", "An output named %q is already declared at %s.", name, first.DefRange)
			continue
		}
		seen[name] = b
		content, diags := b.Body.Content(outputSchema)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		o := engine.Output{Output: schema.Output{Name: name, Type: &schema.Type{Kind: schema.Any}}}
		l.publicAttrs(ctx, content.Attributes, func(attr string) string { return "the " + attr + " of an output" }, "description")
		if a, ok := content.Attributes["type"]; ok {
			t, diags := schema.ParseType(a.Expr)
			l.diags = append(l.diags, diags...)
			if t != nil {
				o.Type = t
			}
		}
		if a, ok := content.Attributes["schema"]; ok {
			if _, typed := content.Attributes["type"]; typed {
				l.error(a.Expr.Range(), "Both schema and type", "An output with a schema takes its type from the schema; remove type.")
			}
			o.Schema = l.jsonObject(ctx, a.Expr, "schema", "the schema of an output")
		}
		if a, ok := content.Attributes["description"]; ok {
			s, diags := ctx.String(a.Expr)
			l.diags = append(l.diags, diags...)
			o.Description = s
		}
		if a, ok := content.Attributes["optional"]; ok {
			v, diags := ctx.Bool(a.Expr)
			l.diags = append(l.diags, diags...)
			o.Optional = v
		}
		a := content.Attributes["value"]
		if !l.public(ctx, a.Expr, "the value of an output") {
			continue
		}
		v, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if rt := mapping.ResultType(v); rt != nil && !fits(rt, o.Type) {
			l.error(a.Expr.Range(), "Wrong type for output",
				"Output %q is declared as %s, but its value is always %s. Change the type or the value.", name, o.Type, goTypeName(rt))
			continue
		}
		o.Value = v
		outs = append(outs, o)
	}
	return outs
}

var outputSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "type"},
	{Name: "schema"},
	{Name: "description"},
	{Name: "optional"},
	{Name: "value", Required: true},
}}

// fits reports whether values of Go type rt can be of the declared type.
// It only rules out what can never match.
func fits(rt reflect.Type, t *schema.Type) bool {
	k := rt.Kind()
	switch t.Kind {
	case schema.String:
		return k == reflect.String
	case schema.Bool:
		return k == reflect.Bool
	case schema.Number:
		return k >= reflect.Int && k <= reflect.Float64
	case schema.Integer:
		return k >= reflect.Int && k <= reflect.Float64
	case schema.List:
		return k == reflect.Slice || k == reflect.Array
	case schema.Map, schema.Object:
		return k == reflect.Map || k == reflect.Struct
	}
	return true
}

// decodeJSON parses one JSON document, with numbers kept exact.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// goTypeName names a Go type in the words of the language, for messages.
func goTypeName(rt reflect.Type) string {
	switch k := rt.Kind(); {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a bool"
	case k >= reflect.Int && k <= reflect.Uint64:
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	case k == reflect.Map || k == reflect.Struct:
		return "a map"
	}
	return "a " + rt.String()
}

// icons decodes a tool's icons: a list of objects with src, and optionally
// mime_type, sizes and theme.
func (l *loader) icons(ctx *engine.DecodeContext, a *hcl.Attribute) []engine.Icon {
	list, ok := l.plain(ctx, a).([]any)
	bad := func(detail string) []engine.Icon {
		l.error(a.Expr.Range(), "Invalid icons", "%s Write icons = [{ src = \"https://example.com/icon.png\", mime_type = \"image/png\", sizes = [\"48x48\"] }].", detail)
		return nil
	}
	if !ok {
		return bad("icons must be a list of objects.")
	}
	var out []engine.Icon
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return bad("Each icon must be an object.")
		}
		var icon engine.Icon
		for k, v := range m {
			switch k {
			case "src", "mime_type", "theme":
				s, ok := v.(string)
				if !ok {
					return bad(k + " must be a string.")
				}
				switch k {
				case "src":
					icon.Src = s
				case "mime_type":
					icon.MIMEType = s
				case "theme":
					if s != "light" && s != "dark" {
						return bad(`theme must be "light" or "dark".`)
					}
					icon.Theme = s
				}
			case "sizes":
				sizes, ok := v.([]any)
				if !ok {
					return bad("sizes must be a list of strings.")
				}
				for _, sz := range sizes {
					s, ok := sz.(string)
					if !ok {
						return bad("sizes must be a list of strings.")
					}
					icon.Sizes = append(icon.Sizes, s)
				}
			default:
				return bad(fmt.Sprintf("An icon has no attribute %q.", k))
			}
		}
		if !strings.HasPrefix(icon.Src, "https://") && !strings.HasPrefix(icon.Src, "data:") {
			return bad("An icon's src must be an https: or data: URI.")
		}
		out = append(out, icon)
	}
	return out
}
