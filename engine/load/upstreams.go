package load

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
)

// upstreams decodes the top-level blocks of the adapters, such as http_api,
// and makes them available as references like http_api.<name>.
func (l *loader) upstreams() {
	for _, kind := range l.opts.Registry.UpstreamKinds() {
		adapter, _ := l.opts.Registry.Upstream(kind)
		refs := map[string]cty.Value{}
		for _, b := range l.checkUnique(l.blocks[kind], kind+" block") {
			b = l.override(b)
			ctx := l.decodeContext(b.DefRange.Filename)
			r, diags := adapter.DecodeUpstream(ctx, b)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				// Already reported: references to it are left unknown.
				refs[b.Labels[0]] = cty.UnknownVal(engine.UpstreamType())
				continue
			}
			l.decoded = append(l.decoded, r)
			refs[b.Labels[0]] = engine.UpstreamVal(kind, r)
		}
		l.root.Variables[kind] = cty.ObjectVal(refs)
	}
}
