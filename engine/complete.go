package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CompleterValue is the argument of a completer's tool that holds the text
// typed so far, and CompleterOutput the output that yields the values.
const (
	CompleterValue  = "value"
	CompleterOutput = "values"
)

// A Completer offers the completions of an argument of a prompt or a
// resource template by running an action (a complete block): its tool
// takes the text typed so far as args.value, and its output "values" is
// the list of values offered, in the order given. The action decides what
// matches (a prefix, a part of a name…).
type Completer struct {
	tool *Tool
}

// NewCompleter makes a Completer of t, a tool with the argument
// [CompleterValue] and the output [CompleterOutput], a list of strings.
func NewCompleter(t *Tool) *Completer { return &Completer{tool: t} }

// Complete runs the action for value, and returns at most limit of the
// values it yields, without repeats, and whether there were more. The error
// says, for the client, why it failed.
func (c *Completer) Complete(ctx context.Context, value string, limit int) (values []string, more bool, err error) {
	args, err := json.Marshal(map[string]string{CompleterValue: value})
	if err != nil {
		return nil, false, err
	}
	res := c.tool.Call(ctx, args)
	if res.IsError {
		return nil, false, errors.New(res.Text())
	}
	list, _ := res.Structured[CompleterOutput].([]any)
	seen := make(map[string]bool, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, false, fmt.Errorf("the completion's values are not all text: %v", v)
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		if len(values) == limit {
			return values, true, nil
		}
		values = append(values, s)
	}
	return values, false, nil
}

// completeFrom filters candidates by prefix, case-insensitively.
func completeFrom(candidates []string, prefix string, limit int) (values []string, more bool) {
	lower := strings.ToLower(prefix)
	for _, c := range candidates {
		if !strings.HasPrefix(strings.ToLower(c), lower) {
			continue
		}
		if len(values) == limit {
			return values, true
		}
		values = append(values, c)
	}
	return values, false
}

// Complete returns the completions of the prompt's argument named arg for
// what was typed, value: at most limit, and whether there were more. An
// argument with a complete block runs it; else the values of its enum
// that start with value are offered. An unknown argument has none.
func (p *Prompt) Complete(ctx context.Context, arg, value string, limit int) ([]string, bool, error) {
	i := slices.IndexFunc(p.Args, func(a PromptArg) bool { return a.Name == arg })
	switch {
	case i < 0:
		return nil, false, nil
	case p.Args[i].Completer != nil:
		return p.Args[i].Completer.Complete(ctx, value, limit)
	}
	values, more := completeFrom(p.Args[i].Enum, value, limit)
	return values, more, nil
}

// Complete returns the completions of the template's variable named arg
// for what was typed, value, as [Prompt.Complete] does: from its complete
// block, else from its argument's enum.
func (t *ResourceTemplate) Complete(ctx context.Context, arg, value string, limit int) ([]string, bool, error) {
	if c := t.Completers[arg]; c != nil {
		return c.Complete(ctx, value, limit)
	}
	values, more := completeFrom(t.enums[arg], value, limit)
	return values, more, nil
}
