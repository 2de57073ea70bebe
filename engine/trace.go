package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// traceCalls runs each call whose context carries a call tracer (package
// calltrace: mcpdecl call --trace, mcpdecl test) on a copy of the tool
// that records its every stage; the others as they are. It is the last
// layer, so that the copy's call is the whole rest of the path.
type traceCalls struct{}

func (traceCalls) Wrap(t *Tool, next CallStep) (CallStep, error) {
	return func(ctx context.Context, caller Caller, raw json.RawMessage) *Result {
		tr := calltrace.From(ctx)
		if tr == nil {
			return next(ctx, caller, raw)
		}
		c := t.traced(tr)
		return c.step(calltrace.With(ctx, c.trace), caller, raw)
	}, nil
}

// traceNow is the time a stage starts, read only when the call is traced.
func traceNow(tr *calltrace.Cleaner) time.Time {
	if tr == nil {
		return time.Time{}
	}
	return time.Now()
}

// setRedact makes the tracer of a traced call clean with redact, the
// call's redaction, once its arguments are read.
func (t *Tool) setRedact(redact func(string) string) {
	t.trace.Clean = func(s string) string { return redact(text.SanitizeString(s)) }
}

// traceRefused records arguments that were refused: what was sent, with
// its sensitive values masked, and why.
func (t *Tool) traceRefused(raw json.RawMessage, msg string, redact func(string) string) {
	t.setRedact(redact)
	t.trace.Stage("arguments", time.Since(t.traceBegan),
		calltrace.Field{Name: "sent", Value: t.AuditArguments(raw)},
		calltrace.Field{Name: "error", Value: msg})
}

// traceArguments records the arguments of a call, the sensitive ones
// masked, and from then on cleans what is recorded with redact.
func (t *Tool) traceArguments(args map[string]any, redact func(string) string) {
	t.setRedact(redact)
	shown := make(map[string]any, len(args))
	for k, v := range args {
		if t.IsSensitive(k) {
			v = text.Mask
		}
		shown[k] = v
	}
	t.trace.Stage("arguments", time.Since(t.traceBegan), calltrace.Field{Name: "args", Value: shown})
}

// traced returns a copy of t for one call traced in tr: its programs
// record their values, and what is recorded is cleaned, with the
// configuration's secrets until the call's are known (see setRedact).
func (t *Tool) traced(tr calltrace.Tracer) *Tool {
	c := *t
	c.traceBegan = time.Now()
	c.trace = &calltrace.Cleaner{Next: tr}
	c.setRedact(t.redactor.Redact)
	clean := c.trace
	wrap := func(name string, v mapping.Value) mapping.Value {
		if v == nil {
			return nil
		}
		return &tracedValue{name: name, v: v, tr: clean}
	}
	c.spec.ErrorIf = wrap("error_if", t.spec.ErrorIf)
	c.spec.ErrorMsg = wrap("error_message", t.spec.ErrorMsg)
	c.spec.Text = wrap("text", t.spec.Text)
	c.spec.Outputs = slices.Clone(t.spec.Outputs)
	for i := range c.spec.Outputs {
		o := &c.spec.Outputs[i]
		o.Value = wrap("output "+o.Name, o.Value)
	}
	c.spec.Content = slices.Clone(t.spec.Content)
	for i := range c.spec.Content {
		s := &c.spec.Content[i]
		at := fmt.Sprintf("content[%d] (%s) ", i, s.Type)
		s.When = wrap(at+"when", s.When)
		s.Text = wrap(at+"text", s.Text)
		s.Data = wrap(at+"data", s.Data)
		s.Blob = wrap(at+"blob", s.Blob)
		s.MIMEType = wrap(at+"mime_type", s.MIMEType)
		s.URI = wrap(at+"uri", s.URI)
		s.Name = wrap(at+"name", s.Name)
		s.Title = wrap(at+"title", s.Title)
		s.Description = wrap(at+"description", s.Description)
	}
	return &c
}

// tracedValue is a program whose every run is recorded.
type tracedValue struct {
	name string
	v    mapping.Value
	tr   calltrace.Tracer
}

func (p *tracedValue) Eval(env map[string]any) (any, error) {
	began := time.Now()
	v, err := p.v.Eval(env)
	took := time.Since(began)
	if err != nil {
		p.tr.Stage(p.name, took, calltrace.Field{Name: "error", Value: err.Error()})
	} else {
		p.tr.Stage(p.name, took, calltrace.Field{Name: "value", Value: v})
	}
	return v, err
}

// traceAction records how the action ended.
func (t *Tool) traceAction(began time.Time, resp *Response, err error) {
	if t.trace == nil {
		return
	}
	took := time.Since(began)
	switch {
	case err != nil:
		t.trace.Stage("action", took, calltrace.Field{Name: "error", Value: err.Error()})
	case resp != nil && resp.Failure != "":
		t.trace.Stage("action", took, calltrace.Field{Name: "failure", Value: resp.Failure})
	default:
		t.trace.Stage("action", took, calltrace.Field{Name: "outcome", Value: "ok"})
	}
}

// traceValidation records the output validation.
func (t *Tool) traceValidation(began time.Time, vs []schema.Violation) {
	if t.trace == nil {
		return
	}
	if len(vs) == 0 {
		t.trace.Stage("output validation", time.Since(began), calltrace.Field{Name: "outcome", Value: "valid"})
		return
	}
	t.trace.Stage("output validation", time.Since(began), calltrace.Field{Name: "outcome", Value: "invalid"}, calltrace.Field{Name: "violations", Value: schema.FormatViolations(vs)})
}
