package load

import "github.com/mcpdecl/mcpdecl/engine/audit"

// auditBlock decodes the audit block, if any (see package audit): its log
// is the outermost layer of every tool's per-call path.
func (l *loader) auditBlock() {
	b := l.single("audit", "The audit log is already configured")
	if b == nil {
		return
	}
	a, diags := audit.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if a != nil {
		l.outer = append(l.outer, a)
	}
}
