package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Step is one step of a multi-step tool: one action, run after the steps
// before it, whose programs read their results as steps.<name>.
type Step struct {
	// Name names the step's result for the programs after it.
	Name string
	// Action is what the step runs.
	Action Action
	// When, when not nil, decides whether the step runs; a skipped step's
	// result is null.
	When mapping.Value
	// ForEach, when not nil, yields a list: the step runs once per item
	// (each.value, each.index), and its result is the list of the runs'
	// results, in the items' order.
	ForEach mapping.Value
	// MaxItems bounds the items of ForEach.
	MaxItems int
	// MaxConcurrency bounds the runs of ForEach under way at once.
	MaxConcurrency int
	// ErrorIf, when not nil, replaces the action's rule for when the step
	// fails; its programs read the step's own result besides the others.
	ErrorIf mapping.Value
}

// Steps is the action of a multi-step tool: its steps, run in order. The
// programs after it read steps.<name>; a step that fails fails the call,
// with a message that names it.
type Steps struct {
	steps []Step
}

var (
	_ Action          = (*Steps)(nil)
	_ Hinter          = (*Steps)(nil)
	_ CallerActor     = (*Steps)(nil)
	_ CallerTokenUser = (*Steps)(nil)
	_ ProgressEmitter = (*Steps)(nil)
	_ io.Closer       = (*Steps)(nil)
)

// NewSteps returns the action that runs steps in order.
func NewSteps(steps []Step) *Steps { return &Steps{steps: steps} }

// Run runs the steps. The response's Vars hold steps; its content is the
// last step's that ran.
func (s *Steps) Run(ctx context.Context, args map[string]any) (*Response, error) {
	results := make(map[string]any, len(s.steps))
	out := &Response{Vars: map[string]any{"steps": results}}
	sctx := withStepVars(ctx, results, nil)
	for i := range s.steps {
		st := &s.steps[i]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if tr := calltrace.From(ctx); tr != nil {
			tr.Stage("step "+st.Name, 0)
		}
		stepCtx := stepStarts(sctx, i, len(s.steps), st.Name)
		env := ProgramEnv(sctx, args)
		if st.When != nil {
			v, err := st.When.Eval(env)
			if err != nil {
				return nil, fmt.Errorf("step %q: its when failed: %w", st.Name, err)
			}
			if run, _ := v.(bool); !run {
				results[st.Name] = nil
				continue
			}
		}
		var span trace.Span
		if parent := trace.SpanFromContext(ctx); parent.IsRecording() {
			stepCtx, span = parent.TracerProvider().Tracer(Instrumentation).Start(stepCtx, "step "+st.Name,
				trace.WithAttributes(attribute.String("mcpdecl.step", st.Name)))
		}
		failure, err := st.run(stepCtx, args, env, results, out)
		if span != nil {
			switch {
			case err != nil:
				span.SetStatus(codes.Error, text.Redacted(ctx, err.Error()))
			case failure != "":
				span.SetStatus(codes.Error, text.Redacted(ctx, failure))
			}
			span.End()
		}
		if err != nil {
			return nil, fmt.Errorf("step %q: %w", st.Name, err)
		}
		if failure != "" {
			out.Failure = fmt.Sprintf("step %q failed: %s", st.Name, failure)
			return out, nil
		}
	}
	return out, nil
}

// run runs the step, once or per item, and stores its result in results;
// the content of a step run once becomes out's. It returns why the step
// failed, or "".
func (st *Step) run(ctx context.Context, args, env, results map[string]any, out *Response) (string, error) {
	if st.ForEach != nil {
		list, failure, err := st.runEach(ctx, args, env)
		if err != nil {
			return "", err
		}
		results[st.Name] = list
		return failure, nil
	}
	resp, failure, err := st.runOnce(ctx, args)
	if err != nil {
		return "", err
	}
	results[st.Name] = resp.Vars
	if resp.Content != nil || resp.Text != nil {
		out.Content, out.Text = resp.Content, resp.Text
	}
	return failure, nil
}

