package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpdecl/mcpdecl/engine"
)

// fn is a program written in Go, for tests.
type fn func(env map[string]any) (any, error)

func (f fn) Eval(env map[string]any) (any, error) { return f(env) }

// probe is an action that records what its programs saw, and answers with
// what its program computes from it.
type probe struct {
	answer   fn
	readOnly bool
	runs     atomic.Int32
	running  atomic.Int32
	peak     atomic.Int32
	mu       sync.Mutex
	seen     []map[string]any
}

func (p *probe) Run(ctx context.Context, args map[string]any) (*engine.Response, error) {
	p.runs.Add(1)
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			break
		}
	}
	env := engine.ProgramEnv(ctx, args)
	p.mu.Lock()
	p.seen = append(p.seen, env)
	p.mu.Unlock()
	v, err := p.answer(env)
	if err != nil {
		return nil, err
	}
	if f, ok := v.(failure); ok {
		return &engine.Response{Vars: map[string]any{"value": nil}, Failure: string(f)}, nil
	}
	return &engine.Response{Vars: map[string]any{"value": v}}, nil
}

func (p *probe) Hints() engine.Annotations { return engine.Annotations{ReadOnlyHint: &p.readOnly} }

// failure is an answer that fails the run by the adapter's rule.
type failure string

func step(name string, p *probe) engine.Step { return engine.Step{Name: name, Action: p} }

func TestStepsChain(t *testing.T) {
	lookup := &probe{answer: func(env map[string]any) (any, error) {
		return "id-of-" + env["args"].(map[string]any)["email"].(string), nil
	}, readOnly: true}
	orders := &probe{answer: func(env map[string]any) (any, error) {
		id := env["steps"].(map[string]any)["customer"].(map[string]any)["value"].(string)
		return []any{id + "/1", id + "/2"}, nil
	}, readOnly: true}
	skipped := &probe{answer: func(map[string]any) (any, error) { return "ran", nil }}
	s := engine.NewSteps([]engine.Step{
		step("customer", lookup),
		step("orders", orders),
		{Name: "never", Action: skipped, When: fn(func(env map[string]any) (any, error) { return false, nil })},
	})
	resp, err := s.Run(context.Background(), map[string]any{"email": "ada@example.com"})
	if err != nil || resp.Failure != "" {
		t.Fatal(err, resp.Failure)
	}
	got := fmt.Sprint(resp.Vars["steps"])
	want := "map[customer:map[value:id-of-ada@example.com] never:<nil> orders:map[value:[id-of-ada@example.com/1 id-of-ada@example.com/2]]]"
	if got != want {
		t.Errorf("steps = %s\nwant %s", got, want)
	}
	if skipped.runs.Load() != 0 {
		t.Error("a step whose when is false ran")
	}
	if ro := s.Hints().ReadOnlyHint; ro == nil || *ro {
		t.Errorf("a tool with a step that is not read-only is not read-only: %v", ro)
	}
	if ro := engine.NewSteps([]engine.Step{step("a", lookup), step("b", orders)}).Hints().ReadOnlyHint; ro == nil || !*ro {
		t.Error("a tool whose steps are all read-only is read-only")
	}
}

func TestStepsForEach(t *testing.T) {
	item := &probe{answer: func(env map[string]any) (any, error) {
		each := env["each"].(map[string]any)
		return fmt.Sprintf("%d:%v", each["index"], each["value"]), nil
	}}
	list := func(n int) fn {
		return func(map[string]any) (any, error) {
			out := make([]any, n)
			for i := range out {
				out[i] = fmt.Sprintf("x%d", i)
			}
			return out, nil
		}
	}
	s := engine.NewSteps([]engine.Step{{Name: "each", Action: item, ForEach: list(20), MaxItems: 20, MaxConcurrency: 3}})
	resp, err := s.Run(context.Background(), nil)
	if err != nil || resp.Failure != "" {
		t.Fatal(err, resp.Failure)
	}
	results := resp.Vars["steps"].(map[string]any)["each"].([]any)
	for i, r := range results {
		if want := fmt.Sprintf("%d:x%d", i, i); r.(map[string]any)["value"] != want {
			t.Errorf("item %d = %v, want %s (results are in the items' order)", i, r, want)
		}
	}
	if len(results) != 20 || item.runs.Load() != 20 || item.peak.Load() > 3 {
		t.Errorf("%d results, %d runs, %d at once (at most 3)", len(results), item.runs.Load(), item.peak.Load())
	}

	_, err = engine.NewSteps([]engine.Step{{Name: "each", Action: item, ForEach: list(21), MaxItems: 20}}).Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `step "each": its for_each yields 21 items, more than its max_items (20)`) {
		t.Errorf("over max_items: %v", err)
	}
}

