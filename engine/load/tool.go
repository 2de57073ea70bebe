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

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/cache"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/ratelimit"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// toolName is the rule of the MCP specification for tool names.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// toolSpec is the tool block. Its action blocks (http, exec, sql) are
// declared by their adapters: the load adds them from the registry
// (loader.withActions).
var toolSpec = &spec.Block{
	Name:    "tool",
	Labels:  []string{"name"},
	Summary: "One MCP tool: its arguments, at most one action (or a list of steps), and its result.",
	Doc: "Names are 1–128 characters of A-Z a-z 0-9 _ - . and unique across files. " +
		"A tool runs at most one action block — http, graphql, exec, sql or sample, each declared by its adapter — or a list of step blocks; a tool without either computes its result from its arguments alone. " +
		"The text block of a result is text where given, else the JSON of the structured content (the outputs), else the raw body.",
	Example: `tool "echo" {
  description = "Says the message back."
  arg "message" {
    type = string
  }
  text = expr("args.message")
}`,
	Attrs: toolAttrs,
	Blocks: []spec.Nested{
		{Block: annotationsSpec, Max: 1}, {Block: argSpec}, {Block: outputSpec}, {Block: contentSpec},
		{Block: logSpec}, {Block: ratelimit.LimitSpec, Max: 1}, {Block: cache.PolicySpec, Max: 1}, {Block: confirmSpec, Max: 1}, {Block: rootsSpec, Max: 1}, {Block: taskSpec, Max: 1}, {Block: stepSpec},
	},
}

// toolAttrs are the attributes of a tool; a resource block's tool, and a
// complete block's, have some of them.
var toolAttrs = []*spec.Attr{
	spec.String("description", "is what the tool does, for the model").Mandatory().Shown(),
	spec.String("title", "is a human-readable name").Shown(),
	spec.Any("icons", `are icons, each { src = "https://…" or "data:…", mime_type, sizes = ["48x48"], theme = "light" or "dark" }`).Unevaluated().Shown(),
	spec.Any("meta", "is the tool's _meta object in tools/list").Unevaluated().Shown(),
	spec.Any("input_schema", `is the whole JSON Schema of the arguments, as jsonencode({…}) or file("schema.json"), instead of arg blocks`).Unevaluated().Shown(),
	spec.Any("defs", `are named JSON Schemas that the arguments' schema (or input_schema) refer to as { "$ref" = "#/$defs/Name" }, such as defs = local.defs shared by many tools: those the tool reaches are listed under $defs of its inputSchema`).Unevaluated().Shown(),
	spec.Expr("text", "is the text block of the result").Unevaluated().Shown(),
	spec.Expr("error_if", "yields a bool: whether the call is a tool error").DefaultIs("HTTP status ≥ 400, a non-zero exit code, a SQL error").Unevaluated(),
	spec.Expr("error_message", "is the message of that error").Unevaluated().Shown(),
	spec.Duration("timeout", "bounds one call").DefaultIs("the server's timeout"),
	spec.Int("max_concurrency", "is how many calls of this tool may run at once; more wait, and give up at their timeout").Range(1, 1<<20).
		DefaultIs("8 per CPU for http and sql tools, the CPUs for exec, no bound without an action"),
	spec.Int("max_result_bytes", "is the largest result of a call").AtLeast(1).DefaultIs("the server's max_result_bytes"),
	spec.Bool("sanitize", "cleans terminal escape sequences and control characters out of this tool's results; false leaves them").WithDefault(true),
	spec.Enum("output_schemas", "says what this tool's outputSchema carries in tools/list (a toolset's output_schemas decides over it; mcpdecl import openapi writes \"compact\")", spec.Choices(engine.OutputSchemaModes...)...).DefaultIs("the server's"),
	spec.List("tags", spec.KindString, `are labels such as ["issues", "read"], which toolsets select tools by; each 1 to 128 bytes with no control character`),
	spec.List("scopes", spec.KindString, `are the scopes a token must all grant to list and call the tool over authenticated HTTP, such as ["tickets:write"]`),
}

