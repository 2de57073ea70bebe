package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// confirmTool is a tool without action that asks "Sure?" with a form of
// one required string field, signing with keys.
func confirmTool(t *testing.T, keys ...string) *Tool {
	t.Helper()
	s := DefaultSettings()
	for _, k := range keys {
		s.RequestStateKeys = append(s.RequestStateKeys, []byte(k))
	}
	tool, err := NewTool(ToolSpec{
		Name: "drop", Description: "Drops a table.",
		Args:    []schema.Arg{{Name: "table", Type: &schema.Type{Kind: schema.String}}},
		Confirm: &Confirm{Message: mapping.Const("Sure?"), Fields: []schema.Arg{{Name: "why", Type: &schema.Type{Kind: schema.String}, Enum: []any{"old", "wrong"}}}},
		Text:    passWhy{},
	}, s, &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// passWhy is the text "dropped because <confirm.why>".
type passWhy struct{}

func (passWhy) Eval(env map[string]any) (any, error) {
	return "dropped because " + env["confirm"].(map[string]any)["why"].(string), nil
}

// askAndAnswer calls tool as caller with args, gets its question, and
// calls again with answer and the state as change makes it.
func askAndAnswer(t *testing.T, tool *Tool, caller string, args string, answer Answer, change func(state string) string, callerAgain, argsAgain string) *Result {
	t.Helper()
	ctx := WithAsking(WithCaller(context.Background(), Caller{ID: caller}), &Asking{Able: true})
	res := tool.Call(ctx, json.RawMessage(args))
	if res.Round == nil || len(res.Round.Questions) != 1 || res.Round.Questions[0].Message != "Sure?" || res.Round.State == "" || res.Confirmation != ConfirmAsked {
		t.Fatalf("the first call did not ask: %+v", res)
	}
	state := res.Round.State
	if change != nil {
		state = change(state)
	}
	ctx = WithAsking(WithCaller(context.Background(), Caller{ID: callerAgain}), &Asking{Able: true, State: state, Answers: map[string]Answer{"confirm": answer}})
	return tool.Call(ctx, json.RawMessage(argsAgain))
}

// TestRequestState: an answer comes back with the state of its question,
// signed for the tool, the arguments and the caller, good for one answer
// within its time; any other is refused with a StateError, and nothing
// runs. A key being rotated still verifies.
func TestRequestState(t *testing.T) {
	accept := Answer{Action: AnswerAccept, Content: map[string]any{"why": "old"}}
	args := `{"table": "users"}`
	tool := confirmTool(t, strings.Repeat("k", 32))

	res := askAndAnswer(t, tool, "ada", args, accept, nil, "ada", args)
	if res.IsError || res.Text() != "dropped because old" || res.Confirmation != ConfirmAccepted {
		t.Fatalf("accepted: %+v", res)
	}

	refusedWith := func(name string, res *Result, reason string) {
		t.Helper()
		se := res.StateError
		if se == nil || !strings.Contains(se.Reason, reason) || !res.IsError || res.Confirmation != ConfirmRefused {
			t.Errorf("%s: got %+v (%v), want a StateError that says %q", name, res, res.StateError, reason)
		}
	}
	flip := func(s string) string {
		b := []byte(s)
		b[3] ^= 1
		return string(b)
	}
	refusedWith("tampered", askAndAnswer(t, tool, "ada", args, accept, flip, "ada", args), "")
	refusedWith("forged", askAndAnswer(t, tool, "ada", args, accept, func(string) string { return "e30.AAAA" }, "ada", args), "signature")
	refusedWith("another caller", askAndAnswer(t, tool, "ada", args, accept, nil, "bob", args), "another caller")
	refusedWith("other arguments", askAndAnswer(t, tool, "ada", args, accept, nil, "ada", `{"table": "orders"}`), "other arguments")

	// Replayed: the same state twice.
	var state string
	res = askAndAnswer(t, tool, "ada", args, accept, func(s string) string { state = s; return s }, "ada", args)
	if res.IsError {
		t.Fatalf("first answer: %+v", res)
	}
	again := tool.Call(WithAsking(WithCaller(context.Background(), Caller{ID: "ada"}), &Asking{Able: true, State: state, Answers: map[string]Answer{"confirm": accept}}), json.RawMessage(args))
	refusedWith("replayed", again, "answered already")

	// Expired: answered after its time.
	res = askAndAnswer(t, tool, "ada", args, accept, func(s string) string {
		tool.states.now = func() time.Time { return time.Now().Add(DefaultConfirmTTL + time.Minute) }
		return s
	}, "ada", args)
	tool.states.now = time.Now
	refusedWith("expired", res, "expired")

	// Rotation: a state signed with the old key verifies where the new
	// key signs and the old one still verifies.
	old := confirmTool(t, strings.Repeat("o", 32))
	rotated := confirmTool(t, strings.Repeat("n", 32), strings.Repeat("o", 32))
	ctx := WithAsking(WithCaller(context.Background(), Caller{ID: "ada"}), &Asking{Able: true})
	q := old.Call(ctx, json.RawMessage(args))
	ctx = WithAsking(WithCaller(context.Background(), Caller{ID: "ada"}), &Asking{Able: true, State: q.Round.State, Answers: map[string]Answer{"confirm": accept}})
	if res := rotated.Call(ctx, json.RawMessage(args)); res.IsError {
		t.Errorf("a state of the old key was refused during the rotation: %+v", res)
	}
	ctx = WithAsking(WithCaller(context.Background(), Caller{ID: "ada"}), &Asking{Able: true})
	q = old.Call(ctx, json.RawMessage(args))
	ctx = WithAsking(WithCaller(context.Background(), Caller{ID: "ada"}), &Asking{Able: true, State: q.Round.State, Answers: map[string]Answer{"confirm": accept}})
	refusedWith("another key", tool.Call(ctx, json.RawMessage(args)), "signature")
}

// TestConfirmAnswers: a decline or a dismissal runs nothing and says so;
// an answer outside the form, or of an unknown action, is refused; an
// answer without a state, or answers to other questions, ask again; a
// client that cannot be asked is refused with the reason.
func TestConfirmAnswers(t *testing.T) {
	tool := confirmTool(t)
	args := `{"table": "users"}`
	for _, c := range []struct {
		answer Answer
		says   string
		decide Decision
	}{
		{Answer{Action: AnswerDecline}, "declined", ConfirmDeclined},
		{Answer{Action: AnswerCancel}, "dismissed", ConfirmCancelled},
		{Answer{Action: AnswerAccept, Content: map[string]any{"why": "bored"}}, "does not fit its form", ConfirmRefused},
		{Answer{Action: AnswerAccept}, "does not fit its form", ConfirmRefused},
		{Answer{Action: "shrug"}, `"shrug"`, ConfirmRefused},
	} {
		res := askAndAnswer(t, tool, "ada", args, c.answer, nil, "ada", args)
		if !res.IsError || !strings.Contains(res.Text(), c.says) || !strings.Contains(res.Text(), "nothing was done") || res.Confirmation != c.decide || res.StateError != nil {
			t.Errorf("%+v: got %+v, want a tool error that says %q", c.answer, res, c.says)
		}
	}
	ctx := WithAsking(context.Background(), &Asking{Able: true, Answers: map[string]Answer{"confirm": {Action: AnswerAccept, Content: map[string]any{"why": "old"}}}})
	if res := tool.Call(ctx, json.RawMessage(args)); res.Round == nil {
		t.Errorf("an answer without a state was taken: %+v", res)
	}
	ctx = WithAsking(context.Background(), &Asking{Able: true, State: "x", Answers: map[string]Answer{"confirm": {Action: AnswerAccept}}})
	if res := tool.Call(ctx, json.RawMessage(args)); res.StateError == nil {
		t.Errorf("a state this server did not make was taken: %+v", res)
	}
	ctx = WithAsking(context.Background(), &Asking{Why: "the client did not declare the elicitation capability"})
	if res := tool.Call(ctx, json.RawMessage(args)); !res.IsError || !strings.Contains(res.Text(), "did not declare the elicitation capability") || res.Confirmation != ConfirmRefused {
		t.Errorf("a client that cannot be asked: %+v", res)
	}
}

// TestAskArguments: a call lacking an argument with ask is asked for it
// (that one alone); the answer is validated as any argument, only the
// arguments asked for are taken from it, and its state is bound to the
// arguments sent.
func TestAskArguments(t *testing.T) {
	str := &schema.Type{Kind: schema.String}
	tool, err := NewTool(ToolSpec{
		Name: "greet", Description: "Greets.",
		Args: []schema.Arg{{Name: "name", Type: str, MinLength: new(2), Ask: "Your name?"}, {Name: "greeting", Type: str, HasDefault: true, Default: "Hello"}},
		Text: greet{},
	}, DefaultSettings(), &text.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	able := WithAsking(context.Background(), &Asking{Able: true})
	if res := tool.Call(able, json.RawMessage(`{"name": "Ada"}`)); res.Round != nil || res.Text() != "Hello, Ada" {
		t.Errorf("a call with the argument: %+v", res)
	}
	ask := func(sent string) *Result {
		t.Helper()
		res := tool.Call(able, json.RawMessage(sent))
		if res.Round == nil || len(res.Round.Questions) != 1 || res.Round.Questions[0].Key != ArgumentsKey || res.Round.Questions[0].Message != "Your name?" {
			t.Fatalf("%s: not asked: %+v", sent, res)
		}
		return res
	}
	q := ask(`{"greeting": "Hi"}`)
	if props := q.Round.Questions[0].Schema["properties"].(map[string]any); len(props) != 1 || props["name"] == nil {
		t.Errorf("the form asks for %v, want name alone", props)
	}
	answer := func(q *Result, sent string, content map[string]any) *Result {
		ctx := WithAsking(context.Background(), &Asking{Able: true, State: q.Round.State, Answers: map[string]Answer{ArgumentsKey: {Action: AnswerAccept, Content: content}}})
		return tool.Call(ctx, json.RawMessage(sent))
	}
	if res := answer(q, `{"greeting": "Hi"}`, map[string]any{"name": "Ada", "greeting": "Bye"}); res.IsError || res.Text() != "Hi, Ada" {
		t.Errorf("answered: %+v, want the name answered and the greeting sent", res)
	}
	q = ask(`{}`)
	if res := answer(q, `{}`, map[string]any{"name": "A"}); !res.IsError || !strings.Contains(res.Text(), "invalid arguments") {
		t.Errorf("an answer the argument refuses: %+v", res)
	}
	q = ask(`{}`)
	if res := answer(q, `{"greeting": "Yo"}`, map[string]any{"name": "Ada"}); res.StateError == nil {
		t.Errorf("a state for other arguments was taken: %+v", res)
	}
	if res := tool.Call(context.Background(), json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Text(), "name") {
		t.Errorf("a client that cannot be asked: %+v, want the missing argument named", res)
	}
}

// greet is the text "<greeting>, <name>".
type greet struct{}

func (greet) Eval(env map[string]any) (any, error) {
	args := env["args"].(map[string]any)
	return args["greeting"].(string) + ", " + args["name"].(string), nil
}
