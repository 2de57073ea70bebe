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
}

// Get checks args against the prompt's arguments and returns its messages,
// for the caller ctx carries (see [WithCaller]). The error says, for the
// client, what is wrong with the arguments or which message failed.
func (p *Prompt) Get(ctx context.Context, args map[string]string) ([]Message, error) {
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
		return nil, fmt.Errorf("invalid arguments for prompt %q: %s", p.Name, strings.Join(problems, "; "))
	}
	env := map[string]any{"args": values}
	if p.ReadsCaller {
		env["caller"] = CallerFrom(ctx).Value()
	}
	out := make([]Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		c, ok, err := m.Content.build(env, true)
		if err != nil {
			return nil, fmt.Errorf("message %d of prompt %q: %w", i+1, p.Name, err)
		}
		if ok {
			c.apply(text.SanitizeString)
			if p.Redactor.Active() {
				c.apply(p.Redactor.Redact)
			}
			out = append(out, Message{Role: m.Role, Content: c})
		}
	}
	return out, nil
}
