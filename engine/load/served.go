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
)

// A resource or resource_template block is read in two parts: the
// attributes of its own (servedSchema), then the rest as a tool that
// computes its contents — the same arg blocks, action blocks and programs
// as a tool, without what only a tool has.
var servedSchema = map[string]*hcl.BodySchema{
	"resource": {Attributes: []hcl.AttributeSchema{
		{Name: "uri", Required: true}, {Name: "mime_type"}, {Name: "file"}, {Name: "poll_interval"}, {Name: "icons"},
	}, Blocks: []hcl.BlockHeaderSchema{{Type: "annotations"}}},
	"resource_template": {Attributes: []hcl.AttributeSchema{
		{Name: "uri_template", Required: true}, {Name: "mime_type"}, {Name: "poll_interval"}, {Name: "icons"},
	}, Blocks: []hcl.BlockHeaderSchema{{Type: "annotations"}}},
}

// servedToolSchema is what the rest of a resource (args false) or a
// resource template (args true) block may hold.
func (l *loader) servedToolSchema(args bool) *hcl.BodySchema {
	s := l.toolSchema()
	out := &hcl.BodySchema{}
	for _, a := range s.Attributes {
		switch a.Name {
		case "description":
			a.Required = false
		case "input_schema", "scopes", "meta", "icons", "max_concurrency":
			continue
		case "defs":
			if !args {
				continue
			}
		}
		out.Attributes = append(out.Attributes, a)
	}
	for _, b := range s.Blocks {
		switch b.Type {
		case "annotations", "output", "rate_limit", "cache", "log":
			continue
		case "arg":
			if !args {
				continue
			}
		}
		out.Blocks = append(out.Blocks, b)
	}
	return out
}

