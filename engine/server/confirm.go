package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdecl/mcpdecl/engine"
)

// askingOf is what the client of a call of a tool with a confirm block can
// be asked, and what it answered. A client of 2026-07-28 is asked with an
// input_required result, over any transport; one of an earlier revision
// with elicitation/create on its session (the SDK turns the input request
// into that, and calls the handler again with the answer), which stateless
// HTTP (stateless true) does not keep.
func askingOf(ctx context.Context, req *mcp.CallToolRequest, stateless bool) *engine.Asking {
	var state string
	var responses mcp.InputResponseMap
	if p := req.Params; p != nil {
		state, responses = p.RequestState, p.InputResponses
	}
	caps, version := req.ClientCapabilities(), req.ProtocolVersion()
	if ss, _ := ctx.Value(taskSessionKey{}).(*mcp.ServerSession); ss != nil && req.Session == nil && version == "" {
		// A task's run, for a client on a session (stdio): what it can
		// be asked is what it declared when it initialized.
		if p := ss.InitializeParams(); p != nil {
			caps, version = p.Capabilities, p.ProtocolVersion
		}
	}
	return asking(caps, version, state, responses, stateless)
}

// taskSessionKey carries, in the context of a task's run, the session of
// the client that created the task (stdio), for askingOf.
type taskSessionKey struct{}

// promptAskingOf is askingOf for prompts/get of a prompt with a confirm
// block.
func promptAskingOf(req *mcp.GetPromptRequest, stateless bool) *engine.Asking {
	return asking(req.ClientCapabilities(), req.ProtocolVersion(), req.Params.RequestState, req.Params.InputResponses, stateless)
}

// asking is what a client of caps and version can be asked, and the
// answers it sent with state.
func asking(caps *mcp.ClientCapabilities, version, state string, responses mcp.InputResponseMap, stateless bool) *engine.Asking {
	a := &engine.Asking{}
	switch {
	case stateless && version < listenVersion:
		// Its capabilities are those of an initialize this server did not
		// keep either.
		a.Why = "a client of revision " + version + " is asked on a session, which this HTTP server does not keep (its server block keeps them with http_sessions = true; it is asked over stdio, and a client of " + listenVersion + " over HTTP as well)"
	case caps == nil || caps.Elicitation == nil:
		a.Why = "the client did not declare the elicitation capability"
		a.Undeclared = version >= listenVersion
	case caps.Elicitation.Form == nil && caps.Elicitation.URL != nil:
		a.Why = "the client takes elicitation in URL mode alone, and a confirmation is a form"
	default:
		a.Able = true
	}
	switch {
	case stateless && version < listenVersion:
		a.SamplingWhy = "a client of revision " + version + " is asked on a session, which this HTTP server does not keep (its server block keeps them with http_sessions = true; it is asked over stdio, and a client of " + listenVersion + " over HTTP as well)"
	case caps == nil || caps.Sampling == nil:
		a.SamplingWhy = "the client did not declare the sampling capability"
		a.SamplingUndeclared = version >= listenVersion
	default:
		a.Sampling = true
	}
	switch {
	case stateless && version < listenVersion:
		a.RootsWhy = "a client of revision " + version + " is asked on a session, which this HTTP server does not keep (its server block keeps them with http_sessions = true; it is asked over stdio, and a client of " + listenVersion + " over HTTP as well)"
	case caps == nil || caps.RootsV2 == nil:
		a.RootsWhy = "the client did not declare the roots capability"
		a.RootsUndeclared = version >= listenVersion
	default:
		a.Roots = true
	}
	a.State = state
	for key, r := range responses {
		var ans engine.Answer
		switch r := r.(type) {
		case *mcp.ElicitResult:
			if r == nil {
				continue
			}
			ans = engine.Answer{Action: r.Action, Content: r.Content}
		case *mcp.CreateMessageWithToolsResult:
			if r == nil {
				continue
			}
			ans.Sample = sampleAnswer(r.Role, r.Model, r.StopReason, r.Content...)
		case *mcp.CreateMessageResult:
			if r == nil {
				continue
			}
			ans.Sample = sampleAnswer(r.Role, r.Model, r.StopReason, r.Content)
		case *mcp.ListRootsResult:
			if r == nil {
				continue
			}
			ans.IsRoots = true
			for _, root := range r.Roots {
				if root != nil {
					ans.Roots = append(ans.Roots, engine.Root{URI: root.URI, Name: root.Name})
				}
			}
		default:
			continue
		}
		if a.Answers == nil {
			a.Answers = make(map[string]engine.Answer, len(responses))
		}
		a.Answers[key] = ans
	}
	return a
}

