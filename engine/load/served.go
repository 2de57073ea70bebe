package load

import (
	"cmp"
	"slices"
	"time"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// resourceSpec and resourceTemplateSpec are the resource and
// resource_template blocks: attributes of their own, and a tool's that
// computes their contents — the same arg blocks, action blocks and
// programs as a tool, without what only a tool has. The load adds the
// action blocks from the registry (loader.withActions).
var (
	resourceSpec = &spec.Block{
		Name:    "resource",
		Labels:  []string{"name"},
		Summary: "An MCP resource, read by its URI: fixed contents (text, a file) or contents computed by an action, as a tool computes its result.",
		Doc: "A resource's contents come from file, or from text, content blocks or an action block (http, exec, sql) with text; not both. " +
			"Text is text/plain unless mime_type says otherwise. A resource takes a tool's title, description, timeout, text, error_if, error_message, max_result_bytes, sanitize and content blocks.",
		Example: `resource "readme" {
  uri         = "docs://readme"
  description = "The project's readme."
  text        = "Read me first."
}`,
		Attrs: slices.Concat([]*spec.Attr{
			spec.String("uri", "is the resource's URI, unique among resources, such as docs://readme").Mandatory().Shown(),
			spec.String("file", "is a file whose contents the resource serves, read when the configuration loads; relative to this file").Shown(),
		}, servedAttrs, servedToolAttrs()),
		Blocks: []spec.Nested{{Block: contentAnnotationsSpec, Max: 1}, {Block: contentSpec}},
	}
	resourceTemplateSpec = &spec.Block{
		Name:    "resource_template",
		Labels:  []string{"name"},
		Summary: "MCP resources read by URIs that match a template (RFC 6570), whose variables are its arguments.",
		Doc: "The contents are computed from the variables, as a tool computes its result from its arguments: text = expr(…), content blocks, or an action block with text. " +
			"Each variable of uri_template is an arg block; an arg may have a complete block.",
		Example: `resource_template "user" {
  uri_template = "users://{id}"
  arg "id" {
    type = string
  }
  text = expr("'user ' + args.id")
}`,
		Attrs: slices.Concat([]*spec.Attr{
			spec.String("uri_template", "is the URI template (RFC 6570), such as users://{id}").Mandatory().Shown(),
		}, servedAttrs, servedToolAttrs()),
		Blocks: []spec.Nested{{Block: contentAnnotationsSpec, Max: 1}, {Block: contentSpec}, {Block: argSpec}},
	}
)

// servedAttrs are the attributes of a resource and a resource template
// besides their URI, and besides a tool's.
var servedAttrs = []*spec.Attr{
	spec.String("mime_type", "is the media type of the contents").DefaultIs("text/plain for text").Shown(),
	spec.Duration("poll_interval", "is how often a subscribed resource is read again, to tell its subscribers when it changed (contents computed by an action only)").AtLeast(int64(minPollInterval)),
}

// servedToolAttrs are the attributes of a tool that a served block has:
// all but those that only a tool has, with description optional.
func servedToolAttrs() []*spec.Attr {
	var attrs []*spec.Attr
	for _, a := range toolAttrs {
		switch a.Name {
		case "input_schema", "scopes", "meta", "max_concurrency":
			continue
		case "description":
			optional := *a
			optional.Required = false
			a = &optional
		}
		attrs = append(attrs, a)
	}
	return attrs
}

// served decodes the resource and resource_template blocks.
func (l *loader) served() ([]*engine.ServedResource, []*engine.ResourceTemplate) {
	var resources []*engine.ServedResource
	seenURI := map[string]*hcl.Block{}
	bodySpec := l.withActions(resourceSpec)
	for _, b := range l.checkUnique(l.blocks["resource"], "resource") {
		if r := l.resource(b, bodySpec, seenURI); r != nil {
			resources = append(resources, r)
		}
	}
	var templates []*engine.ResourceTemplate
	bodySpec = l.withActions(resourceTemplateSpec)
	for _, b := range l.checkUnique(l.blocks["resource_template"], "resource_template") {
		if t := l.resourceTemplate(b, bodySpec); t != nil {
			templates = append(templates, t)
		}
	}
	slices.SortFunc(resources, func(a, b *engine.ServedResource) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(templates, func(a, b *engine.ResourceTemplate) int { return cmp.Compare(a.Name, b.Name) })
	return resources, templates
}

// servedAnnotations decodes the annotations block of a resource or a
// template, what resources/list shows of it (audience, priority,
// last_modified).
func (l *loader) servedAnnotations(ctx *engine.DecodeContext, v *spec.Values) *engine.ContentAnnotations {
	if ab := v.Blocks("annotations"); len(ab) > 0 {
		return l.contentAnnotations(ctx, ab[0])
	}
	return nil
}

func (l *loader) resource(b *hcl.Block, bodySpec *spec.Block, seenURI map[string]*hcl.Block) *engine.ServedResource {
	before := len(l.diags)
	t, v := l.toolFor(b, bodySpec, toolUse{})
	ctx := l.decodeContext(b.DefRange.Filename)
	r := &engine.ServedResource{Name: b.Labels[0], Range: b.DefRange, URI: v.String("uri"), MIMEType: v.String("mime_type")}
	r.Annotations = l.servedAnnotations(ctx, v)
	if a := v.Attr("uri"); a != nil {
		if prev, dup := seenURI[r.URI]; dup && r.URI != "" {
			l.error(a.Expr.Range(), "Duplicate resource URI", "The resource at %s already has the URI %q; each resource has its own.", prev.DefRange, r.URI)
		}
		seenURI[r.URI] = b
	}
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	r.Title, r.Description, r.Icons = t.Title(), t.Description(), t.Icons()
	a := v.Attr("file")
	computed := t.HasAction() || t.HasResultPrograms()
	switch {
	case a != nil && computed:
		l.error(a.NameRange, "Both file and computed contents", "A resource's contents come from file, or from an action, text or content blocks; not both.")
		return nil
	case a != nil:
		if pa := v.Attr("poll_interval"); pa != nil {
			l.error(pa.NameRange, "Nothing to poll", "A file resource is read when the configuration loads; it changes for subscribers when the configuration reloads (serve --watch). poll_interval is for contents computed by an action; remove it.")
		}
		path := v.String("file")
		if path == "" {
			return nil
		}
		data, full, err := ctx.ReadFile(path)
		if err != nil {
			l.error(a.Expr.Range(), "Cannot read the resource's file", "%s. The path is relative to this file.", err)
			return nil
		}
		if max := l.settings.MaxResultBytes; max > 0 && int64(len(data)) > max {
			l.error(a.Expr.Range(), "Resource file too large", "%s holds %d bytes, more than a result may (max_result_bytes, %d). Serve a smaller file, or raise max_result_bytes in the server block.", full, len(data), max)
			return nil
		}
		r.Data = data
	case computed:
		r.Tool = t
		r.PollInterval = l.pollInterval(v, t)
	default:
		l.error(b.DefRange, "Resource without contents", "A resource needs contents: text = \"…\" (or an expr()), file = \"path\", content blocks, or an action block such as http { … } with text.")
		return nil
	}
	// Text is text/plain unless said otherwise, as it is read.
	if r.MIMEType == "" && (r.Tool == nil && engine.IsTextual("", r.Data) || r.Tool != nil && !r.Tool.HasContentBlocks()) {
		r.MIMEType = "text/plain"
	}
	return r
}

func (l *loader) resourceTemplate(b *hcl.Block, bodySpec *spec.Block) *engine.ResourceTemplate {
	before := len(l.diags)
	completes := map[string]*hcl.Block{}
	t, v := l.toolFor(b, bodySpec, toolUse{completes: completes})
	ctx := l.decodeContext(b.DefRange.Filename)
	spec := engine.ResourceTemplate{Name: b.Labels[0], Range: b.DefRange, URITemplate: v.String("uri_template"), MIMEType: v.String("mime_type")}
	spec.Annotations = l.servedAnnotations(ctx, v)
	for arg, cb := range completes {
		c := l.completer(b.Labels[0]+"."+arg, cb)
		if c == nil {
			continue
		}
		if spec.Completers == nil {
			spec.Completers = map[string]*engine.Completer{}
		}
		spec.Completers[arg] = c
	}
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	if !t.HasAction() && !t.HasResultPrograms() {
		l.error(b.DefRange, "Resource template without contents", "A resource template computes its contents from its variables: text = expr(\"…\"), content blocks, or an action block such as sql { … } with text.")
		return nil
	}
	spec.Title, spec.Description, spec.Icons, spec.Tool = t.Title(), t.Description(), t.Icons(), t
	spec.PollInterval = l.pollInterval(v, t)
	if spec.MIMEType == "" && !t.HasContentBlocks() {
		spec.MIMEType = "text/plain" // as its text is read
	}
	rt, err := engine.NewResourceTemplate(spec)
	if err != nil {
		l.error(v.Attr("uri_template").Expr.Range(), "Invalid uri_template", "%s.", upperFirst(err.Error()))
		return nil
	}
	return rt
}

// minPollInterval is the shortest poll_interval: a subscribed resource
// is read again at most once a second.
const minPollInterval = time.Second

// pollInterval reads the poll_interval of a resource or template whose
// contents t computes: how often they are read again while a client is
// subscribed (resources/subscribe), to tell it when they changed.
// Contents that depend on who reads them cannot be polled for all.
func (l *loader) pollInterval(v *spec.Values, t *engine.Tool) time.Duration {
	a := v.Attr("poll_interval")
	if a == nil || !v.Has("poll_interval") {
		return 0
	}
	if t.ReadsCaller() {
		l.error(a.Expr.Range(), "Polled contents read the caller", "These contents read caller, so they differ from one client to another, and one read cannot tell every subscriber whether they changed. Remove poll_interval, or the use of caller.")
		return 0
	}
	return v.Duration("poll_interval")
}

// promptSpec is the prompt block; promptArgSpec and messageSpec, its
// arg and message blocks.
var (
	promptSpec = &spec.Block{
		Name:    "prompt",
		Labels:  []string{"name"},
		Summary: "A template of messages, one or more, that a client offers its user (prompts/list, prompts/get).",
		Doc: "prompts/get refuses a missing required argument, an unknown one and a value outside enum, naming each. " +
			"The messages' programs read args and caller (who asks), as in a tool.",
		Example: `prompt "summary" {
  description = "Asks for a summary of a topic."
  arg "topic" {
    description = "What to summarize"
  }
  message "user" {
    text = expr("'Summarize ' + args.topic + '.'")
  }
}`,
		Attrs: []*spec.Attr{
			spec.String("title", "is the prompt's name for people").Shown(),
			spec.String("description", "says what the prompt is for").Shown(),
		},
		Blocks: []spec.Nested{{Block: promptArgSpec}, {Block: messageSpec}},
	}
	promptArgSpec = &spec.Block{
		Name:    "arg",
		In:      "prompt",
		Labels:  []string{"name"},
		Summary: "One argument of the prompt: text, read as args.NAME.",
		Doc:     "completion/complete offers the values of enum that start with what was typed (up to 100), or what the complete block yields.",
		Example: `arg "length" {
  enum     = ["brief", "detailed"]
  optional = true
}`,
		Attrs: []*spec.Attr{
			spec.String("title", "is the argument's name for people").Shown(),
			spec.String("description", "says what to pass").Shown(),
			spec.Bool("optional", `lets the argument be left out; it reads as ""`).WithDefault(false),
			spec.List("enum", spec.KindString, "are the allowed values").Unevaluated().Shown(),
		},
		Blocks: []spec.Nested{{Block: completeSpec, Max: 1}},
	}
	messageSpec = &spec.Block{
		Name:    "message",
		In:      "prompt",
		Labels:  []string{"role"},
		Summary: `One message of the prompt, from the "user" or the "assistant": text = … or one content block.`,
		Example: `message "assistant" {
  text = "What would you like summarized?"
}`,
		Attrs: []*spec.Attr{
			spec.Expr("text", "is the message's text, a string or an expr(…) over args and caller").Unevaluated().Shown(),
		},
		Blocks: []spec.Nested{{Block: contentSpec}},
	}
)

// prompts decodes the prompt blocks.
func (l *loader) prompts() []*engine.Prompt {
	var out []*engine.Prompt
	for _, b := range l.checkUnique(l.blocks["prompt"], "prompt") {
		if p := l.prompt(b); p != nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *engine.Prompt) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (l *loader) prompt(b *hcl.Block) *engine.Prompt {
	before := len(l.diags)
	if !toolName.MatchString(b.Labels[0]) {
		l.error(b.LabelRanges[0], "Invalid prompt name", "%q is not a valid prompt name: use 1 to 128 letters, digits, underscores, dashes and dots.", b.Labels[0])
	}
	ctx := l.decodeContext(b.DefRange.Filename)
	v, diags := promptSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	l.shown(ctx, promptSpec, v, "the %s of a prompt", false)
	p := &engine.Prompt{Name: b.Labels[0], Range: b.DefRange, Redactor: l.redactor, Title: v.String("title"), Description: v.String("description")}
	env := types.Map{}
	seen := map[string]*hcl.Block{}
	for _, ab := range v.Blocks("arg") {
		name := ab.Labels[0]
		if prev, dup := seen[name]; dup {
			l.error(ab.LabelRanges[0], "Duplicate argument", "An argument named %q is already declared at %s.", name, prev.DefRange)
			continue
		}
		seen[name] = ab
		env[name] = types.String
		p.Args = append(p.Args, l.promptArg(ctx, p.Name, ab))
	}
	ctx.Env = mapping.Env{"args": env, "caller": engine.CallerType(l.claims)}
	for _, mb := range v.Blocks("message") {
		if m, ok := l.message(ctx, mb); ok {
			p.Messages = append(p.Messages, m)
		}
	}
	if len(p.Messages) == 0 && !l.diags[before:].HasErrors() {
		l.error(b.DefRange, "Prompt without messages", "A prompt gives the client messages: add one, such as message \"user\" { text = expr(\"'Summarize ' + args.topic\") }.")
	}
	if l.diags[before:].HasErrors() {
		return nil
	}
	p.ReadsCaller = ctx.ReadsCaller
	return p
}

func (l *loader) promptArg(ctx *engine.DecodeContext, prompt string, b *hcl.Block) engine.PromptArg {
	v, diags := promptArgSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	l.shown(ctx, promptArgSpec, v, "the %s of a prompt argument", false)
	a := engine.PromptArg{Name: b.Labels[0], Required: !v.Bool("optional"), Title: v.String("title"), Description: v.String("description")}
	if cb := v.Blocks("complete"); len(cb) > 0 {
		a.Completer = l.completer(prompt+"."+a.Name, cb[0])
	}
	if at := v.Attr("enum"); at != nil && l.public(ctx, at.Expr, "the enum of a prompt argument") {
		val, diags := ctx.Eval(at.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() {
			list, isList := l.plain(ctx, at).([]any)
			for _, e := range list {
				s, isText := e.(string)
				if !isText {
					isList = false
					break
				}
				a.Enum = append(a.Enum, s)
			}
			if !isList || val.IsNull() || len(a.Enum) == 0 {
				l.error(at.Expr.Range(), "Invalid enum", "A prompt argument is text: enum is a list of strings, such as [\"short\", \"long\"].")
			}
		}
	}
	return a
}

// message decodes a message block: its role, and text = … or one content
// block.
func (l *loader) message(ctx *engine.DecodeContext, b *hcl.Block) (engine.PromptMessage, bool) {
	role := b.Labels[0]
	if role != "user" && role != "assistant" {
		l.error(b.LabelRanges[0], "Invalid message role", "A message is from the \"user\" or the \"assistant\", not %q.", role)
		return engine.PromptMessage{}, false
	}
	v, diags := messageSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return engine.PromptMessage{}, false
	}
	text, blocks := v.Attr("text"), v.Blocks("content")
	if n := len(blocks) + btoi(text != nil); n != 1 {
		l.error(b.DefRange, "Invalid message", "A message has one content: text = … or one content block (text, image, audio, resource), not %d.", n)
		return engine.PromptMessage{}, false
	}
	m := engine.PromptMessage{Role: role}
	if text != nil {
		if !l.public(ctx, text.Expr, "the text of a prompt message") {
			return engine.PromptMessage{}, false
		}
		v, diags := ctx.Value(text.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return engine.PromptMessage{}, false
		}
		m.Content = engine.ContentSpec{Type: engine.TextContent, Text: v}
		return m, true
	}
	c, ok := l.content(ctx, blocks[0])
	if ok && c.Type == engine.ResourceLinkContent {
		l.error(blocks[0].LabelRanges[0], "Invalid message content", "A prompt message holds text, an image, audio or an embedded resource, not a resource_link.")
		ok = false
	}
	m.Content = c
	return m, ok
}

// completeSpec is the complete block of an argument of a
// resource_template or a prompt.
var completeSpec = &spec.Block{
	Name:    "complete",
	In:      "arg",
	Summary: "The completions a client is offered for the argument (completion/complete).",
	Doc: "An optional action block (http, exec, sql) whose programs read args.value, the text typed so far; " +
		"values then also reads the action's result. Clients do not complete a tool's own arguments: use enum there.",
	Example: `complete {
  values = expr("filter(['metric', 'imperial'], hasPrefix(#, args.value))")
}`,
	Attrs: append([]*spec.Attr{
		spec.Expr("values", `yields the list of texts to offer, such as expr("map(rows, .name)")`).Mandatory().Unevaluated().Shown(),
	}, pick(toolAttrs, "timeout", "error_if", "error_message", "max_result_bytes")...),
}

// pick returns the attributes of attrs with those names.
func pick(attrs []*spec.Attr, names ...string) []*spec.Attr {
	var out []*spec.Attr
	for _, a := range attrs {
		if slices.Contains(names, a.Name) {
			out = append(out, a)
		}
	}
	return out
}

// completer decodes a complete block, the completions of an argument (name
// is prompt.arg or template.arg): an optional action block whose programs
// read args.value, the text typed so far, and values, a program that
// yields the list of values to offer; nil when it has errors.
func (l *loader) completer(name string, b *hcl.Block) *engine.Completer {
	if !toolName.MatchString(name) {
		name = "complete"
	}
	inner := *b
	inner.Labels, inner.LabelRanges = []string{name}, []hcl.Range{b.DefRange}
	listOfText := &schema.Type{Kind: schema.List, Elem: &schema.Type{Kind: schema.String}}
	before := len(l.diags)
	t, _ := l.toolFor(&inner, l.withActions(completeSpec), toolUse{
		args: []schema.Arg{{Name: engine.CompleterValue, Type: &schema.Type{Kind: schema.String}, Description: "The text typed so far."}},
		outputs: func(ctx *engine.DecodeContext, v *spec.Values) []engine.Output {
			values := v.Attr("values")
			if values == nil || !l.public(ctx, values.Expr, "the values list of a complete block") {
				return nil
			}
			val, diags := ctx.Value(values.Expr)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				return nil
			}
			if rt := mapping.ResultType(val); rt != nil && !fits(rt, listOfText) {
				l.error(values.Expr.Range(), "Wrong type for values", "values is the list of texts to offer, such as expr(\"map(rows, .name)\"), but this is always %s.", goTypeName(rt))
				return nil
			}
			return []engine.Output{{Output: schema.Output{Name: engine.CompleterOutput, Type: listOfText}, Value: val}}
		},
	})
	if t == nil || l.diags[before:].HasErrors() {
		return nil
	}
	return engine.NewCompleter(t)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
