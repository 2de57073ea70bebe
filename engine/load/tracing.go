package load

import (
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/callspan"
)

// tracing decodes the tracing block, if any (see package callspan): what
// a call's span records, a layer of every tool's per-call path, there
// without the block too, to record how calls end.
func (l *loader) tracing() {
	b := l.single("tracing", "Tracing is already configured")
	ctx := &engine.DecodeContext{Redactor: l.redactor}
	if b != nil {
		ctx = l.decodeContext(b.DefRange.Filename)
	}
	spans, diags := callspan.Decode(b, ctx)
	l.diags = append(l.diags, diags...)
	l.outer = append(l.outer, spans)
}
