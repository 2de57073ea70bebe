package load

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
)

// resources decodes the top-level blocks of the adapters, such as http_api,
// and makes them available as references like http_api.<name>.
func (l *loader) resources() {
	for _, kind := range l.opts.Registry.ResourceKinds() {
		adapter, _ := l.opts.Registry.Resource(kind)
		refs := map[string]cty.Value{}
		for _, b := range l.checkUnique(l.blocks[kind], kind+" block") {
			b = l.override(b)
			ctx := l.decodeContext(b.DefRange.Filename)
			r, diags := adapter.DecodeResource(ctx, b)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				// Already reported: references to it are left unknown.
				refs[b.Labels[0]] = cty.UnknownVal(engine.ResourceType())
				continue
			}
			l.decoded = append(l.decoded, r)
			refs[b.Labels[0]] = engine.ResourceVal(kind, r)
		}
		l.root.Variables[kind] = cty.ObjectVal(refs)
	}
}
