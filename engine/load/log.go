package load

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

var logSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "level"},
	{Name: "message", Required: true},
}}

// logs decodes a tool's log blocks: the messages a call sends to its
// client as it starts, before the action runs, so their programs see the
// arguments and the caller (ctx's environment), not the action's result.
func (l *loader) logs(ctx *engine.DecodeContext, blocks hcl.Blocks) []engine.LogMessage {
	var out []engine.LogMessage
	for _, b := range blocks {
		if b.Type != "log" {
			continue
		}
		content, diags := b.Body.Content(logSchema)
		l.diags = append(l.diags, diags...)
		m := engine.LogMessage{Level: "info"}
		if a, ok := content.Attributes["level"]; ok {
			s, diags := ctx.String(a.Expr)
			l.diags = append(l.diags, diags...)
			if !diags.HasErrors() && !engine.ValidLogLevel(s) {
				l.error(a.Expr.Range(), "Invalid log level", "level is how severe the message is: one of %s.", strings.Join(engine.LogLevels, ", "))
				continue
			}
			m.Level = s
		}
		if a, ok := content.Attributes["message"]; ok && l.public(ctx, a.Expr, "the message of a log block") {
			v, diags := ctx.Value(a.Expr)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				continue
			}
			m.Message = v
		}
		if m.Message != nil {
			out = append(out, m)
		}
	}
	return out
}
