package engine

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
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

// An Exchange is one exchange of an action with what it wraps (a request
// to an HTTP API, a statement, a program's run), as the metrics and the
// traces of the call see it. Begin one with [BeginExchange] when the
// exchange starts and [Exchange.End] it when it is over.
type Exchange struct {
	ctx      context.Context
	kind     string
	upstream string
	start    time.Time
	span     trace.Span
}

// BeginExchange starts an exchange of kind ("http", "sql", "exec") with
// upstream (named as the configuration names it). When the call is traced
// (the span ctx carries records), the exchange has a child span named
// spanName, of spanKind, and the context returned carries it; otherwise
// ctx is returned as is and nothing is allocated.
func BeginExchange(ctx context.Context, kind, upstream, spanName string, spanKind trace.SpanKind) (context.Context, Exchange) {
	x := Exchange{ctx: ctx, kind: kind, upstream: upstream, start: time.Now()}
	if parent := trace.SpanFromContext(ctx); parent.IsRecording() {
		ctx, x.span = parent.TracerProvider().Tracer(Instrumentation).Start(ctx, spanName,
			trace.WithSpanKind(spanKind), trace.WithTimestamp(x.start))
	}
	return ctx, x
}

// Span is the exchange's span, or nil when the call is not traced: set the
// exchange's attributes on it (never a value that may be secret).
func (x Exchange) Span() trace.Span { return x.span }

// End ends the exchange: class is its outcome in the metrics' small fixed
// set (see [UpstreamObserver]). errorType, when not "", marks the span as
// failed with that error.type and description, redacted as everything the
// call reports is (see [RedactText]).
func (x Exchange) End(class, errorType, description string) {
	if o, ok := x.ctx.Value(upstreamKey{}).(UpstreamObserver); ok {
		o.ObserveUpstream(x.kind, x.upstream, class, time.Since(x.start))
	}
	if x.span == nil {
		return
	}
	if errorType != "" {
		x.span.SetAttributes(attribute.String("error.type", errorType))
		x.span.SetStatus(codes.Error, RedactText(x.ctx, description))
	}
	x.span.End()
}
