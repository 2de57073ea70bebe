package load

import (
	"path/filepath"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// auditSpec is the audit block.
var auditSpec = &spec.Block{
	Name:    "audit",
	Summary: "Writes one line per call: who called which tool, when, how it ended.",
	Doc: "An audit file holds JSON lines; on standard error the lines follow the format of the logs. " +
		`Argument values are left out unless arguments = true, and sensitive ones are written as "(sensitive)".`,
	Example: `audit {
  file      = "audit.log"
  arguments = false
}`,
	Attrs: []*spec.Attr{
		spec.String("file", `is where audit lines are appended: a path relative to this file, or "-" for standard error`).WithDefault("-"),
		spec.Bool("arguments", "adds the calls' argument values to the lines").WithDefault(false),
	},
}

// audit decodes the audit block, if any: where to write one line per call,
// and whether the lines carry argument values.
func (l *loader) audit() *engine.Audit {
	b := l.single("audit", "The audit log is already configured")
	if b == nil {
		return nil
	}
	ctx := l.decodeContext(b.DefRange.Filename)
	v, diags := auditSpec.Decode(b.Body, ctx)
	l.diags = append(l.diags, diags...)
	if v.Has("file") && v.String("file") == "" {
		l.error(v.Attr("file").Expr.Range(), "Invalid audit file", `file is where audit lines are appended: a path relative to this file, or "-" for standard error (the default).`)
	}
	if diags.HasErrors() {
		return nil
	}
	a := &engine.Audit{Arguments: v.Bool("arguments")}
	if f := v.String("file"); f != "" && f != "-" {
		a.File = f
		if !filepath.IsAbs(a.File) {
			a.File = filepath.Join(ctx.Dir, a.File)
		}
	}
	return a
}