// sampleAnswer is a model's answer as the engine reads it: the text of
// its text blocks, joined by newlines, or the kind of what it sent
// instead.
func sampleAnswer(role mcp.Role, model, stop string, content ...mcp.Content) *engine.SampleAnswer {
	s := &engine.SampleAnswer{Role: string(role), Model: model, StopReason: stop}
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if s.Text != "" {
				s.Text += "\n"
			}
			s.Text += c.Text
		case *mcp.ImageContent:
			s.NotText = "an image"
		case *mcp.AudioContent:
			s.NotText = "audio"
		case nil:
		default:
			s.NotText = "a tool call"
		}
	}
	if s.Text != "" {
		s.NotText = ""
	}
	return s
}

// askResult is the result of a call that asks before it goes on: the
// input requests of its questions (elicitation in form mode, sampling,
// roots/list), with the signed state.
func askResult(res *engine.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: inputRequests(res.Round), RequestState: res.Round.State}
}

// inputRequests are the input requests of a round's questions.
func inputRequests(round *engine.Round) mcp.InputRequestMap {
	requests := make(mcp.InputRequestMap, len(round.Questions))
	for _, q := range round.Questions {
		switch {
		case q.Sample != nil:
			requests[q.Key] = sampleParams(q.Sample)
		case q.Roots:
			requests[q.Key] = &mcp.ListRootsParams{}
		default:
			requests[q.Key] = &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: q.Schema}
		}
	}
	return requests
}

// missingElicitation is the protocol error of 2026-07-28 for a call that
// needs a capability its client did not declare (SEP-2575): the
// confirmation of a tool, which asks by elicitation.
func missingElicitation(t string) error {
	return missingElicitationOf("the tool " + t + " asks the person for confirmation before it runs")
}

// missingElicitationOf is missingElicitation for what asks: "the prompt
// P asks the person before it gives its messages".
func missingElicitationOf(what string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: what + " (elicitation, form mode), and the client did not declare the elicitation capability; nothing was done"}
}

// sampleParams is a question to the client's model as sampling/createMessage
// asks it.
func sampleParams(r *engine.SampleRequest) *mcp.CreateMessageParams {
	p := &mcp.CreateMessageParams{SystemPrompt: r.SystemPrompt, MaxTokens: r.MaxTokens, Temperature: r.Temperature, StopSequences: r.StopSequences}
	p.Messages = make([]*mcp.SamplingMessage, len(r.Messages))
	for i, m := range r.Messages {
		p.Messages[i] = &mcp.SamplingMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: m.Text}}
	}
	if len(r.ModelHints) > 0 || r.CostPriority != 0 || r.SpeedPriority != 0 || r.IntelligencePriority != 0 {
		mp := &mcp.ModelPreferences{CostPriority: r.CostPriority, SpeedPriority: r.SpeedPriority, IntelligencePriority: r.IntelligencePriority}
		for _, h := range r.ModelHints {
			mp.Hints = append(mp.Hints, &mcp.ModelHint{Name: h})
		}
		p.ModelPreferences = mp
	}
	return p
}

// missingSampling is the protocol error of 2026-07-28 for a call of a
// tool that asks the client's model, from a client that did not declare
// sampling.
func missingSampling(t string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: "the tool " + t + " asks the client's model (sampling), and the client did not declare the sampling capability; nothing was asked"}
}

// missingRoots is the protocol error of 2026-07-28 for a call of a tool
// that works within the client's roots, from a client that did not
// declare roots.
func missingRoots(t string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: "the tool " + t + " works within the client's roots (roots/list), and the client did not declare the roots capability; nothing was done"}
}

// stateError is the protocol error of a request state refused.
func stateError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}
