package server

import (
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
// HTTP does not keep.
func askingOf(req *mcp.CallToolRequest, overHTTP bool) *engine.Asking {
	a := &engine.Asking{}
	caps := req.ClientCapabilities()
	version := req.ProtocolVersion()
	switch {
	case overHTTP && version < listenVersion:
		// Its capabilities are those of an initialize this server did not
		// keep either.
		a.Why = "a client of revision " + version + " is asked on a session, which this stateless HTTP server does not keep (it is asked over stdio, and a client of " + listenVersion + " over HTTP as well)"
	case caps == nil || caps.Elicitation == nil:
		a.Why = "the client did not declare the elicitation capability"
		a.Undeclared = version >= listenVersion
	case caps.Elicitation.Form == nil && caps.Elicitation.URL != nil:
		a.Why = "the client takes elicitation in URL mode alone, and a confirmation is a form"
	default:
		a.Able = true
	}
	if p := req.Params; p != nil {
		a.State = p.RequestState
		for key, r := range p.InputResponses {
			if er, ok := r.(*mcp.ElicitResult); ok && er != nil {
				if a.Answers == nil {
					a.Answers = make(map[string]engine.Answer, len(p.InputResponses))
				}
				a.Answers[key] = engine.Answer{Action: er.Action, Content: er.Content}
			}
		}
	}
	return a
}

// askResult is the result of a call that asks q before its action runs:
// an input request of elicitation in form mode, with the signed state.
func askResult(q *engine.Question) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{q.Key: &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: q.Schema}},
		RequestState:  q.State,
	}
}

// missingElicitation is the protocol error of 2026-07-28 for a call that
// needs a capability its client did not declare (SEP-2575): the
// confirmation of a tool, which asks by elicitation.
func missingElicitation(t string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: "the tool " + t + " asks the person for confirmation before it runs (elicitation, form mode), and the client did not declare the elicitation capability; nothing was done"}
}

// stateError is the protocol error of a request state refused.
func stateError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}
