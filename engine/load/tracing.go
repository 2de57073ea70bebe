package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
)

// tracingBlock is the tracing block as written.
type tracingBlock struct {
	Arguments *bool `hcl:"arguments,optional"`
	Results   *bool `hcl:"results,optional"`
}

// tracing decodes the tracing block, if any: which values of a call its
// span records. Where traces go is not configured here but by the
// standard OTEL_* environment variables, as for every traced service.
func (l *loader) tracing() engine.TraceValues {
	var v engine.TraceValues
	b := l.single("tracing", "Tracing is already configured")
	if b == nil {
		return v
	}
	var tb tracingBlock
	diags := decodeBody(l.decodeContext(b.DefRange.Filename), b.Body, &tb)
	l.diags = append(l.diags, diags...)
	if tb.Arguments != nil {
		v.Arguments = *tb.Arguments
	}
	if tb.Results != nil {
		v.Results = *tb.Results
	}
	return v
}
