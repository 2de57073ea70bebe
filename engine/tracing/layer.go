package tracing

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/audit"
	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// MaxValue caps a value recorded on a span (arguments and results), in
// bytes.
const MaxValue = 4096

// Layer is a configuration's tracing block, and the layer of each of its
// tools' per-call path that records how a call ended on the span of ctx,
// when it records: the outcome of a call that failed (error.type, such as
// tool_error or rate_limited, and an error status) and, as the block
// says, its arguments and result.
type Layer struct {
	// Arguments records the call's arguments (gen_ai.tool.call.arguments).
	Arguments bool
	// Results records the result (gen_ai.tool.call.result).
	Results bool

	redact func(string) string // the configuration's secrets
}

var _ engine.CallLayer = (*Layer)(nil)

// Wrap records on the span of each call of t how it ended.
func (l *Layer) Wrap(t *engine.Tool, next engine.CallStep) (engine.CallStep, error) {
	return func(ctx context.Context, caller engine.Caller, raw json.RawMessage) *engine.Result {
		res := next(ctx, caller, raw)
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			l.record(ctx, span, t, raw, res)
		}
		return res
	}, nil
}

// record records on span how a call of t with the arguments raw ended.
func (l *Layer) record(ctx context.Context, span trace.Span, t *engine.Tool, raw json.RawMessage, res *engine.Result) {
	if o := res.Outcome(); o != engine.OutcomeOK {
		span.SetAttributes(attribute.String("error.type", string(o)))
		span.SetStatus(codes.Error, text.Excerpt(ctx, l.redact(res.Text())))
	}
	if l.Arguments {
		args, _ := audit.Arguments(t, raw)
		span.SetAttributes(attribute.String("gen_ai.tool.call.arguments", Cap(jsonenc.Text(args), MaxValue)))
	}
	if l.Results && !res.IsError {
		text := res.Text()
		if b := res.StructuredJSON(); b != nil {
			text = string(b)
		}
		span.SetAttributes(attribute.String("gen_ai.tool.call.result", Cap(l.redact(text), MaxValue)))
	}
}

// Cap cuts s at limit bytes, on a character boundary, and marks the cut
// with "…"; s as it is (no copy) when it fits.
func Cap(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return engine.TruncateUTF8(s, limit) + "…"
}
