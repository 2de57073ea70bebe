package server_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	"github.com/mcpdecl/mcpdecl/engine"
)

// sampleTools ask the client's model: summarise for text, classify for
// JSON checked against its outputs.
const sampleTools = `
tool "summarise" {
  description      = "Summarises a page."
  max_result_bytes = 4194304
  arg "url" {
    type = string
  }
  sample {
    system_prompt = "You summarise web pages in three sentences."
    messages      = [expr("'Summarise this page: ' + args.url")]
    max_tokens    = 400
    model_hints   = ["claude"]
    speed_priority = 0.5
  }
  output "summary" {
    type  = string
    value = expr("text")
  }
  output "model" {
    type  = string
    value = expr("model")
  }
}

tool "classify" {
  description = "Classifies a message."
  arg "message" {
    type = string
  }
  sample {
    messages = [{ role = "user", text = expr("'Classify as JSON {label, score}: ' + args.message") }]
    parse    = "json"
  }
  output "label" {
    type  = string
    value = expr("text.label")
  }
  output "score" {
    type  = number
    value = expr("text.score")
  }
}
`

// model is a client's sampling handler that answers as told, and keeps
// the requests it was sent.
type model struct {
	mu     sync.Mutex
	answer string
	asked  []*mcp.CreateMessageParams
}

func (m *model) handle(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, req.Params)
	return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", StopReason: "endTurn", Content: &mcp.TextContent{Text: m.answer}}, nil
}

func (m *model) set(answer string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answer, m.asked = answer, nil
}

func sampleConfig(t *testing.T, kind string) *engine.Config {
	t.Helper()
	return loadTools(t, withSessions(kind, sampleTools), sampleaction.New())
}

// TestSample: a sample tool asks the client's model with the messages
// built from the arguments, the system prompt, max_tokens and the model
// preferences, and its outputs read the answer; an answer with terminal
// controls is cleaned; parse = "json" decodes the answer and the output
// schema checks it. Over stdio on 2025-11-25 (sampling/createMessage on
// the session) and 2026-07-28, and over stateless HTTP on 2026-07-28
// (input_required and a signed request state, which the go-sdk client
// answers itself).
func TestSample(t *testing.T) {
	for _, transport := range []string{"stdio 2025-11-25", "stdio 2026-07-28", "http 2026-07-28", "sessions 2025-11-25", "sessions 2026-07-28"} {
		t.Run(transport, func(t *testing.T) {
			kind, version, _ := strings.Cut(transport, " ")
			m := &model{}
			cs := connectOver(t, sampleConfig(t, kind), kind, version, &mcp.ClientOptions{CreateMessageHandler: m.handle})

			m.set("A page about \x1b[31mcats\x1b[0m.")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"url": "https://example.com/cats"}})
			if err != nil || res.IsError {
				t.Fatalf("summarise: %v %+v", err, res)
			}
			got, _ := res.StructuredContent.(map[string]any)
			if got["summary"] != "A page about cats." || got["model"] != "test-model" {
				t.Errorf("summarise: %v, want the answer without its terminal controls, and the model", got)
			}
			if len(m.asked) != 1 {
				t.Fatalf("the model was asked %d times, want once", len(m.asked))
			}
			p := m.asked[0]
			if len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content.(*mcp.TextContent).Text != "Summarise this page: https://example.com/cats" {
				t.Errorf("messages: %+v", p.Messages)
			}
			if p.SystemPrompt != "You summarise web pages in three sentences." || p.MaxTokens != 400 || p.ModelPreferences == nil ||
				len(p.ModelPreferences.Hints) != 1 || p.ModelPreferences.Hints[0].Name != "claude" || p.ModelPreferences.SpeedPriority != 0.5 {
				t.Errorf("the request: %+v %+v", p, p.ModelPreferences)
			}

			m.set("```json\n{\"label\": \"spam\", \"score\": 0.9}\n```")
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "classify", Arguments: map[string]any{"message": "win a prize"}})
			if err != nil || res.IsError {
				t.Fatalf("classify: %v %+v", err, res)
			}
			if got, _ := res.StructuredContent.(map[string]any); got["label"] != "spam" || got["score"] != 0.9 {
				t.Errorf("classify: %v", res.StructuredContent)
			}
			m.set(`{"label": 3}`)
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "classify", Arguments: map[string]any{"message": "hello"}})
			if err != nil || !res.IsError || !strings.Contains(firstText(res), "label") {
				t.Errorf("classify with a wrong answer: %v %q, want a tool error that names label", err, firstText(res))
			}
			m.set("I cannot do that.")
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "classify", Arguments: map[string]any{"message": "hello"}})
			if err != nil || !res.IsError || !strings.Contains(firstText(res), "did not answer JSON") {
				t.Errorf("classify answered in prose: %v %q, want a tool error that says it is not JSON", err, firstText(res))
			}
		})
	}
}

// TestSampleHugeAnswer: an answer past the cap is cut to it.
func TestSampleHugeAnswer(t *testing.T) {
	m := &model{}
	cs := connectOver(t, sampleConfig(t, "stdio"), "stdio", "2025-11-25", &mcp.ClientOptions{CreateMessageHandler: m.handle})
	m.set(strings.Repeat("é", engine.MaxSampleBytes)) // 2 MiB
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"url": "u"}})
	if err != nil || res.IsError {
		t.Fatalf("summarise: %v %q", err, firstText(res))
	}
	got, _ := res.StructuredContent.(map[string]any)["summary"].(string)
	if len(got) != engine.MaxSampleBytes || !strings.HasSuffix(got, "é") {
		t.Errorf("the summary has %d bytes, want the answer cut to %d on a character's boundary", len(got), engine.MaxSampleBytes)
	}
}

// TestSampleWithoutSampling: a client that did not declare sampling, over
// stdio, and one of 2025-11-25 over stateless HTTP, are refused with a
// tool error that says why; one of 2026-07-28 with the protocol error
// that names the capability (SEP-2575).
func TestSampleWithoutSampling(t *testing.T) {
	t.Run("stdio without sampling", func(t *testing.T) {
		cs := connectOver(t, sampleConfig(t, "stdio"), "stdio", "2025-11-25", nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"url": "u"}})
		if err != nil || !res.IsError || !strings.Contains(firstText(res), "did not declare the sampling capability") {
			t.Errorf("summarise: %v %q, want a tool error that says the client did not declare sampling", err, firstText(res))
		}
	})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("http "+version, func(t *testing.T) {
			var opts *mcp.ClientOptions
			if version == "2025-11-25" {
				opts = &mcp.ClientOptions{CreateMessageHandler: (&model{answer: "x"}).handle}
			}
			cs := connectOver(t, sampleConfig(t, "stdio"), "http", version, opts)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{"url": "u"}})
			if version == "2025-11-25" {
				if err != nil || !res.IsError || !strings.Contains(firstText(res), "which this HTTP server does not keep (its server block keeps them with http_sessions = true") {
					t.Errorf("summarise: %v %q, want a tool error that says a session is needed", err, firstText(res))
				}
				return
			}
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(werr.Data), `"sampling"`) {
				t.Errorf("summarise: %v, want the error %d naming sampling", err, mcp.CodeMissingRequiredClientCapabilities)
			}
		})
	}
}
