package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// tracingSpec is the tracing block.
var tracingSpec = &spec.Block{
	Name:    "tracing",
	Summary: "Which values of a call its OpenTelemetry span records.",
	Doc: "Where traces go is set by the standard OTEL_* environment variables, as for every traced service. " +
		"Without this block no value is recorded: a trace is often read by more people than the server's callers. " +
		"What is recorded is redacted like the audit log (every secret of the configuration, each sensitive argument as \"(sensitive)\") and cut at 4 KiB.",
	Example: `tracing {
  arguments = true
  results   = true
}`,
	Attrs: []*spec.Attr{
		spec.Bool("arguments", `records the arguments on the call's span, as gen_ai.tool.call.arguments; sensitive ones as "(sensitive)"`).WithDefault(false),
		spec.Bool("results", "records the result (its structured content, else its text), as gen_ai.tool.call.result").WithDefault(false),
	},
}

// tracing decodes the tracing block, if any: which values of a call its
// span records.
func (l *loader) tracing() engine.TraceValues {
	b := l.single("tracing", "Tracing is already configured")
	if b == nil {
		return engine.TraceValues{}
	}
	v, diags := tracingSpec.Decode(b.Body, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	return engine.TraceValues{Arguments: v.Bool("arguments"), Results: v.Bool("results")}
}
