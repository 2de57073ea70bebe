package engine

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// An UpstreamObserver is told of each exchange an action has with what it
// wraps, for metrics: kind is the action's ("http", "sql", "exec"),
// upstream names it as the configuration does (an http_api's or a
// database's name, a program), and class is a small fixed set (for HTTP
// "2xx" to "5xx" or "error"; for SQL and exec "ok" or "error").
type UpstreamObserver interface {
	ObserveUpstream(kind, upstream, class string, d time.Duration)
}

type upstreamKey struct{}

// WithUpstreamObserver returns ctx carrying o, which the actions of the
// call tell of their exchanges.
func WithUpstreamObserver(ctx context.Context, o UpstreamObserver) context.Context {
	return context.WithValue(ctx, upstreamKey{}, o)
}

// Instrumentation is the name of the tracer that the engine and the
// adapters make spans with (the OpenTelemetry instrumentation scope).
const Instrumentation = "github.com/mcpdecl/mcpdecl"

// An UpstreamCall records one call of an action to its upstream, what it
// wraps (a request to an HTTP API, a statement, a program's run), for the
// metrics (see [UpstreamObserver]) and, when the tool call is traced, as a
// span. Begin one with [BeginUpstreamCall] when the upstream call starts
// and [UpstreamCall.End] it when it is over. (The OAuth token exchange of
// an http_api is another thing.)
type UpstreamCall struct {
	ctx      context.Context
	kind     string
	upstream string
	start    time.Time
	span     trace.Span
	attrs    *[]attribute.KeyValue // the span's attributes until End sets them
}

// BeginUpstreamCall starts an upstream call of kind ("http", "sql", "exec") with
// upstream (named as the configuration names it). When the call is traced
// (the span ctx carries records), the upstream call has a child span named
// spanName, of spanKind, and the context returned carries it; otherwise
// ctx is returned as is and nothing is allocated.
func BeginUpstreamCall(ctx context.Context, kind, upstream, spanName string, spanKind trace.SpanKind) (context.Context, UpstreamCall) {
	x := UpstreamCall{ctx: ctx, kind: kind, upstream: upstream, start: time.Now()}
	if parent := trace.SpanFromContext(ctx); parent.IsRecording() {
		ctx, x.span = parent.TracerProvider().Tracer(Instrumentation).Start(ctx, spanName,
			SpanKindOption(spanKind), trace.WithTimestamp(x.start))
		x.attrs = spanAttributes.Get().(*[]attribute.KeyValue)
	}
	return ctx, x
}

// Traced reports whether the upstream call has a span: whether its attributes
// are worth computing.
func (x *UpstreamCall) Traced() bool { return x.span != nil }

// SetAttributes adds attributes to the upstream call's span (never a value that
// may be secret); it does nothing when the call is not traced. They are set
// on the span when the upstream call ends, all at once: the span keeps one copy
// of them, instead of growing its list at each addition.
func (x *UpstreamCall) SetAttributes(kv ...attribute.KeyValue) {
	if x.attrs != nil {
		*x.attrs = append(*x.attrs, kv...)
	}
}

// End ends the upstream call: class is its outcome in the metrics' small fixed
// set (see [UpstreamObserver]). errorType, when not "", marks the span as
// failed with that error.type and description, redacted as everything the
// call reports is (see [text.Redacted]). An upstream call ends once.
func (x *UpstreamCall) End(class, errorType, description string) {
	if o, ok := x.ctx.Value(upstreamKey{}).(UpstreamObserver); ok {
		o.ObserveUpstream(x.kind, x.upstream, class, time.Since(x.start))
	}
	if x.span == nil {
		return
	}
	if errorType != "" {
		*x.attrs = append(*x.attrs, attribute.String("error.type", errorType))
		x.span.SetStatus(codes.Error, text.Redacted(x.ctx, description))
	}
	setAndReturn(x.span, x.attrs)
	x.attrs = nil
	x.span.End()
}

// spanAttributes lends the buffers in which spans' attributes are gathered
// before they are set at once (see [SetSpanAttributes] and
// [UpstreamCall.SetAttributes]): a cache of memory, like fmt's printers, that
// holds nothing from one span to the next.
var spanAttributes = sync.Pool{New: func() any {
	s := make([]attribute.KeyValue, 0, 12)
	return &s
}}

// setAndReturn sets the attributes in the buffer p on sp and gives the
// buffer back, emptied; one that grew past what spans usually have is left
// to the garbage collector.
func setAndReturn(sp trace.Span, p *[]attribute.KeyValue) {
	sp.SetAttributes(*p...)
	if cap(*p) > 32 {
		return
	}
	clear(*p)
	*p = (*p)[:0]
	spanAttributes.Put(p)
}

// SetSpanAttributes sets on sp, at once, the attributes that add appends
// to the (empty) slice it is given. The slice is lent for the call only:
// the span keeps a copy of what is set, and starting a span with
// trace.WithAttributes would copy them once more.
func SetSpanAttributes(sp trace.Span, add func([]attribute.KeyValue) []attribute.KeyValue) {
	p := spanAttributes.Get().(*[]attribute.KeyValue)
	*p = add(*p)
	setAndReturn(sp, p)
}

// spanKinds are the start options of the span kinds, made once: each
// trace.WithSpanKind allocates.
var spanKinds = [...]trace.SpanStartOption{
	trace.SpanKindUnspecified: trace.WithSpanKind(trace.SpanKindUnspecified),
	trace.SpanKindInternal:    trace.WithSpanKind(trace.SpanKindInternal),
	trace.SpanKindServer:      trace.WithSpanKind(trace.SpanKindServer),
	trace.SpanKindClient:      trace.WithSpanKind(trace.SpanKindClient),
	trace.SpanKindProducer:    trace.WithSpanKind(trace.SpanKindProducer),
	trace.SpanKindConsumer:    trace.WithSpanKind(trace.SpanKindConsumer),
}

// SpanKindOption is trace.WithSpanKind(kind), without its allocation.
func SpanKindOption(kind trace.SpanKind) trace.SpanStartOption {
	if int(kind) >= 0 && int(kind) < len(spanKinds) {
		return spanKinds[kind]
	}
	return trace.WithSpanKind(kind)
}
