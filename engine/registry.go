package engine

import "fmt"

// Registry holds the adapters a configuration may use, by the name of their
// blocks. The command line builds one and passes it to the loader.
type Registry struct {
	actions   map[string]Adapter
	resources map[string]ResourceAdapter
	kinds     []string
}

// NewRegistry returns a registry of the given adapters. Two adapters that
// claim the same block name are a programming error and panic.
func NewRegistry(adapters ...Adapter) *Registry {
	r := &Registry{actions: map[string]Adapter{}, resources: map[string]ResourceAdapter{}}
	for _, a := range adapters {
		if _, dup := r.actions[a.Kind()]; dup {
			panic(fmt.Sprintf("engine: two adapters for action block %q", a.Kind()))
		}
		r.actions[a.Kind()] = a
		r.kinds = append(r.kinds, a.Kind())
		if ra, ok := a.(ResourceAdapter); ok {
			if _, dup := r.resources[ra.ResourceKind()]; dup {
				panic(fmt.Sprintf("engine: two adapters for block %q", ra.ResourceKind()))
			}
			r.resources[ra.ResourceKind()] = ra
		}
	}
	return r
}

// Action returns the adapter of the action block named kind.
func (r *Registry) Action(kind string) (Adapter, bool) {
	a, ok := r.actions[kind]
	return a, ok
}

// Resource returns the adapter of the top-level block named kind.
func (r *Registry) Resource(kind string) (ResourceAdapter, bool) {
	a, ok := r.resources[kind]
	return a, ok
}

// ActionKinds lists the action block names, in registration order.
func (r *Registry) ActionKinds() []string { return r.kinds }

// ResourceKinds lists the top-level block names the adapters declare, in
// registration order.
func (r *Registry) ResourceKinds() []string {
	var out []string
	for _, k := range r.kinds {
		if ra, ok := r.actions[k].(ResourceAdapter); ok {
			out = append(out, ra.ResourceKind())
		}
	}
	return out
}