// runOnce runs the step's action once, and decides whether it failed.
func (st *Step) runOnce(ctx context.Context, args map[string]any) (*Response, string, error) {
	resp, err := st.Action.Run(ctx, args)
	if err != nil {
		return nil, "", err
	}
	if resp == nil {
		resp = &Response{}
	}
	if resp.Vars == nil {
		resp.Vars = map[string]any{}
	}
	if st.ErrorIf == nil {
		return resp, resp.Failure, nil
	}
	env := ProgramEnv(ctx, args)
	for k, v := range resp.Vars {
		env[k] = v
	}
	v, err := st.ErrorIf.Eval(env)
	if err != nil {
		return nil, "", fmt.Errorf("its error_if failed: %w", err)
	}
	if failed, _ := v.(bool); failed {
		msg := resp.Failure
		if msg == "" {
			msg = "its error_if is true"
		}
		return resp, msg, nil
	}
	return resp, "", nil
}

// runEach runs the step once per item of its for_each, at most
// MaxConcurrency at once, and returns the runs' results in the items'
// order. The first item that fails, in that order, fails the step; the
// runs under way then are cancelled and the items not started are not run.
func (st *Step) runEach(ctx context.Context, args, env map[string]any) ([]any, string, error) {
	steps, _ := env["steps"].(map[string]any)
	v, err := st.ForEach.Eval(env)
	if err != nil {
		return nil, "", fmt.Errorf("its for_each failed: %w", err)
	}
	var items []any
	switch v := v.(type) {
	case nil:
	case []any:
		items = v
	default:
		return nil, "", fmt.Errorf("its for_each must yield a list, not %s", mapping.Describe(v))
	}
	if len(items) > st.MaxItems {
		return nil, "", fmt.Errorf("its for_each yields %d items, more than its max_items (%d)", len(items), st.MaxItems)
	}
	results := make([]any, len(items))
	failures := make([]string, len(items))
	errs := make([]error, len(items))
	parent := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	slots := make(chan struct{}, max(st.MaxConcurrency, 1))
	var wg sync.WaitGroup
	for i, item := range items {
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			ictx := withStepVars(ctx, steps, map[string]any{"value": item, "index": i})
			resp, failure, err := st.runOnce(ictx, args)
			if err != nil || failure != "" {
				errs[i], failures[i] = err, failure
				stop()
				return
			}
			results[i] = resp.Vars
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, "", err
	}
	for i := range items {
		switch {
		case errs[i] != nil && !errors.Is(errs[i], context.Canceled):
			return nil, "", fmt.Errorf("item %d: %w", i, errs[i])
		case failures[i] != "":
			return results, fmt.Sprintf("item %d: %s", i, failures[i]), nil
		}
	}
	return results, "", nil
}

// Hints: the tool is read-only only when every step is.
func (s *Steps) Hints() Annotations {
	readOnly := true
	for _, st := range s.steps {
		h, ok := st.Action.(Hinter)
		if !ok {
			readOnly = false
			break
		}
		if ro := h.Hints().ReadOnlyHint; ro == nil || !*ro {
			readOnly = false
			break
		}
	}
	return Annotations{ReadOnlyHint: &readOnly}
}

// EmitsProgress is true: a call with a progress token is sent a
// notification as each step starts, and the steps' own progress within
// their share.
func (s *Steps) EmitsProgress() bool { return true }

// ActsAsCaller says how the first step that acts as the caller does.
func (s *Steps) ActsAsCaller() string {
	for _, st := range s.steps {
		if a, ok := st.Action.(CallerActor); ok {
			if how := a.ActsAsCaller(); how != "" {
				return how
			}
		}
	}
	return ""
}

// UsesCallerToken is true when a step sends the caller's token.
func (s *Steps) UsesCallerToken() bool {
	for _, st := range s.steps {
		if u, ok := st.Action.(CallerTokenUser); ok && u.UsesCallerToken() {
			return true
		}
	}
	return false
}

// Close closes the steps' actions that hold resources.
func (s *Steps) Close() error {
	var errs []error
	for _, st := range s.steps {
		if c, ok := st.Action.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
