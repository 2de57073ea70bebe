package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// tracing decodes the tracing block, if any (see package tracing): what
// a call's span records, a layer of every tool's per-call path, there
// without the block too, to record how calls end.
func (l *loader) tracing() {
	b := l.single("tracing", "Tracing is already configured")
	ctx := &engine.DecodeContext{Redactor: l.redactor}
	if b != nil {
		ctx = l.decodeContext(b.DefRange.Filename)
	}
	spans, diags := tracing.Decode(b, ctx)
	l.diags = append(l.diags, diags...)
	l.outer = append(l.outer, spans)
}
