package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// outcome is what a test's call, read or get returned, as assertions see
// it.
type outcome struct {
	isError    bool
	text       string // the text blocks (or contents, or messages), joined by new lines
	structured any    // a tool's structured content; a resource's text decoded, when it is JSON
	content    []any  // the content blocks, or a resource's contents, as a client receives them
	messages   []any  // a prompt's messages: role and content
	err        error  // the result could not be read

	// sensitive are the names of the tool's sensitive arguments.
	sensitive []string
}

// env is what assertions read.
func (o *outcome) env(args json.RawMessage, requests []any) map[string]any {
	var a any
	_ = json.Unmarshal(args, &a)
	if requests == nil {
		requests = []any{}
	}
	return map[string]any{
		"is_error":   o.isError,
		"structured": o.structured,
		"text":       o.text,
		"content":    orEmpty(o.content),
		"messages":   orEmpty(o.messages),
		"requests":   requests,
		"args":       a,
	}
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// verb is what the test does, for messages: call, read or get.
func (t *Test) verb() string {
	switch t.Kind {
	case "resource":
		return "read"
	case "prompt":
		return "prompt"
	}
	return "call"
}

// subject returns how to run what the test exercises in cfg, and the time
// it may take; the error says that cfg has no such tool, resource or
// prompt.
func subject(cfg *engine.Config, t *Test) (func(context.Context) *outcome, time.Duration, error) {
	switch t.Kind {
	case "resource":
		return resourceSubject(cfg, t)
	case "prompt":
		p, ok := cfg.Prompt(t.Target)
		if !ok {
			return nil, 0, fmt.Errorf("the configuration (%s) declares no prompt named %q", strings.Join(t.File.Config, ", "), t.Target)
		}
		if t.Answer != nil && !p.Asks() {
			return nil, 0, fmt.Errorf("the test answers a question, but the prompt %s asks none (it has no confirm block)", t.Target)
		}
		return func(ctx context.Context) *outcome { return getPrompt(ctx, p, t.Args, t.Answer) }, 0, nil
	}
	tool, ok := cfg.Tool(t.Target)
	if !ok {
		return nil, 0, fmt.Errorf("the configuration (%s) has %s", strings.Join(t.File.Config, ", "), cfg.UnknownTool(t.Target))
	}
	if t.Answer != nil && !tool.Asks() {
		return nil, 0, fmt.Errorf("the test answers a question, but the tool %s asks none (it has no confirm block, and no argument with ask)", t.Target)
	}
	if t.ModelAnswer != nil && !tool.Samples() {
		return nil, 0, fmt.Errorf("the test gives a model_answer, but the tool %s asks no model (it has no sample block)", t.Target)
	}
	if t.Roots != nil && !tool.AsksRoots() {
		return nil, 0, fmt.Errorf("the test gives roots, but the tool %s asks for none (it has no roots block, and no argument within_roots)", t.Target)
	}
	return func(ctx context.Context) *outcome { return callTool(ctx, tool, t) }, tool.Timeout(), nil
}

// maxRounds bounds the rounds of questions of a test's call.
const maxRounds = 10

// callTool calls the tool of test t, and answers its questions as a
// client would, round after round: it calls again with the answers and
// the request state. A form (the confirmation, the arguments asked for)
// is answered t.Answer, a sample t.ModelAnswer, roots t.Roots; without
// one, the client cannot be asked that.
func callTool(ctx context.Context, tool *engine.Tool, t *Test) *outcome {
	if !tool.Asks() {
		return toolOutcome(tool, tool.Call(ctx, t.Args))
	}
	asking := engine.Asking{Why: "the test gives no answer to its confirmation", SamplingWhy: "the test gives no model_answer", RootsWhy: "the test gives no roots",
		Able: t.Answer != nil, Sampling: t.ModelAnswer != nil, Roots: t.Roots != nil}
	a := asking
	for range maxRounds {
		res := tool.Call(engine.WithAsking(ctx, &a), t.Args)
		if res.Round == nil {
			return toolOutcome(tool, res)
		}
		a = asking
		a.State, a.Answers = res.Round.State, map[string]engine.Answer{}
		for _, q := range res.Round.Questions {
			switch {
			case q.Sample != nil:
				a.Answers[q.Key] = engine.Answer{Sample: &engine.SampleAnswer{Role: "assistant", Text: *t.ModelAnswer, Model: "mcpdecl-test", StopReason: "endTurn"}}
			case q.Roots:
				a.Answers[q.Key] = engine.Answer{Roots: t.Roots, IsRoots: true}
			default:
				a.Answers[q.Key] = *t.Answer
			}
		}
	}
	return &outcome{err: fmt.Errorf("the tool %s asked more than %d rounds of questions", tool.Name(), maxRounds)}
}

// toolOutcome is what a test checks of res, a result of tool.
func toolOutcome(tool *engine.Tool, res *engine.Result) *outcome {
	b, err := server.ResultJSON(res)
	if err != nil {
		return &outcome{err: err}
	}
	var mcp struct {
		Content    []any `json:"content"`
		Structured any   `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &mcp); err != nil {
		return &outcome{err: err}
	}
	var texts []string
	for _, c := range res.Content {
		if c.Type == engine.TextContent {
			texts = append(texts, c.Text)
		}
	}
	var sensitive []string
	for _, a := range tool.Args() {
		if a.Sensitive {
			sensitive = append(sensitive, a.Name)
		}
	}
	return &outcome{isError: res.IsError, text: strings.Join(texts, "\n"), structured: mcp.Structured, content: mcp.Content, sensitive: sensitive}
}

func resourceSubject(cfg *engine.Config, t *Test) (func(context.Context) *outcome, time.Duration, error) {
	uri := t.Target
	switch r, tmpl := cfg.ResourceAt(uri); {
	case r != nil:
		var limit time.Duration
		if r.Tool != nil {
			limit = r.Tool.Timeout()
		}
		return func(ctx context.Context) *outcome { return readOutcome(r.Read(ctx)) }, limit, nil
	case tmpl != nil:
		return func(ctx context.Context) *outcome { return readOutcome(tmpl.Read(ctx, uri)) }, tmpl.Tool.Timeout(), nil
	}
	var uris []string
	for _, r := range cfg.Resources {
		uris = append(uris, r.URI)
	}
	for _, tmpl := range cfg.Templates {
		uris = append(uris, tmpl.URITemplate)
	}
	detail := "it declares none"
	if len(uris) > 0 {
		detail = "it declares " + strings.Join(uris, ", ")
	}
	return nil, 0, fmt.Errorf("no resource or resource template of the configuration has the URI %q; %s", uri, detail)
}

func readOutcome(contents []engine.ResourceContents, err error) *outcome {
	if err != nil {
		return &outcome{isError: true, text: err.Error()}
	}
	o := &outcome{}
	var texts []string
	for _, c := range contents {
		item := map[string]any{"uri": c.URI, "mimeType": c.MIMEType}
		if c.IsBlob {
			item["blob"] = c.Blob
		} else {
			item["text"] = c.Text
			texts = append(texts, c.Text)
		}
		o.content = append(o.content, item)
	}
	o.text = strings.Join(texts, "\n")
	var decoded any
	if len(contents) == 1 && json.Unmarshal([]byte(o.text), &decoded) == nil {
		o.structured = decoded
	}
	return o
}

// getPrompt gets prompt p with the arguments raw, and answers its
// confirmation, if it has one, with answer (nil: it cannot be asked).
func getPrompt(ctx context.Context, p *engine.Prompt, raw json.RawMessage, answer *engine.Answer) *outcome {
	var given map[string]any
	_ = json.Unmarshal(raw, &given)
	args := map[string]string{}
	for k, v := range given {
		s, ok := mapping.Scalar(v)
		if !ok {
			return &outcome{isError: true, text: fmt.Sprintf("the argument %q of a prompt is text; the test gives %s", k, jsonText(v))}
		}
		args[k] = s
	}
	var msgs []engine.Message
	var err error
	if p.Asks() {
		a := &engine.Asking{Able: answer != nil, Why: "the test gives no answer to its confirmation"}
		var round *engine.Round
		if msgs, round, err = p.Answer(engine.WithAsking(ctx, a), args); round != nil {
			a.State, a.Answers = round.State, map[string]engine.Answer{round.Questions[0].Key: *answer}
			msgs, round, err = p.Answer(engine.WithAsking(ctx, a), args)
			if round != nil {
				err = fmt.Errorf("the prompt %s asked again once answered", p.Name)
			}
		}
	} else {
		msgs, err = p.Get(ctx, args)
	}
	if err != nil {
		return &outcome{isError: true, text: err.Error()}
	}
	o := &outcome{}
	var texts []string
	for _, m := range msgs {
		res := server.Result(&engine.Result{Content: []engine.Content{m.Content}})
		b, err := json.Marshal(res.Content[0])
		if err != nil {
			return &outcome{err: err}
		}
		var c any
		_ = json.Unmarshal(b, &c)
		o.messages = append(o.messages, map[string]any{"role": m.Role, "content": c})
		o.content = append(o.content, c)
		if m.Content.Type == engine.TextContent {
			texts = append(texts, m.Content.Text)
		}
	}
	o.text = strings.Join(texts, "\n")
	return o
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
