package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/mapping"
	"github.com/mcpdecl/mcpdecl/engine/schema"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// TraceField is one named value of a stage of a call's trace, such as the
// URL of a request. Its value is made of JSON values: nil, bool, numbers,
// strings, []any and map[string]any.
type TraceField struct {
	Name  string
	Value any
}

// Tracer records what happens at each stage of one call, in order: the
// arguments, what the action sent and received, each program's value, the
// output validation. The engine hands adapters a Tracer that has already
// cleaned what it records (see [TracerFrom]); an adapter records its
// stages only when TracerFrom returns one, so that a call without a
// tracer costs nothing.
type Tracer interface {
	// Stage records one stage that took took (0 when it has no duration of
	// its own, such as a request before it is sent).
	Stage(name string, took time.Duration, fields ...TraceField)
}

// Trace limits: what a stage shows of a long text or list.
const (
	// TraceTextLimit is the most bytes of a string a trace shows.
	TraceTextLimit = 2048
	// TraceListLimit is the most elements of a list a trace shows.
	TraceListLimit = 50
)

type tracerKey struct{}

// WithTracer returns a context whose calls record their stages in t.
func WithTracer(ctx context.Context, t Tracer) context.Context {
	return context.WithValue(ctx, tracerKey{}, t)
}

// TracerFrom returns the tracer of ctx, or nil when the call is not
// traced. Within a tool's call, the tracer redacts the configuration's
// secrets and the call's sensitive values from everything recorded, strips
// terminal control sequences, and cuts long texts (TraceTextLimit) and
// lists (TraceListLimit).
func TracerFrom(ctx context.Context) Tracer {
	t, _ := ctx.Value(tracerKey{}).(Tracer)
	return t
}

// TraceStage is one stage a [TraceRecorder] kept.
type TraceStage struct {
	Name   string
	Took   time.Duration
	Fields []TraceField
}

// TraceRecorder is a Tracer that keeps every stage, in order. It is safe
// for concurrent use.
type TraceRecorder struct {
	mu     sync.Mutex
	stages []TraceStage
}

var _ Tracer = (*TraceRecorder)(nil)

// Stage records a stage.
func (r *TraceRecorder) Stage(name string, took time.Duration, fields ...TraceField) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stages = append(r.stages, TraceStage{Name: name, Took: took, Fields: slices.Clone(fields)})
}

// Stages returns the stages recorded so far.
func (r *TraceRecorder) Stages() []TraceStage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.stages)
}

// cleanTracer cleans every value before its next tracer sees it: terminal
// controls stripped, secrets redacted, long texts and lists cut.
type cleanTracer struct {
	next   Tracer
	redact func(string) string
}

func (c *cleanTracer) Stage(name string, took time.Duration, fields ...TraceField) {
	out := make([]TraceField, len(fields))
	for i, f := range fields {
		out[i] = TraceField{Name: f.Name, Value: c.value(f.Value)}
	}
	c.next.Stage(name, took, out...)
}

// value returns a clean copy of v.
func (c *cleanTracer) value(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int64, float64, json.Number:
		return x
	case string:
		return cutText(c.redact(text.SanitizeString(x)))
	case []byte:
		return cutText(c.redact(text.Sanitize(x)))
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return c.value(l)
	case []any:
		n := min(len(x), TraceListLimit)
		l := make([]any, 0, n+1)
		for _, e := range x[:n] {
			l = append(l, c.value(e))
		}
		if len(x) > n {
			l = append(l, fmt.Sprintf("… (%d items in all)", len(x)))
		}
		return l
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[c.redact(text.SanitizeString(k))] = c.value(e)
		}
		return m
	case error:
		return c.value(x.Error())
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	switch x := v.(type) {
	case int8, int16, int32, uint, uint8, uint16, uint32, uint64, float32:
		return x
	}
	return c.value(fmt.Sprint(v))
}

// cutText cuts s to TraceTextLimit bytes, on a character boundary, and
// says how long it was.
func cutText(s string) string {
	if len(s) <= TraceTextLimit {
		return s
	}
	return TruncateUTF8(s, TraceTextLimit) + "… (cut: " + strconv.Itoa(len(s)) + " bytes in all)"
}

// traceNow is the time a stage starts, read only when the call is traced.
func traceNow(tr Tracer) time.Time {
	if tr == nil {
		return time.Time{}
	}
	return time.Now()
}

// traceRefused records arguments that were refused: what was sent, with
// its sensitive values masked, and why.
func (t *Tool) traceRefused(tr Tracer, began time.Time, raw json.RawMessage, msg string, redact func(string) string) {
	clean := &cleanTracer{next: tr, redact: redact}
	clean.Stage("arguments", time.Since(began),
		TraceField{"sent", t.AuditArguments(raw)},
		TraceField{"error", msg})
}

// startTrace sets up the tracing of one call, once its arguments are
// known: it records them, and returns a copy of the tool whose programs
// record their values, with a context whose tracer cleans, with redact,
// what adapters record.
func (t *Tool) startTrace(ctx context.Context, tr Tracer, began time.Time, args map[string]any, redact func(string) string) (*Tool, context.Context) {
	clean := &cleanTracer{next: tr, redact: redact}
	shown := make(map[string]any, len(args))
	for k, v := range args {
		if t.IsSensitive(k) {
			v = text.Mask
		}
		shown[k] = v
	}
	clean.Stage("arguments", time.Since(began), TraceField{"args", shown})

	c := *t
	c.tracer = clean
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
	return &c, WithTracer(ctx, clean)
}

// tracedValue is a program whose every run is recorded.
type tracedValue struct {
	name string
	v    mapping.Value
	tr   Tracer
}

func (p *tracedValue) Eval(env map[string]any) (any, error) {
	began := time.Now()
	v, err := p.v.Eval(env)
	took := time.Since(began)
	if err != nil {
		p.tr.Stage(p.name, took, TraceField{"error", err.Error()})
	} else {
		p.tr.Stage(p.name, took, TraceField{"value", v})
	}
	return v, err
}

// traceAction records how the action ended.
func (t *Tool) traceAction(began time.Time, resp *Response, err error) {
	if t.tracer == nil {
		return
	}
	took := time.Since(began)
	switch {
	case err != nil:
		t.tracer.Stage("action", took, TraceField{"error", err.Error()})
	case resp != nil && resp.Failure != "":
		t.tracer.Stage("action", took, TraceField{"failure", resp.Failure})
	default:
		t.tracer.Stage("action", took, TraceField{"outcome", "ok"})
	}
}

// traceValidation records the output validation.
func (t *Tool) traceValidation(began time.Time, vs []schema.Violation) {
	if t.tracer == nil {
		return
	}
	if len(vs) == 0 {
		t.tracer.Stage("output validation", time.Since(began), TraceField{"outcome", "valid"})
		return
	}
	t.tracer.Stage("output validation", time.Since(began), TraceField{"outcome", "invalid"}, TraceField{"violations", schema.FormatViolations(vs)})
}
