package load

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// logSpec is the log block of a tool.
var logSpec = &spec.Block{
	Name:    "log",
	In:      "tool",
	Summary: "A log message sent to the client as each call starts, before the action.",
	Doc: "Sent, redacted, to a client that asked for that level or a lower one, as exec's log_stderr lines are. " +
		"A tool may have several.",
	Example: `log {
  level   = "notice"
  message = expr("'called with ' + string(len(args)) + ' arguments'")
}`,
	Attrs: []*spec.Attr{
		spec.Expr("message", "is a string, or an expr(…) over args and caller (null: none this time)").Mandatory().Unevaluated().Shown(),
		spec.Enum("level", "is how severe the message is", spec.Choices(engine.LogLevels...)...).WithDefault("info"),
	},
}

// logs decodes a tool's log blocks: the messages a call sends to its
// client as it starts, before the action runs, so their programs see the
// arguments and the caller (ctx's environment), not the action's result.
func (l *loader) logs(ctx *engine.DecodeContext, blocks hcl.Blocks) []engine.LogMessage {
	var out []engine.LogMessage
	for _, b := range blocks {
		v, diags := logSpec.Decode(b.Body, ctx)
		l.diags = append(l.diags, diags...)
		a := v.Attr("message")
		if diags.HasErrors() || a == nil || !l.public(ctx, a.Expr, "the message of a log block") {
			continue
		}
		m, diags := ctx.Value(a.Expr)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() && m != nil {
			out = append(out, engine.LogMessage{Level: v.String("level"), Message: m})
		}
	}
	return out
}
