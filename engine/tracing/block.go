package tracing

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Spec is the tracing block.
var Spec = &spec.Block{
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

// Decode reads the tracing block, or none when block is nil: which values
// of a call its span records. What it records is redacted with
// ctx.Redactor.
func Decode(block *hcl.Block, ctx *engine.DecodeContext) (*Layer, hcl.Diagnostics) {
	l := &Layer{redact: ctx.Redactor.Redact}
	if block == nil {
		return l, nil
	}
	v, diags := Spec.Decode(block.Body, ctx)
	l.Arguments, l.Results = v.Bool("arguments"), v.Bool("results")
	return l, diags
}
