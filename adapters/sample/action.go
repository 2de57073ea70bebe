package sampleaction

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/expr-lang/expr/types"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// action is a decoded sample block.
type action struct {
	key      string
	req      engine.SampleRequest // what is fixed at load
	messages mapping.Value        // the conversation, per call when fixed is nil
	fixed    []engine.SampleMessage
	system   mapping.Value // the system prompt, per call; nil when fixed (in req)
	json     bool          // parse = "json"
}

var (
	_ engine.Sampler     = (*action)(nil)
	_ engine.ResultTyper = (*action)(nil)
)

// Samples marks the action as one that asks the client's model.
func (*action) Samples() {}

// Reads reports whether the messages or the system prompt read the
// variable name.
func (a *action) Reads(name string) bool {
	return a.messages != nil && mapping.Reads(a.messages, name) || a.system != nil && mapping.Reads(a.system, name)
}

// ResultTypes says that text is a string unless parse = "json".
func (a *action) ResultTypes() mapping.Env {
	if a.json {
		return nil
	}
	return mapping.Env{"text": types.String}
}

// Run asks the client's model (see [engine.Sample]).
func (a *action) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	req := a.req
	req.Messages = a.fixed
	if req.Messages == nil || a.system != nil {
		env := engine.ProgramEnv(ctx, args)
		if req.Messages == nil {
			v, err := a.messages.Eval(env)
			if err != nil {
				return nil, err
			}
			if req.Messages, err = messages(v); err != nil {
				return nil, errors.New("the sample's " + err.Error())
			}
		}
		if a.system != nil {
			v, err := a.system.Eval(env)
			if err != nil {
				return nil, err
			}
			s, ok := v.(string)
			if !ok && v != nil {
				return nil, errors.New("the sample's system_prompt is " + mapping.Describe(v) + ", not a string")
			}
			req.SystemPrompt = s
		}
	}
	ans, truncated, err := engine.Sample(ctx, a.key, &req)
	if err != nil {
		return nil, err
	}
	resp := &engine.Response{Vars: map[string]any{"text": ans.Text, "model": ans.Model, "stop_reason": ans.StopReason, "truncated": truncated}}
	if ans.Text == "" && ans.NotText != "" {
		resp.Failure = "the client's model answered with " + ans.NotText + ", not text"
		return resp, nil
	}
	if a.json {
		v, err := decodeJSON(ans.Text)
		if err != nil {
			if truncated {
				resp.Failure = "the client's model answered more than 1 MiB, which was cut, so it is not JSON"
			} else {
				resp.Failure = "the client's model did not answer JSON (" + err.Error() + "): " + text.Excerpt(ctx, ans.Text)
			}
			return resp, nil
		}
		resp.Vars["text"] = v
	}
	resp.Content = []engine.Content{{Type: engine.TextContent, Text: ans.Text}}
	return resp, nil
}

// decodeJSON decodes a model's answer, from which a Markdown code fence
// around it (```json … ```) is taken off first: models write them.
func decodeJSON(s string) (any, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}