func TestStepsFailure(t *testing.T) {
	third := &probe{answer: func(env map[string]any) (any, error) {
		if env["each"].(map[string]any)["index"] == 2 {
			return failure("HTTP 404"), nil
		}
		return "ok", nil
	}}
	after := &probe{answer: func(map[string]any) (any, error) { return "ran", nil }}
	items := fn(func(map[string]any) (any, error) { return []any{1, 2, 3, 4, 5}, nil })
	s := engine.NewSteps([]engine.Step{{Name: "fetch", Action: third, ForEach: items, MaxItems: 10, MaxConcurrency: 1}, step("after", after)})
	resp, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Failure != `step "fetch" failed: item 2: HTTP 404` {
		t.Errorf("failure = %q", resp.Failure)
	}
	if third.runs.Load() != 3 || after.runs.Load() != 0 {
		t.Errorf("after a failing item, the items not started and the steps after must not run: %d item runs, %d after", third.runs.Load(), after.runs.Load())
	}

	broken := &probe{answer: func(map[string]any) (any, error) { return nil, errors.New("connection refused") }}
	_, err = engine.NewSteps([]engine.Step{step("lookup", broken)}).Run(context.Background(), nil)
	if err == nil || err.Error() != `step "lookup": connection refused` {
		t.Errorf("err = %v", err)
	}

	// A step's error_if replaces the adapter's rule.
	notFound := &probe{answer: func(map[string]any) (any, error) { return failure("HTTP 404"), nil }}
	tolerant := engine.Step{Name: "maybe", Action: notFound, ErrorIf: fn(func(map[string]any) (any, error) { return false, nil })}
	resp, err = engine.NewSteps([]engine.Step{tolerant, step("after", after)}).Run(context.Background(), nil)
	if err != nil || resp.Failure != "" || after.runs.Load() != 1 {
		t.Errorf("error_if = false should let the call go on: %v %q, after ran %d", err, resp.Failure, after.runs.Load())
	}
}

func TestStepsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	first := &probe{answer: func(map[string]any) (any, error) { cancel(); return []any{1, 2, 3}, nil }}
	item := &probe{answer: func(map[string]any) (any, error) { return "ran", nil }}
	_, err := engine.NewSteps([]engine.Step{
		step("first", first),
		{Name: "each", Action: item, ForEach: fn(func(env map[string]any) (any, error) {
			return env["steps"].(map[string]any)["first"].(map[string]any)["value"], nil
		}), MaxItems: 10},
	}).Run(ctx, nil)
	if !errors.Is(err, context.Canceled) || item.runs.Load() != 0 {
		t.Errorf("a cancelled call runs no more items: %v, %d runs", err, item.runs.Load())
	}
}

func TestStepsSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	ctx, call := tp.Tracer("test").Start(context.Background(), "tools/call")
	ok := &probe{answer: func(map[string]any) (any, error) { return "ok", nil }}
	bad := &probe{answer: func(map[string]any) (any, error) { return failure("HTTP 500"), nil }}
	resp, err := engine.NewSteps([]engine.Step{step("first", ok), step("second", bad)}).Run(ctx, nil)
	call.End()
	if err != nil || resp.Failure == "" {
		t.Fatal(err, resp)
	}
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range exp.GetSpans().Snapshots() {
		spans[s.Name()] = s
	}
	first, second := spans["step first"], spans["step second"]
	if first == nil || second == nil {
		t.Fatalf("spans: %v", spans)
	}
	if first.Parent().SpanID() != call.SpanContext().SpanID() || first.Status().Code == codes.Error {
		t.Errorf("step first: parent %v, status %v", first.Parent().SpanID(), first.Status())
	}
	if second.Status().Code != codes.Error || second.Status().Description != "HTTP 500" {
		t.Errorf("a failing step's span says so: %v", second.Status())
	}
}
