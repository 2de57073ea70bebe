package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// PromptArg is one argument of a prompt. Prompt arguments are strings.
type PromptArg struct {
	Name, Title, Description string
	Required                 bool
	// Enum, when not empty, lists the values allowed; completions offer
	// them.
	Enum []string
	// Completer, when not nil, offers the completions instead (a
	// complete block).
	Completer *Completer
}

// PromptMessage is one message of a prompt: its role ("user" or
// "assistant") and its content, evaluated over the arguments.
type PromptMessage struct {
	Role    string
	Content ContentSpec
}

// Message is one message of a prompt got with arguments.
type Message struct {
	Role    string
	Content Content
}

// Prompt is a declared prompt: a template of messages over its arguments.
type Prompt struct {
	Name, Title, Description string
	Args                     []PromptArg
	Messages                 []PromptMessage
	// ReadsCaller is true when a message reads the caller variable (see
	// [Caller.Value]); only then is it made for a get.
	ReadsCaller bool
	Range       hcl.Range
	// Redactor hides the configuration's secrets in the messages got, as
	// in a tool's result: an argument may carry one back.
	Redactor *text.Redactor
	// Confirm, when not nil, asks the person before the messages are
	// made (see [Prompt.SetConfirm]); they read the answer as confirm.
	Confirm *Confirm
	ask     *promptAsk
}

// Asks reports whether prompts/get of the prompt asks the person first.
func (p *Prompt) Asks() bool { return p.Confirm != nil }

// Get checks args against the prompt's arguments and returns its messages,
// for the caller ctx carries (see [WithCaller]). The error says, for the
// client, what is wrong with the arguments or which message failed; a
// prompt that asks the person first and cannot ask (see [Prompt.Answer])
// is an error too.
func (p *Prompt) Get(ctx context.Context, args map[string]string) ([]Message, error) {
	msgs, round, err := p.Answer(ctx, args)
	if round != nil {
		return nil, &PromptError{Message: fmt.Sprintf("the prompt %s asks the person before it gives its messages, and this client cannot be asked", p.Name)}
	}
	return msgs, err
}

// Answer is [Prompt.Get] for a client that may be asked (see
// [WithAsking]): a prompt with a confirm block returns the round that
// asks the person, and its messages once the client answers with the
// round's request state.
func (p *Prompt) Answer(ctx context.Context, args map[string]string) ([]Message, *Round, error) {
	var problems []string
	for name := range args {
		if !slices.ContainsFunc(p.Args, func(a PromptArg) bool { return a.Name == name }) {
			problems = append(problems, fmt.Sprintf("the prompt has no argument %q", name))
		}
	}
	values := map[string]any{}
	for _, a := range p.Args {
		v, ok := args[a.Name]
		switch {
		case !ok && a.Required:
			problems = append(problems, fmt.Sprintf("the argument %q is required", a.Name))
		case ok && len(a.Enum) > 0 && !slices.Contains(a.Enum, v):
			problems = append(problems, fmt.Sprintf("the argument %q must be one of %s", a.Name, strings.Join(a.Enum, ", ")))
		}
		if ok {
			values[a.Name] = v
		} else {
			values[a.Name] = "" // an optional argument not given reads as ""
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, nil, &PromptError{Message: fmt.Sprintf("invalid arguments for prompt %q: %s", p.Name, strings.Join(problems, "; "))}
	}
	env := map[string]any{"args": values}
	if p.ReadsCaller {
		env["caller"] = CallerFrom(ctx).Value()
	}
	if p.Confirm != nil {
		confirmed, round, err := p.confirmed(ctx, args, env)
		if round != nil || err != nil {
			return nil, round, err
		}
		env["confirm"] = confirmed
	}
	out := make([]Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		c, ok, err := m.Content.build(env, true)
		if err != nil {
			return nil, nil, &PromptError{Message: fmt.Sprintf("message %d of prompt %q: %v", i+1, p.Name, err)}
		}
		if ok {
			c.apply(text.SanitizeString)
			if p.Redactor.Active() {
				c.apply(p.Redactor.Redact)
			}
			out = append(out, Message{Role: m.Role, Content: c})
		}
	}
	return out, nil, nil
}
