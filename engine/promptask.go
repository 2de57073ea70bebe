package engine

import (
	"context"
	"fmt"
	"maps"

	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// promptAsk is what a prompt with a confirm block needs to ask: the form,
// as elicitation sends it and as it checks the answer, and the signer of
// its request states.
type promptAsk struct {
	form       *schema.Validator
	formSchema map[string]any
	states     *stateSigner
}

// SetConfirm makes prompts/get of p ask the person first, as a tool's
// confirm block does: its messages read the answer as confirm.<field>.
// The error says which form is invalid.
func (p *Prompt) SetConfirm(c *Confirm, settings Settings) error {
	form, err := schema.Compile(schema.InputSchema(c.Fields))
	if err != nil {
		return fmt.Errorf("the confirmation form of prompt %q is invalid: %w", p.Name, err)
	}
	p.Confirm = c
	p.ask = &promptAsk{form: form, formSchema: FormSchema(c.Fields, c.Titles), states: newStateSigner(settings.RequestStateKeys, settings.RequestStates)}
	return nil
}

// PromptError is why prompts/get of a prompt gave no messages: its
// arguments, a message that failed, or the person's answer. StateError
// is set when the request state the client echoed is refused.
type PromptError struct {
	Message    string
	StateError *StateError
}

func (e *PromptError) Error() string { return e.Message }

// promptStateName binds a prompt's request states to it: a tool of the
// same name does not take them.
func promptStateName(name string) string { return "prompt " + name }

// confirmed is what the person answered to p's confirmation, for the
// caller and the arguments ctx and args carry: the form's values (the
// defaults when the client cannot be asked and without_elicitation =
// "run"), or the round that asks (the first get, or one whose answer is
// missing), or the error that ends the get.
func (p *Prompt) confirmed(ctx context.Context, args map[string]string, env map[string]any) (map[string]any, *Round, error) {
	c := p.Confirm
	a := askingFrom(ctx)
	if a == nil || !a.Able {
		if c.RunWithout {
			return schema.ApplyDefaults(map[string]any{}, c.Fields), nil, nil
		}
		why := "it cannot be asked"
		if a != nil && a.Why != "" {
			why = a.Why
		}
		return nil, nil, &PromptError{Message: fmt.Sprintf("the prompt %s asks the person before it gives its messages, and %s, so it gave none; use a client that supports elicitation (form mode)", p.Name, why)}
	}
	sent := make(map[string]any, len(args))
	for k, v := range args {
		sent[k] = v
	}
	name := promptStateName(p.Name)
	var ans Answer
	answered := false
	if a.State != "" {
		claims, serr := p.ask.states.verify(ctx, a.State, name, sent)
		if serr != nil {
			return nil, nil, &PromptError{Message: serr.Error(), StateError: serr}
		}
		if len(claims.Asked) == 1 && claims.Asked[0] == c.Key {
			ans, answered = a.Answers[c.Key]
		}
	}
	if !answered {
		v, err := c.Message.Eval(maps.Clone(env))
		if err != nil {
			return nil, nil, &PromptError{Message: fmt.Sprintf("the confirmation's message of prompt %q failed: %v", p.Name, err)}
		}
		msg, ok := v.(string)
		if !ok {
			msg = jsonText(v)
		}
		msg = text.SanitizeString(msg)
		if p.Redactor.Active() {
			msg = p.Redactor.Redact(msg)
		}
		state, err := p.ask.states.sign(ctx, name, sent, c.TTL, []string{c.Key}, nil)
		if err != nil {
			return nil, nil, &PromptError{Message: err.Error()}
		}
		return nil, &Round{Questions: []*Question{{Key: c.Key, Message: msg, Schema: p.ask.formSchema}}, State: state}, nil
	}
	switch ans.Action {
	case AnswerAccept:
		content := ans.Content
		if content == nil {
			content = map[string]any{}
		}
		if vs := p.ask.form.Validate(content); len(vs) > 0 {
			return nil, nil, &PromptError{Message: "the answer to the confirmation does not fit its form, so the prompt gave no messages:\n" + schema.FormatViolations(vs)}
		}
		values := schema.ApplyDefaults(content, c.Fields)
		for _, f := range c.Fields {
			if v, ok := values[f.Name]; ok && f.Type != nil {
				values[f.Name] = schema.Coerce(v, f.Type)
			}
		}
		return values, nil, nil
	case AnswerDecline:
		return nil, nil, &PromptError{Message: fmt.Sprintf("the person declined, so the prompt %s gave no messages", p.Name)}
	case AnswerCancel:
		return nil, nil, &PromptError{Message: fmt.Sprintf("the person dismissed the question without answering, so the prompt %s gave no messages", p.Name)}
	}
	return nil, nil, &PromptError{Message: fmt.Sprintf("the answer to the confirmation has the action %q, not accept, decline or cancel, so the prompt gave no messages", text.SanitizeString(ans.Action))}
}
