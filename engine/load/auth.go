package load

import (
	"github.com/mcpdecl/mcpdecl/engine/auth"
)

// authBlock decodes the auth block, if any, into the authenticator that the
// HTTP front finds among the configuration's resources.
func (l *loader) authBlock() {
	b := l.single("auth", "Who may call the server is already declared")
	if b == nil {
		return
	}
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
	l.claims = a.Claims()
}
