package load

import (
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
)

// auditBlock is the audit block as written.
type auditBlock struct {
	File      *string `hcl:"file,optional"`
	Arguments *bool   `hcl:"arguments,optional"`
}

// audit decodes the audit block, if any: where to write one line per call,
// and whether the lines carry argument values.
func (l *loader) audit() *engine.Audit {
	b := l.single("audit", "The audit log is already configured")
	if b == nil {
		return nil
	}
	var ab auditBlock
	ctx := l.decodeContext(b.DefRange.Filename)
	diags := decodeBody(ctx, b.Body, &ab)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	a := &engine.Audit{}
	if ab.Arguments != nil {
		a.Arguments = *ab.Arguments
	}
	if ab.File != nil && *ab.File != "" && *ab.File != "-" {
		a.File = *ab.File
		if !filepath.IsAbs(a.File) {
			a.File = filepath.Join(ctx.Dir, a.File)
		}
	}
	if ab.File != nil && *ab.File == "" {
		attrs, _ := b.Body.JustAttributes()
		l.error(attrRange(attrs, "file", b.DefRange), "Invalid audit file", `file is where audit lines are appended: a path relative to this file, or "-" for standard error (the default).`)
	}
	return a
}

// attrRange is the range of the named attribute's value, or def when it
// cannot be found.
func attrRange(attrs hcl.Attributes, name string, def hcl.Range) hcl.Range {
	if a, ok := attrs[name]; ok {
		return a.Expr.Range()
	}
	return def
}
