package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// tracingAction records a stage of its own, as an adapter does, holding a
// secret of the configuration, the call's sensitive value, a terminal
// escape, a long text and a long list.
type tracingAction struct{ secret string }

func (a tracingAction) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	if tr := calltrace.From(ctx); tr != nil {
		list := make([]any, 100)
		for i := range list {
			list[i] = i
		}
		tr.Stage("upstream", 0,
			calltrace.Field{Name: "url", Value: "https://x.test/?key=" + a.secret + "&pin=" + args["pin"].(string)},
			calltrace.Field{Name: "body", Value: "\x1b[31mred\x1b[0m " + strings.Repeat("é", 3000)},
			calltrace.Field{Name: "list", Value: list},
			calltrace.Field{Name: "headers", Value: map[string]any{"X-Key": a.secret}})
	}
	return &engine.Response{Vars: map[string]any{"n": 7}}, nil
}

// failingProgram is a program that fails.
type failingProgram struct{}

func (failingProgram) Eval(map[string]any) (any, error) { return nil, errors.New("boom") }

func stageNamed(stages []calltrace.Stage, name string) (calltrace.Stage, bool) {
	for _, s := range stages {
		if s.Name == name {
			return s, true
		}
	}
	return calltrace.Stage{}, false
}

func fieldOf(s calltrace.Stage, name string) any {
	for _, f := range s.Fields {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

func TestTrace(t *testing.T) {
	const secret = "key-0123456789"
	red := &text.Redactor{}
	red.Add(secret)
	spec := engine.ToolSpec{
		Name: "t", Description: "d",
		Args: []schema.Arg{
			{Name: "city", Type: &schema.Type{Kind: schema.String}},
			{Name: "pin", Type: &schema.Type{Kind: schema.String}, Sensitive: true},
		},
		Action:  tracingAction{secret: secret},
		ErrorIf: mapping.Const(false),
		Outputs: []engine.Output{
			{Output: schema.Output{Name: "n", Type: &schema.Type{Kind: schema.Integer}}, Value: mapping.Const(7)},
		},
		Text: mapping.Const("done"),
	}
	tool, err := engine.NewTool(spec, engine.DefaultSettings(), red)
	if err != nil {
		t.Fatal(err)
	}
	rec := &calltrace.Recorder{}
	res := tool.Call(calltrace.With(context.Background(), rec), []byte(`{"city": "Oslo", "pin": "pin-98765"}`))
	if res.IsError {
		t.Fatalf("tool error: %v", res.Content)
	}
	stages := rec.Stages()
	var names []string
	for _, s := range stages {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ","), "arguments,upstream,action,error_if,output n,output validation,text"; got != want {
		t.Fatalf("stages %s, want %s", got, want)
	}
	all := fmt.Sprint(stages)
	for _, leak := range []string{secret, "pin-98765", "\x1b"} {
		if strings.Contains(all, leak) {
			t.Errorf("the trace holds %q: %s", leak, all)
		}
	}

	args, _ := stageNamed(stages, "arguments")
	if got := fmt.Sprint(fieldOf(args, "args")); got != "map[city:Oslo pin:(sensitive)]" {
		t.Errorf("arguments %s, want the city and the pin masked", got)
	}
	up, _ := stageNamed(stages, "upstream")
	if got := fieldOf(up, "url"); got != "https://x.test/?key=(sensitive)&pin=(sensitive)" {
		t.Errorf("url %q, want the key and the pin redacted", got)
	}
	body := fieldOf(up, "body").(string)
	if !strings.HasPrefix(body, "red ééé") || !strings.HasSuffix(body, "… (cut: 6004 bytes in all)") || len(body) > calltrace.TextLimit+40 {
		t.Errorf("body of %d bytes, want it cleaned and cut at %d bytes with its size: …%s", len(body), calltrace.TextLimit, body[max(0, len(body)-60):])
	}
	list := fieldOf(up, "list").([]any)
	if len(list) != calltrace.ListLimit+1 || list[calltrace.ListLimit] != "… (100 items in all)" {
		t.Errorf("list of %d elements, want %d and a note", len(list), calltrace.ListLimit+1)
	}
	if got := fmt.Sprint(fieldOf(up, "headers")); got != "map[X-Key:(sensitive)]" {
		t.Errorf("headers %s", got)
	}
	if s, _ := stageNamed(stages, "output n"); fieldOf(s, "value") != 7 {
		t.Errorf("output n: %v", s)
	}
	if s, _ := stageNamed(stages, "output validation"); fieldOf(s, "outcome") != "valid" {
		t.Errorf("output validation: %v", s)
	}
	if s, _ := stageNamed(stages, "text"); fieldOf(s, "value") != "done" {
		t.Errorf("text: %v", s)
	}
}

// TestTraceFailures checks that a trace shows why a call failed: refused
// arguments, a failing program, an invalid output.
func TestTraceFailures(t *testing.T) {
	intType := &schema.Type{Kind: schema.Integer}
	tests := []struct {
		name  string
		spec  engine.ToolSpec
		args  string
		stage string
		field string
		want  string
	}{
		{"refused arguments",
			engine.ToolSpec{Args: []schema.Arg{{Name: "n", Type: intType}, {Name: "pin", Sensitive: true, Type: &schema.Type{Kind: schema.String}}}},
			`{"n": "x", "pin": "pin-98765"}`, "arguments", "sent", "map[n:x pin:(sensitive)]"},
		{"failing program",
			engine.ToolSpec{Outputs: []engine.Output{{Output: schema.Output{Name: "n", Type: intType}, Value: failingProgram{}}}},
			`{}`, "output n", "error", "boom"},
		{"invalid output",
			engine.ToolSpec{Outputs: []engine.Output{{Output: schema.Output{Name: "n", Type: intType}, Value: mapping.Const("seven")}}},
			`{}`, "output validation", "outcome", "invalid"},
		{"error_if",
			engine.ToolSpec{ErrorIf: mapping.Const(true)},
			`{}`, "error_if", "value", "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := newTool(t, tt.spec)
			rec := &calltrace.Recorder{}
			res := tool.Call(calltrace.With(context.Background(), rec), []byte(tt.args))
			if !res.IsError {
				t.Fatalf("not a tool error: %v", res.Content)
			}
			s, ok := stageNamed(rec.Stages(), tt.stage)
			if !ok {
				t.Fatalf("no stage %q in %v", tt.stage, rec.Stages())
			}
			if got := fmt.Sprint(fieldOf(s, tt.field)); got != tt.want {
				t.Errorf("%s: %s = %s, want %s", tt.stage, tt.field, got, tt.want)
			}
			if strings.Contains(fmt.Sprint(rec.Stages()), "pin-98765") {
				t.Errorf("the sensitive value shows: %v", rec.Stages())
			}
		})
	}
}

// TestNoTracer checks that a call without a tracer records nothing, and
// that actions see none.
func TestNoTracer(t *testing.T) {
	if calltrace.From(context.Background()) != nil {
		t.Fatal("a context without a tracer has one")
	}
	tool := newTool(t, engine.ToolSpec{Action: tracingAction{secret: "key-0123456789"},
		Args: []schema.Arg{{Name: "pin", Type: &schema.Type{Kind: schema.String}}}})
	if res := tool.Call(context.Background(), []byte(`{"pin": "1234"}`)); res.IsError {
		t.Fatalf("tool error: %v", res.Content)
	}
}