// pickToolAttrs returns the attributes of a tool with those names, for a
// block that runs an action as a tool does; description is optional there.
func pickToolAttrs(names ...string) []*spec.Attr {
	var out []*spec.Attr
	for _, a := range toolAttrs {
		if a.Name == "description" {
			optional := *a
			optional.Required = false
			a = &optional
		}
		if slices.Contains(names, a.Name) {
			out = append(out, a)
		}
	}
	return out
}

// annotationsSpec is the annotations block of a tool.
var annotationsSpec = &spec.Block{
	Name:    "annotations",
	In:      "tool",
	Summary: "Hints to clients about what the tool does.",
	Example: `annotations {
  idempotent_hint = true
}`,
	Attrs: []*spec.Attr{
		spec.Bool("read_only_hint", "says the tool changes nothing (a cache block needs it)").Shown(),
		spec.Bool("destructive_hint", "says the tool may delete or overwrite").Shown(),
		spec.Bool("idempotent_hint", "says a second call with the same arguments changes nothing more").Shown(),
		spec.Bool("open_world_hint", "says the tool reaches systems outside the server").Shown(),
	},
}

// withActions is b with the action blocks of the registry, for a block
// that runs an action: a tool, a resource block, a complete block.
func (l *loader) withActions(b *spec.Block) *spec.Block {
	blocks := slices.Clone(b.Blocks)
	for i, n := range blocks {
		if n.Block == stepSpec {
			blocks[i].Block = l.withActions(stepSpec)
		}
	}
	for _, kind := range l.opts.Registry.ActionKinds() {
		blocks = append(blocks, spec.Nested{Block: &spec.Block{Name: kind, In: b.Name}})
	}
	return &spec.Block{Name: b.Name, In: b.In, Labels: b.Labels, Summary: b.Summary, Attrs: b.Attrs, Blocks: blocks}
}

// stepBodySpec is the spec of the step blocks of bodySpec, with the
// registry's action blocks.
func (l *loader) stepBodySpec(bodySpec *spec.Block) *spec.Block {
	for _, n := range bodySpec.Blocks {
		if n.Block.Name == "step" {
			return n.Block
		}
	}
	return l.withActions(stepSpec)
}

// toolsPerWorker is the fewest tools worth a goroutine of their own.
const toolsPerWorker = 64

// tools decodes every tool block, on every CPU: each tool compiles its
// programs and schemas independently, and large configurations load
// faster. What the tools share (the evaluation contexts, the registry, the
// redactor) is only read, or safe for concurrent use.
func (l *loader) tools() []*engine.Tool {
	bodySpec := l.withActions(toolSpec)
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
				decoded[i] = worker.tool(blocks[i], bodySpec)
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

// scopes reads a tool's scopes: distinct, non-empty strings without
// spaces (a token's scope claim separates scopes with spaces).
func (l *loader) scopes(v *spec.Values) []string {
	return l.words(v, "scopes", func(s string) string {
		if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
			return fmt.Sprintf("The scope %q is empty or holds a space, a quote or a backslash; scopes are single words such as tickets:read.", s)
		}
		return ""
	})
}

// maxTag is the length of the longest tag, in bytes.
const maxTag = 128

// tags reads the tags of a tool or a toolset: distinct, non-empty strings
// of printable characters, which toolsets select tools by.
func (l *loader) tags(v *spec.Values) []string {
	return l.words(v, "tags", func(s string) string {
		if s == "" || len(s) > maxTag || strings.ContainsFunc(s, unicode.IsControl) {
			return fmt.Sprintf("The tag %q is empty, longer than %d bytes or holds a control character; tags are short labels such as issues.", s, maxTag)
		}
		return ""
	})
}

