package engine

import "fmt"

// Registry holds the adapters a configuration may use, by the name of their
// blocks. The command line builds one and passes it to the loader.
type Registry struct {
	actions   map[string]Adapter
	upstreams map[string]UpstreamAdapter
	kinds     []string
}

// NewRegistry returns a registry of the given adapters. Two adapters that
// claim the same block name are a programming error and panic.
func NewRegistry(adapters ...Adapter) *Registry {
	r := &Registry{actions: map[string]Adapter{}, upstreams: map[string]UpstreamAdapter{}}
	for _, a := range adapters {
		if _, dup := r.actions[a.Kind()]; dup {
			panic(fmt.Sprintf("engine: two adapters for action block %q", a.Kind()))
		}
		r.actions[a.Kind()] = a
		r.kinds = append(r.kinds, a.Kind())
		if ra, ok := a.(UpstreamAdapter); ok {
			if _, dup := r.upstreams[ra.UpstreamKind()]; dup {
				panic(fmt.Sprintf("engine: two adapters for block %q", ra.UpstreamKind()))
			}
			r.upstreams[ra.UpstreamKind()] = ra
		}
	}
	return r
}

// Action returns the adapter of the action block named kind.
func (r *Registry) Action(kind string) (Adapter, bool) {
	a, ok := r.actions[kind]
	return a, ok
}

// Upstream returns the adapter of the top-level block named kind.
func (r *Registry) Upstream(kind string) (UpstreamAdapter, bool) {
	a, ok := r.upstreams[kind]
	return a, ok
}

// ActionKinds lists the action block names, in registration order.
func (r *Registry) ActionKinds() []string { return r.kinds }

// UpstreamKinds lists the top-level block names the adapters declare, in
// registration order.
func (r *Registry) UpstreamKinds() []string {
	var out []string
	for _, k := range r.kinds {
		if ra, ok := r.actions[k].(UpstreamAdapter); ok {
			out = append(out, ra.UpstreamKind())
		}
	}
	return out
}
