package load

import (
	"github.com/mcpdecl/mcpdecl/engine/auth"
)

// authBlock decodes the auth block, if any, into the authenticator that the
// HTTP front finds among the configuration's resources.
func (l *loader) authBlock() {
	blocks := l.blocks["auth"]
	for _, b := range blocks[min(1, len(blocks)):] {
		l.error(b.DefRange, "Duplicate auth block", "Who may call the server is already declared at %s; merge the two blocks.", blocks[0].DefRange)
	}
	if len(blocks) == 0 {
		return
	}
	b := blocks[0]
	cfg, diags := auth.Decode(b, l.decodeContext(b.DefRange.Filename))
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	a, err := auth.New(cfg, l.opts.Logger)
	if err != nil {
		l.error(b.DefRange, "Invalid auth block", "%s.", err)
		return
	}
	l.decoded = append(l.decoded, a)
}
