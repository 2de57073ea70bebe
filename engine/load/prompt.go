package load

import (
	"cmp"
	"slices"

	"github.com/expr-lang/expr/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

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
		Blocks: []spec.Nested{{Block: promptArgSpec}, {Block: confirmSpec, Max: 1}, {Block: messageSpec}},
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
	// A confirm block asks the person before the messages are made, as a
	// tool's does before its action; the messages read the answer.
	c, form := l.confirm(ctx, v.Blocks("confirm"))
	if c != nil {
		ctx.Env = mapping.Env{"args": env, "caller": engine.CallerType(l.claims), "confirm": form}
	}
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
	if c != nil {
		if err := p.SetConfirm(c, l.settings); err != nil {
			l.error(v.Blocks("confirm")[0].DefRange, "Invalid confirmation form", "%s.", err)
			return nil
		}
	}
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
