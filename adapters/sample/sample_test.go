package sampleaction_test

import (
	"context"
	"strings"
	"testing"

	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

func load(t *testing.T, src string) (*engine.Config, string) {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(sampleaction.New()), src, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)})
	return cfg, enginetest.Describe(diags)
}

// TestLoadErrors: a sample block's mistakes are load errors that say what
// to write, at the attribute.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{`sample {}`, `"messages" is required`},
		{`sample { messages = [] }`, "messages is empty"},
		{`sample { messages = [3] }`, "message 1 is a number"},
		{`sample { messages = [{ role = "system", text = "x" }] }`, `role "system"`},
		{`sample { messages = [{ role = "user" }] }`, "message 1 has no text"},
		{`sample { messages = [expr("args.nope")] }`, "nope"},
		{`sample {
  messages = ["x"]
  speed_priority = 2
}`, "speed_priority is a number from 0 to 1"},
		{`sample {
  messages = ["x"]
  key = "a b"
}`, "Invalid key"},
		{`sample {
  messages = ["x"]
  parse = "yaml"
}`, "parse"},
		{`sample {
  messages = ["x"]
  max_tokens = 0
}`, "max_tokens"},
	} {
		src := "tool \"t\" {\n  description = \"d\"\n  arg \"a\" {\n    type = string\n  }\n" + tc.block + "\n}\n"
		_, diags := load(t, src)
		if !strings.Contains(diags, tc.want) {
			t.Errorf("%s\ngot:\n%s\nwant %q", tc.block, diags, tc.want)
		}
	}
	_, diags := load(t, `
resource "r" {
  uri = "x://r"
  sample {
    messages = ["Say hello."]
  }
}
`)
	if !strings.Contains(diags, "A resource cannot ask the client's model") {
		t.Errorf("a resource that samples: %s", diags)
	}
}

// TestRequestState: the answer to a sample comes with the request state
// the question was asked with; a state changed, replayed, or made for
// other arguments is refused and the answer not taken; a client that
// cannot be asked is refused.
func TestRequestState(t *testing.T) {
	cfg, diags := load(t, `
tool "t" {
  description = "d"
  arg "a" {
    type = string
  }
  sample {
    messages = [expr("'Say ' + args.a")]
  }
  text = expr("'model said: ' + text")
}
`)
	if cfg == nil {
		t.Fatal(diags)
	}
	tool, _ := cfg.Tool("t")
	ctx := context.Background()
	first := tool.Call(engine.WithAsking(ctx, &engine.Asking{Sampling: true}), []byte(`{"a": "hi"}`))
	if first.Round == nil || len(first.Round.Questions) != 1 {
		t.Fatalf("the first call: %+v, want a sampling question", first)
	}
	q := first.Round.Questions[0]
	if q.Sample == nil || q.Sample.Messages[0].Text != "Say hi" || q.Key != "sample" || first.Round.State == "" {
		t.Fatalf("the first call: %+v, want a sampling question", first)
	}
	answer := func(state, args string) *engine.Result {
		return tool.Call(engine.WithAsking(ctx, &engine.Asking{Sampling: true, State: state,
			Answers: map[string]engine.Answer{"sample": {Sample: &engine.SampleAnswer{Role: "assistant", Text: "hi\x1b]0;owned\x07!", Model: "m"}}}}), []byte(args))
	}
	if r := answer(first.Round.State, `{"a": "other"}`); r.StateError == nil {
		t.Errorf("other arguments: %+v, want the state refused", r)
	}
	if r := answer(first.Round.State+"x", `{"a": "hi"}`); r.StateError == nil {
		t.Errorf("a changed state: %+v, want it refused", r)
	}
	if r := answer(first.Round.State, `{"a": "hi"}`); r.IsError || r.Text() != "model said: hi!" {
		t.Errorf("the answer: %q, want it without the terminal control", r.Text())
	}
	if r := answer(first.Round.State, `{"a": "hi"}`); r.StateError == nil || !strings.Contains(r.StateError.Error(), "answered already") {
		t.Errorf("replayed: %+v, want the state refused", r)
	}
	r := tool.Call(engine.WithAsking(ctx, &engine.Asking{SamplingWhy: "the client did not declare the sampling capability"}), []byte(`{"a": "hi"}`))
	if !r.IsError || !strings.Contains(r.Text(), "did not declare the sampling capability") || r.Confirmation != engine.SamplingRefused {
		t.Errorf("a client without sampling: %q", r.Text())
	}
}
