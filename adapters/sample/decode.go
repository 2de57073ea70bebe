package sampleaction

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// ActionSpec is the sample block of a tool.
var ActionSpec = &spec.Block{
	Name:    "sample",
	In:      "tool",
	Summary: "Asks the client's model (sampling): the answer's text is the tool's result.",
	Doc: "The server sends sampling/createMessage to the client, which asks its model (and, as a rule, the person) and answers. " +
		"Over stdio the request goes on the session; a client of 2026-07-28 gets an input_required result and calls again with the answer " +
		"and a request state the server signed (see the server block's request_state_keys). A client that did not declare the sampling " +
		"capability, or a session of an earlier revision over stateless HTTP, is refused. The programs after it read text (the answer, " +
		"cleaned of terminal controls and cut to 1 MiB; decoded with parse = \"json\"), model, stop_reason and truncated.",
	Example: `sample {
  system_prompt = "You summarise web pages in three sentences."
  messages      = [expr("'Summarise the page ' + args.id")]
  max_tokens    = 400
  model_hints   = ["claude"]
}`,
	Attrs: []*spec.Attr{
		spec.Expr("messages", "is the conversation: a list of user messages (strings), or of objects { role = \"user\" or \"assistant\", text = … }; a string is one user message").Mandatory(),
		spec.Expr("system_prompt", "is the system prompt the client's model is asked to use"),
		spec.Int("max_tokens", "is the most tokens the answer may take").Range(1, 1_000_000).WithDefault(int64(1000)),
		spec.Any("temperature", "is the sampling temperature, a number from 0 to 2; unset or 0: the client's choice"),
		spec.List("stop_sequences", spec.KindString, "end the answer where the model writes one of them"),
		spec.List("model_hints", spec.KindString, "name models or families of them, in order of preference, such as [\"claude\", \"sonnet\"]: the client maps them to its own"),
		spec.Any("cost_priority", "says how much a cheap model matters, from 0 to 1"),
		spec.Any("speed_priority", "says how much a fast model matters, from 0 to 1"),
		spec.Any("intelligence_priority", "says how much a capable model matters, from 0 to 1"),
		spec.Enum("parse", "says how the answer reaches the programs as text",
			spec.Choice{Value: "text", Doc: "a string"}, spec.Choice{Value: "json", Doc: "the answer decoded as JSON, a Markdown code fence around it taken off; not JSON: a tool error"}).WithDefault("text"),
		spec.String("key", "names the request in a 2026-07-28 input request, under which the client answers").WithDefault(engine.DefaultSampleKey),
	},
}

// decode decodes a sample block; nil when it has errors.
func decode(ctx *engine.DecodeContext, block *hcl.Block) (*action, hcl.Diagnostics) {
	v, diags := ActionSpec.Decode(block.Body, ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	a := &action{
		key:      v.String("key"),
		messages: v.Program("messages"),
		system:   v.Program("system_prompt"),
		json:     v.String("parse") == "json",
	}
	a.req.MaxTokens = v.Int("max_tokens")
	a.req.StopSequences = v.Strings("stop_sequences")
	a.req.ModelHints = v.Strings("model_hints")
	number := func(name string, max float64, into *float64) {
		val := v.Value(name)
		if val == cty.NilVal {
			return
		}
		val, _ = val.UnmarkDeep()
		if val.Type() != cty.Number || !val.IsKnown() {
			diags = append(diags, errorf(v.Attr(name).Expr.Range(), "Invalid "+name, "%s is a number; got %s.", name, val.Type().FriendlyName()))
			return
		}
		f, _ := val.AsBigFloat().Float64()
		if f < 0 || f > max {
			diags = append(diags, errorf(v.Attr(name).Expr.Range(), "Invalid "+name, "%s is a number from 0 to %g; got %s.", name, max, val.AsBigFloat().Text('g', -1)))
			return
		}
		*into = f
	}
	number("temperature", 2, &a.req.Temperature)
	number("cost_priority", 1, &a.req.CostPriority)
	number("speed_priority", 1, &a.req.SpeedPriority)
	number("intelligence_priority", 1, &a.req.IntelligencePriority)
	if !validKey(a.key) {
		diags = append(diags, errorf(v.Attr("key").Expr.Range(), "Invalid key", "key names the request in an input request: use 1 to 128 letters, digits, underscores, dashes and dots."))
	}
	// Fixed messages and system prompt are checked, and built, once.
	if c, fixed := mapping.IsConst(a.messages); fixed {
		ms, err := messages(c)
		if err != nil {
			diags = append(diags, errorf(v.Attr("messages").Expr.Range(), "Invalid messages", "%s.", err))
		}
		a.fixed = ms
	}
	if a.system != nil {
		if c, fixed := mapping.IsConst(a.system); fixed {
			s, ok := c.(string)
			if !ok && c != nil {
				diags = append(diags, errorf(v.Attr("system_prompt").Expr.Range(), "Invalid system_prompt", "system_prompt is a string; got %s.", mapping.Describe(c)))
			}
			a.req.SystemPrompt, a.system = s, nil
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return a, diags
}

func validKey(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// messages reads the conversation from a value of messages: a string (one
// user message), or a list of strings and objects {role, text}.
func messages(v any) ([]engine.SampleMessage, error) {
	switch v := v.(type) {
	case string:
		return []engine.SampleMessage{{Role: "user", Text: v}}, nil
	case []any:
		if len(v) == 0 {
			return nil, fmt.Errorf("messages is empty: give at least one user message")
		}
		out := make([]engine.SampleMessage, len(v))
		for i, e := range v {
			switch e := e.(type) {
			case string:
				out[i] = engine.SampleMessage{Role: "user", Text: e}
			case map[string]any:
				role, _ := e["role"].(string)
				msgText, ok := e["text"].(string)
				if role == "" {
					role = "user"
				}
				if role != "user" && role != "assistant" {
					return nil, fmt.Errorf("message %d has the role %q: a message's role is \"user\" or \"assistant\"", i+1, text.SanitizeString(role))
				}
				if !ok {
					return nil, fmt.Errorf("message %d has no text: a message is a string, or an object { role, text } whose text is a string", i+1)
				}
				for k := range e {
					if k != "role" && k != "text" {
						return nil, fmt.Errorf("message %d has %q: a message object has role and text alone", i+1, text.SanitizeString(k))
					}
				}
				out[i] = engine.SampleMessage{Role: role, Text: msgText}
			default:
				return nil, fmt.Errorf("message %d is %s: a message is a string, or an object { role, text }", i+1, mapping.Describe(e))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("messages is %s: give a list of messages (strings, or objects { role, text })", mapping.Describe(v))
}

// errorf is an error diagnostic about rng.
var errorf = spec.Errorf