// words reads the list of strings name, without repeats, each checked by
// invalid (which says what is wrong, or "").
func (l *loader) words(v *spec.Values, name string, invalid func(string) string) []string {
	var out []string
	for _, s := range v.Strings(name) {
		if msg := invalid(s); msg != "" {
			l.error(v.Attr(name).Expr.Range(), "Invalid "+strings.TrimSuffix(name, "s"), "%s", msg)
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
	// than with output blocks, with attributes of v; ctx.Env holds the
	// result's variables.
	outputs func(ctx *engine.DecodeContext, v *spec.Values) []engine.Output
	// completes, when not nil, receives the complete blocks of the
	// block's arguments, by name; when nil, they are errors.
	completes map[string]*hcl.Block
}

// tool decodes one tool block; nil when it has errors.
func (l *loader) tool(b *hcl.Block, bodySpec *spec.Block) *engine.Tool {
	t, _ := l.toolFor(b, bodySpec, toolUse{})
	return t
}

// toolFor decodes a block as a tool for use, through bodySpec: the tool
// block's, or a resource block's, which has some of a tool's attributes and
// blocks and some of its own. It returns the tool, nil when the block has
// errors, and the values decoded, for the block's own attributes.
func (l *loader) toolFor(b *hcl.Block, bodySpec *spec.Block, use toolUse) (*engine.Tool, *spec.Values) {
	before := len(l.diags)
	name := b.Labels[0]
	if !toolName.MatchString(name) {
		l.error(b.LabelRanges[0], "Invalid tool name",
			"%q is not a valid tool name: use 1 to 128 letters, digits, underscores, dashes and dots.", name)
	}
	ctx := l.decodeContext(b.DefRange.Filename)
	v, diags := bodySpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	l.shown(ctx, bodySpec, v, "the %s of "+shownBy(b.Type), false)
	// attr is the attribute as written; nil when absent, or when bodySpec
	// leaves it out.
	attr := func(name string) *hcl.Attribute {
		if bodySpec.Attr(name) == nil {
			return nil
		}
		return v.Attr(name)
	}
	blocks := func(name string) hcl.Blocks {
		for _, n := range bodySpec.Blocks {
			if n.Block.Name == name {
				return v.Blocks(name)
			}
		}
		return nil
	}
	toolAnnotations := slices.ContainsFunc(bodySpec.Blocks, func(n spec.Nested) bool { return n.Block == annotationsSpec })
	// Every tool part has timeout and max_result_bytes; a complete block's
	// has no title, description or sanitize.
	spec := engine.ToolSpec{Name: name, Range: b.DefRange, Timeout: v.Duration("timeout"), MaxResultBytes: v.Int("max_result_bytes")}
	if b.Type == "tool" {
		// A tool block's calls, and only those, go through the
		// configuration's layers, such as its audit log.
		spec.Outer = l.outer
	}
	if bodySpec.Attr("title") != nil {
		spec.Title, spec.Description = v.String("title"), v.String("description")
		// Only an explicit false turns cleaning off; null keeps it.
		spec.NoSanitize = v.Has("sanitize") && !v.Bool("sanitize")
		if bodySpec.Attr("output_schemas") != nil && v.Has("output_schemas") {
			spec.OutputSchemas = v.String("output_schemas")
		}
	}
	if a := attr("description"); a != nil && spec.Description == "" && !l.diags.HasErrors() {
		l.error(a.Expr.Range(), "Empty description", "Every tool needs a description: it is how a model decides when to call the tool.")
	}
	if a := attr("icons"); a != nil && l.public(ctx, a.Expr, "the icons of "+shownBy(b.Type)) {
		spec.Icons = l.icons(ctx, a)
	}
	if a := attr("meta"); a != nil {
		spec.Meta = l.jsonObject(ctx, a.Expr, "meta", "the meta of a tool")
	}
	if attr("max_concurrency") != nil {
		spec.MaxConcurrency = int(v.Int("max_concurrency"))
	}
	if attr("scopes") != nil {
		spec.Scopes = l.scopes(v)
	}
	if attr("tags") != nil {
		spec.Tags = l.tags(v)
	}
	limiter := l.rateLimiter(ctx, blocks("rate_limit"))

	var argsEnv types.Map
	var defaults map[string]hcl.Range
	spec.Args, argsEnv, defaults = l.args(ctx, blocks("arg"), use.completes)
	for _, a := range use.args {
		spec.Args = append(spec.Args, a)
		argsEnv[a.Name] = a.Type.ExprType()
	}
	if a := attr("input_schema"); a != nil {
		spec.InputSchema = l.inputSchema(ctx, a, spec.Args)
		argsEnv[types.Extra] = types.Any
	}
	if a := attr("defs"); a != nil {
		spec.Defs = l.defs(ctx, a)
	}
	// A resource's annotations block is another (contentAnnotationsSpec).
	if ab := blocks("annotations"); len(ab) > 0 && toolAnnotations {
		spec.Annotations = l.annotations(ctx, ab[0])
	}

	cached := l.cachePolicy(ctx, blocks("cache"), spec.Annotations)

	// The action sees the arguments; what runs after it also sees its result.
	caller := engine.CallerType(l.claims)
	ctx.Env = mapping.Env{"args": argsEnv, "caller": caller}
	resultEnv := mapping.Env{"args": argsEnv, "caller": caller}
	if r := l.roots(ctx, blocks("roots"), spec.Args); r != nil {
		if b.Type != "tool" {
			l.error(b.DefRange, "Roots outside a tool", "A %s cannot ask the client for its roots: only a tool's call carries what the client can be asked. Remove within_roots, or the roots block.", b.Type)
		} else {
			spec.Roots = r
			if cached != nil {
				l.error(blocks("cache")[0].DefRange, "Cache of a tool that works within the client's roots", "A result from the cache would skip the check of the roots, which differ from client to client: remove the cache block.")
			}
			ctx.Env = mapping.Env{"args": argsEnv, "caller": caller, "roots": rootsType}
			resultEnv["roots"] = rootsType
		}
	}
	if c, form := l.confirm(ctx, blocks("confirm")); c != nil {
		spec.Confirm = c
		if cached != nil {
			l.error(blocks("confirm")[0].DefRange, "Cache of a tool that asks for confirmation", "A result from the cache would skip the confirmation: remove the cache block or the confirm block.")
		}
		env := maps.Clone(ctx.Env) // a new Env: the context compiles against it
		env["confirm"] = form
		ctx.Env = env
		resultEnv["confirm"] = form
	}
	spec.Task = l.task(ctx, blocks("task"))
	if spec.Task != nil && cached != nil {
		l.error(blocks("task")[0].DefRange, "Cache of a tool that runs as a task", "A task keeps its own result until its ttl: remove the cache block or the task block.")
	}
	var actions hcl.Blocks
	for _, kind := range l.opts.Registry.ActionKinds() {
		actions = append(actions, blocks(kind)...)
	}
	slices.SortFunc(actions, func(x, y *hcl.Block) int { return x.DefRange.Start.Byte - y.DefRange.Start.Byte })
	for i, ab := range actions {
		if i > 0 {
			l.error(ab.DefRange, "More than one action",
				"This tool already has %s action at %s. A tool runs one action; split it into two tools.", text.WithArticle(actions[0].Type), actions[0].DefRange)
			continue
		}
		adapter, _ := l.opts.Registry.Action(ab.Type)
		action, diags := adapter.DecodeAction(ctx, ab)
		l.diags = append(l.diags, diags...)
		if _, asks := action.(engine.Sampler); asks && b.Type != "tool" {
			l.error(ab.DefRange, "Sampling outside a tool", "A %s cannot ask the client's model: only a tool's call carries what the client can be asked. Move the sample block to a tool.", b.Type)
		}
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
	if sb := blocks("step"); len(sb) > 0 {
		if len(actions) > 0 {
			l.error(actions[0].DefRange, "Both an action and steps", "A tool runs one action, or its steps in order: move this %s block into a step.", actions[0].Type)
		}
		var stepsType types.Map
		spec.Action, stepsType = l.steps(ctx, sb, l.stepBodySpec(bodySpec), ctx.Env)
		resultEnv["steps"] = stepsType
	}
	spec.Logs = l.logs(ctx, blocks("log"))

	ctx.Env = resultEnv
	spec.Outputs = l.outputs(ctx, blocks("output"))
	if use.outputs != nil {
		spec.Outputs = append(spec.Outputs, use.outputs(ctx, v)...)
	}
	program := func(attrName string, want reflect.Kind) mapping.Value {
		a := attr(attrName)
		if a == nil {
			return nil
		}
		// The text and the error message reach the client; whether the
		// call fails (error_if) does not.
		if attrName != "error_if" && !l.public(ctx, a.Expr, "the "+attrName+" of "+shownBy(b.Type)) {
			return nil
		}
		v, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		if rt := mapping.ResultType(v); rt != nil && want != reflect.Invalid && rt.Kind() != want {
			l.error(a.Expr.Range(), "Wrong type for "+attrName, "%s must yield a %s, but this yields %s.", attrName, want, goTypeName(rt))
		}
		return v
	}
	spec.Content = l.contents(ctx, blocks("content"))
	if a := attr("text"); a != nil && len(spec.Content) > 0 {
		l.error(a.NameRange, "Both text and content blocks", "With content blocks, the content of a result is exactly those blocks; write the text as content \"text\" { text = … } among them.")
	}
	spec.Text = program("text", reflect.Invalid)
	spec.ErrorIf = program("error_if", reflect.Bool)
	spec.ErrorMsg = program("error_message", reflect.Invalid)
	// The tool's own layers of its per-call path, outermost first: a call
	// its rate limit refuses does not reach its cache.
	if limiter != nil {
		spec.Layers = append(spec.Layers, limiter)
	}
	if cached != nil {
		l.diags = append(l.diags, cached.Validate(ctx, spec.Action)...)
		spec.Layers = append(spec.Layers, cached)
	}

	if len(l.diags) > before && l.diags[before:].HasErrors() {
		// Report invalid defaults in the same run as the other errors,
		// checked against the arguments' own schema.
		if v, err := schema.Compile(schema.WithDefs(schema.InputSchema(spec.Args), spec.Defs)); err == nil {
			l.checkDefaults(v.ValidatePartial, spec.Args, defaults)
		}
		return nil, v
	}
	spec.ReadsCaller = ctx.ReadsCaller
	spec.Schemas = l.schemas
	t, err := engine.NewTool(spec, l.settings, l.redactor)
	if err != nil {
		l.error(b.DefRange, "Invalid tool schema", "%s.", err)
		return nil, v
	}
	l.checkDefaults(t.ValidateDefaults, spec.Args, defaults)
	if cached != nil {
		l.cache.mu.Lock()
		l.cache.policies = append(l.cache.policies, cached)
		l.cache.mu.Unlock()
	}
	return t, v
}

// annotations decodes the annotations block of a tool.
func (l *loader) annotations(ctx *engine.DecodeContext, b *hcl.Block) *engine.Annotations {
	v, diags := annotationsSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	l.shown(ctx, annotationsSpec, v, "the annotation %s of a tool", false)
	hint := func(name string) *bool {
		if !v.Has(name) {
			return nil
		}
		b := v.Bool(name)
		return &b
	}
	return &engine.Annotations{ReadOnlyHint: hint("read_only_hint"), DestructiveHint: hint("destructive_hint"),
		IdempotentHint: hint("idempotent_hint"), OpenWorldHint: hint("open_world_hint")}
}

// shown checks with [loader.public] the written attributes of v that every
// client sees (Shown in b), but for those that the block's code evaluates
// itself (unless lazy is true); what words an attribute, given its name, as in "the %s of a
// tool".
func (l *loader) shown(ctx *engine.DecodeContext, b *spec.Block, v *spec.Values, what string, lazy bool) {
	if !l.sensitive {
		return // see public
	}
	for _, a := range b.Attrs {
		if a.Public && (!a.Lazy || lazy) && v.Written(a.Name) {
			l.public(ctx, v.Attr(a.Name).Expr, fmt.Sprintf(what, a.Name))
		}
	}
}

// shownBy names what a block of type typ declares, as an error message
// says whose attribute clients see: "a tool", "a resource_template", "a
// complete block".
func shownBy(typ string) string {
	if typ == "complete" {
		return "a complete block"
	}
	return text.WithArticle(typ)
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
			s, isText := v.(string)
			switch {
			case k == "src" && isText:
				icon.Src = s
			case k == "mime_type" && isText:
				icon.MIMEType = s
			case k == "theme" && (s == "light" || s == "dark"):
				icon.Theme = s
			case k == "theme":
				return bad(`theme must be "light" or "dark".`)
			case k == "src" || k == "mime_type":
				return bad(k + " must be a string.")
			case k == "sizes":
				sizes, _ := v.([]any)
				for _, sz := range sizes {
					s, ok := sz.(string)
					if !ok {
						return bad("sizes must be a list of strings.")
					}
					icon.Sizes = append(icon.Sizes, s)
				}
				if sizes == nil {
					return bad("sizes must be a list of strings.")
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