// served decodes the resource and resource_template blocks.
func (l *loader) served() ([]*engine.ServedResource, []*engine.ResourceTemplate) {
	var resources []*engine.ServedResource
	seenURI := map[string]*hcl.Block{}
	schema := l.servedToolSchema(false)
	for _, b := range l.checkUnique(l.blocks["resource"], "resource") {
		if r := l.resource(b, schema, seenURI); r != nil {
			resources = append(resources, r)
		}
	}
	var templates []*engine.ResourceTemplate
	schema = l.servedToolSchema(true)
	for _, b := range l.checkUnique(l.blocks["resource_template"], "resource_template") {
		if t := l.resourceTemplate(b, schema); t != nil {
			templates = append(templates, t)
		}
	}
	slices.SortFunc(resources, func(a, b *engine.ServedResource) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(templates, func(a, b *engine.ResourceTemplate) int { return cmp.Compare(a.Name, b.Name) })
	return resources, templates
}

// servedParts reads a served block's own attributes and the tool that
// computes its contents (nil when the block has errors, or when it has no
// action and no text or content: fixed contents).
func (l *loader) servedParts(b *hcl.Block, schema *hcl.BodySchema, use toolUse) (*hcl.BodyContent, *engine.Tool, bool) {
	content, rest, diags := b.Body.PartialContent(servedSchema[b.Type])
	l.diags = append(l.diags, diags...)
	before := len(l.diags)
	inner := *b
	inner.Body = rest
	t := l.toolFor(&inner, schema, use)
	ok := !diags.HasErrors() && !l.diags[before:].HasErrors()
	return content, t, ok
}

// servedLook decodes what resources/list shows of a resource or template
// besides its names: its annotations block (audience, priority,
// last_modified) and its icons.
func (l *loader) servedLook(ctx *engine.DecodeContext, b *hcl.Block, content *hcl.BodyContent) (*engine.ContentAnnotations, []engine.Icon) {
	var ann *engine.ContentAnnotations
	if ab := l.atMostOne(content.Blocks, "annotations", b.Type); ab != nil {
		ann = l.contentAnnotations(ctx, ab)
	}
	var icons []engine.Icon
	if a, ok := content.Attributes["icons"]; ok && l.public(ctx, a.Expr, "the icons of a "+b.Type) {
		icons = l.icons(ctx, a)
	}
	return ann, icons
}

func (l *loader) resource(b *hcl.Block, schema *hcl.BodySchema, seenURI map[string]*hcl.Block) *engine.ServedResource {
	content, t, ok := l.servedParts(b, schema, toolUse{})
	attrs := content.Attributes
	ctx := l.decodeContext(b.DefRange.Filename)
	r := &engine.ServedResource{Name: b.Labels[0], Range: b.DefRange}
	r.Annotations, r.Icons = l.servedLook(ctx, b, content)
	if a, has := attrs["uri"]; has {
		r.URI = l.servedString(ctx, a, "the uri of a resource")
		if prev, dup := seenURI[r.URI]; dup && r.URI != "" {
			l.error(a.Expr.Range(), "Duplicate resource URI", "The resource at %s already has the URI %q; each resource has its own.", prev.DefRange, r.URI)
			ok = false
		}
		seenURI[r.URI] = b
	}
	if a, has := attrs["mime_type"]; has {
		r.MIMEType = l.servedString(ctx, a, "the mime_type of a resource")
	}
	if !ok || t == nil {
		return nil
	}
	r.Title, r.Description = t.Title(), t.Description()
	a, hasFile := attrs["file"]
	computed := t.HasAction() || t.HasResultPrograms()
	switch {
	case hasFile && computed:
		l.error(a.NameRange, "Both file and computed contents", "A resource's contents come from file, or from an action, text or content blocks; not both.")
		return nil
	case hasFile:
		if pa, polled := attrs["poll_interval"]; polled {
			l.error(pa.NameRange, "Nothing to poll", "A file resource is read when the configuration loads; it changes for subscribers when the configuration reloads (serve --watch). poll_interval is for contents computed by an action; remove it.")
		}
		path := l.servedString(ctx, a, "the file of a resource")
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
		r.PollInterval = l.pollInterval(ctx, attrs, t)
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

func (l *loader) resourceTemplate(b *hcl.Block, schema *hcl.BodySchema) *engine.ResourceTemplate {
	completes := map[string]*hcl.Block{}
	content, t, ok := l.servedParts(b, schema, toolUse{completes: completes})
	attrs := content.Attributes
	ctx := l.decodeContext(b.DefRange.Filename)
	spec := engine.ResourceTemplate{Name: b.Labels[0], Range: b.DefRange}
	spec.Annotations, spec.Icons = l.servedLook(ctx, b, content)
	for arg, cb := range completes {
		c := l.completer(b.Labels[0]+"."+arg, cb)
		if c == nil {
			ok = false
			continue
		}
		if spec.Completers == nil {
			spec.Completers = map[string]*engine.Completer{}
		}
		spec.Completers[arg] = c
	}
	a, hasTemplate := attrs["uri_template"]
	if hasTemplate {
		spec.URITemplate = l.servedString(ctx, a, "the uri_template of a resource template")
	}
	if m, has := attrs["mime_type"]; has {
		spec.MIMEType = l.servedString(ctx, m, "the mime_type of a resource template")
	}
	if !ok || t == nil || !hasTemplate {
		return nil
	}
	if !t.HasAction() && !t.HasResultPrograms() {
		l.error(b.DefRange, "Resource template without contents", "A resource template computes its contents from its variables: text = expr(\"…\"), content blocks, or an action block such as sql { … } with text.")
		return nil
	}
	spec.Title, spec.Description, spec.Tool = t.Title(), t.Description(), t
	spec.PollInterval = l.pollInterval(ctx, attrs, t)
	if spec.MIMEType == "" && !t.HasContentBlocks() {
		spec.MIMEType = "text/plain" // as its text is read
	}
	rt, err := engine.NewResourceTemplate(spec)
	if err != nil {
		l.error(a.Expr.Range(), "Invalid uri_template", "%s.", upperFirst(err.Error()))
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
func (l *loader) pollInterval(ctx *engine.DecodeContext, attrs hcl.Attributes, t *engine.Tool) time.Duration {
	a, ok := attrs["poll_interval"]
	if !ok {
		return 0
	}
	d, diags := ctx.Duration(a.Expr)
	l.diags = append(l.diags, diags...)
	switch {
	case diags.HasErrors():
		return 0
	case d < minPollInterval:
		l.error(a.Expr.Range(), "Invalid poll_interval", "poll_interval is how often a subscribed resource is read again, at least %s, such as \"30s\".", minPollInterval)
		return 0
	case t.ReadsCaller():
		l.error(a.Expr.Range(), "Polled contents read the caller", "These contents read caller, so they differ from one client to another, and one read cannot tell every subscriber whether they changed. Remove poll_interval, or the use of caller.")
		return 0
	}
	return d
}

// servedString evaluates a load-time string that clients see.
func (l *loader) servedString(ctx *engine.DecodeContext, a *hcl.Attribute, what string) string {
	if !l.public(ctx, a.Expr, what) {
		return ""
	}
	s, diags := ctx.String(a.Expr)
	l.diags = append(l.diags, diags...)
	return s
}

var (
	promptSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "title"}, {Name: "description"}},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "arg", LabelNames: []string{"name"}},
			{Type: "message", LabelNames: []string{"role"}},
		},
	}
	promptArgSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "title"}, {Name: "description"}, {Name: "optional"}, {Name: "enum"},
	}, Blocks: []hcl.BlockHeaderSchema{{Type: "complete"}}}
	messageSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "text"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "content", LabelNames: []string{"type"}}},
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
	content, diags := b.Body.Content(promptSchema)
	l.diags = append(l.diags, diags...)
	ctx := l.decodeContext(b.DefRange.Filename)
	p := &engine.Prompt{Name: b.Labels[0], Range: b.DefRange, Redactor: l.redactor}
	if a, ok := content.Attributes["title"]; ok {
		p.Title = l.servedString(ctx, a, "the title of a prompt")
	}
	if a, ok := content.Attributes["description"]; ok {
		p.Description = l.servedString(ctx, a, "the description of a prompt")
	}
	env := types.Map{}
	seen := map[string]*hcl.Block{}
	for _, ab := range content.Blocks {
		if ab.Type != "arg" {
			continue
		}
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
	for _, mb := range content.Blocks {
		if mb.Type != "message" {
			continue
		}
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
	content, diags := b.Body.Content(promptArgSchema)
	l.diags = append(l.diags, diags...)
	a := engine.PromptArg{Name: b.Labels[0], Required: true}
	if cb := l.atMostOne(content.Blocks, "complete", "argument"); cb != nil {
		a.Completer = l.completer(prompt+"."+a.Name, cb)
	}
	if at, ok := content.Attributes["title"]; ok {
		a.Title = l.servedString(ctx, at, "the title of a prompt argument")
	}
	if at, ok := content.Attributes["description"]; ok {
		a.Description = l.servedString(ctx, at, "the description of a prompt argument")
	}
	if at, ok := content.Attributes["optional"]; ok {
		opt, diags := ctx.Bool(at.Expr)
		l.diags = append(l.diags, diags...)
		a.Required = !opt
	}
	if at, ok := content.Attributes["enum"]; ok && l.public(ctx, at.Expr, "the enum of a prompt argument") {
		v, diags := ctx.Eval(at.Expr)
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
			if !isList || v.IsNull() || len(a.Enum) == 0 {
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
	content, diags := b.Body.Content(messageSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return engine.PromptMessage{}, false
	}
	text, hasText := content.Attributes["text"]
	if n := len(content.Blocks) + btoi(hasText); n != 1 {
		l.error(b.DefRange, "Invalid message", "A message has one content: text = … or one content block (text, image, audio, resource), not %d.", n)
		return engine.PromptMessage{}, false
	}
	m := engine.PromptMessage{Role: role}
	if hasText {
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
	c, ok := l.content(ctx, content.Blocks[0])
	if ok && c.Type == engine.ResourceLinkContent {
		l.error(content.Blocks[0].LabelRanges[0], "Invalid message content", "A prompt message holds text, an image, audio or an embedded resource, not a resource_link.")
		ok = false
	}
	m.Content = c
	return m, ok
}

// completeValues is the attribute of a complete block besides those of
// the tool that runs it (completeToolSchema).
var completeValues = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "values", Required: true}}}

// completeToolSchema is what the rest of a complete block may hold: an
// action block and what checks its result.
func (l *loader) completeToolSchema() *hcl.BodySchema {
	s := l.toolSchema()
	out := &hcl.BodySchema{}
	for _, a := range s.Attributes {
		switch a.Name {
		case "timeout", "error_if", "error_message", "max_result_bytes":
			out.Attributes = append(out.Attributes, a)
		}
	}
	for _, kind := range l.opts.Registry.ActionKinds() {
		out.Blocks = append(out.Blocks, hcl.BlockHeaderSchema{Type: kind})
	}
	return out
}

// completer decodes a complete block, the completions of an argument (name
// is prompt.arg or template.arg): an optional action block whose programs
// read args.value, the text typed so far, and values, a program that
// yields the list of values to offer; nil when it has errors.
func (l *loader) completer(name string, b *hcl.Block) *engine.Completer {
	content, rest, diags := b.Body.PartialContent(completeValues)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	values := content.Attributes["values"]
	if !toolName.MatchString(name) {
		name = "complete"
	}
	inner := *b
	inner.Body, inner.Labels, inner.LabelRanges = rest, []string{name}, []hcl.Range{b.DefRange}
	listOfText := &schema.Type{Kind: schema.List, Elem: &schema.Type{Kind: schema.String}}
	before := len(l.diags)
	t := l.toolFor(&inner, l.completeToolSchema(), toolUse{
		args: []schema.Arg{{Name: engine.CompleterValue, Type: &schema.Type{Kind: schema.String}, Description: "The text typed so far."}},
		outputs: func(ctx *engine.DecodeContext) []engine.Output {
			if !l.public(ctx, values.Expr, "the values list of a complete block") {
				return nil
			}
			v, diags := ctx.Value(values.Expr)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				return nil
			}
			if rt := mapping.ResultType(v); rt != nil && !fits(rt, listOfText) {
				l.error(values.Expr.Range(), "Wrong type for values", "values is the list of texts to offer, such as expr(\"map(rows, .name)\"), but this is always %s.", goTypeName(rt))
				return nil
			}
			return []engine.Output{{Output: schema.Output{Name: engine.CompleterOutput, Type: listOfText}, Value: v}}
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
