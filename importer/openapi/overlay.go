package openapi

import (
	"fmt"
	"strconv"
	"strings"
)

// ApplyOverlay applies an OpenAPI Overlay 1.0 document
// (https://spec.openapis.org/overlay/v1.0.0.html) to the document, before
// import, so that curation (names, descriptions, removed operations)
// survives a new version of the document. Actions apply in order: update
// merges an object into each target (objects recursively, lists appended,
// other values replaced), remove deletes each target. Targets are JSONPath
// expressions of names ($.paths['/pets'].get), wildcards (.* and [*]),
// indexes ([0]) and descent (..description); filter expressions are not
// read, and an overlay that uses one is refused. location names the
// overlay in messages.
func (s *Spec) ApplyOverlay(data []byte, location string) error {
	root, err := decode(data, location)
	if err != nil {
		return err
	}
	if str(root["overlay"]) == "" {
		return fmt.Errorf("%s is not an OpenAPI Overlay: it has no overlay field at its top", location)
	}
	for i, av := range list(root["actions"]) {
		a := obj(av)
		where := fmt.Sprintf("%s: actions[%d]", location, i)
		target := str(a["target"])
		if target == "" {
			return fmt.Errorf("%s has no target", where)
		}
		path, err := parsePath(target)
		if err != nil {
			return fmt.Errorf("%s: the target %q: %w", where, target, err)
		}
		remove := a["remove"] == true
		update, hasUpdate := a["update"]
		if !remove && !hasUpdate {
			return fmt.Errorf("%s needs update or remove: true", where)
		}
		var doc any = s.Root
		nodes := selectPath([]node{{value: doc}}, path)
		for j := len(nodes) - 1; j >= 0; j-- { // backwards: removing list elements keeps indexes right
			n := nodes[j]
			switch {
			case remove:
				n.remove()
			default:
				if m := obj(n.value); m != nil {
					if u := obj(update); u != nil {
						merge(m, u)
						continue
					}
				}
				n.set(update)
			}
		}
	}
	s.Root = dropRemoved(s.Root).(map[string]any)
	return nil
}

// dropRemoved takes the list elements an overlay removed out of their
// lists.
func dropRemoved(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = dropRemoved(e)
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if _, gone := e.(removed); !gone {
				out = append(out, dropRemoved(e))
			}
		}
		return out
	}
	return v
}

// node is a value found by a path, with the way to change it in its parent.
type node struct {
	value  any
	parent any    // map[string]any or []any; nil for the root
	key    string // in a map
	index  int    // in a list
}

func (n node) set(v any) {
	switch p := n.parent.(type) {
	case map[string]any:
		p[n.key] = v
	case []any:
		p[n.index] = v
	}
}

func (n node) remove() {
	switch p := n.parent.(type) {
	case map[string]any:
		delete(p, n.key)
	case []any:
		// A list cannot shrink through its parent's reference: the element
		// is marked, and dropRemoved takes marks out once all actions ran.
		p[n.index] = removed{}
	}
}

// removed marks a list element an overlay removed.
type removed struct{}

// merge merges u into m: objects recursively, lists appended, others
// replaced.
func merge(m, u map[string]any) {
	for k, v := range u {
		if um := obj(v); um != nil {
			if mm := obj(m[k]); mm != nil {
				merge(mm, um)
				continue
			}
		}
		if ul, ok := v.([]any); ok {
			if ml, ok := m[k].([]any); ok {
				m[k] = append(ml, ul...)
				continue
			}
		}
		m[k] = v
	}
}

// step is one step of a path: a name, a wildcard, an index, or descent to
// a name.
type step struct {
	name     string
	wildcard bool
	index    int // -1 when not an index
	descend  bool
}

// parsePath reads the JSONPath subset ApplyOverlay takes.
func parsePath(p string) ([]step, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("a JSONPath starts with $")
	}
	var steps []step
	rest := p[1:]
	for rest != "" {
		descend := false
		switch {
		case strings.HasPrefix(rest, ".."):
			descend = true
			rest = rest[2:]
		case rest[0] == '.':
			rest = rest[1:]
		case rest[0] == '[':
		default:
			return nil, fmt.Errorf("unexpected %q", rest)
		}
		if rest == "" {
			return nil, fmt.Errorf("it ends after a dot")
		}
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			inner := ""
			if len(rest) > 1 && (rest[1] == '\'' || rest[1] == '"') {
				q := rest[1]
				close := strings.IndexByte(rest[2:], q)
				if close < 0 || len(rest) < close+4 || rest[close+3] != ']' {
					return nil, fmt.Errorf("a quoted name is not closed")
				}
				inner = rest[1 : close+3]
				end = close + 3
			} else if end < 0 {
				return nil, fmt.Errorf("a [ is not closed")
			} else {
				inner = rest[1:end]
			}
			rest = rest[end+1:]
			switch {
			case inner == "*":
				steps = append(steps, step{wildcard: true, index: -1, descend: descend})
			case strings.HasPrefix(inner, "?"):
				return nil, fmt.Errorf("filter expressions ([?…]) are not supported; name the target instead")
			case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"'):
				steps = append(steps, step{name: inner[1 : len(inner)-1], index: -1, descend: descend})
			default:
				i, err := strconv.Atoi(inner)
				if err != nil || i < 0 {
					return nil, fmt.Errorf("[%s] is neither a quoted name, * nor an index", inner)
				}
				steps = append(steps, step{index: i, descend: descend})
			}
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		name := rest[:end]
		rest = rest[end:]
		if name == "*" {
			steps = append(steps, step{wildcard: true, index: -1, descend: descend})
		} else {
			steps = append(steps, step{name: name, index: -1, descend: descend})
		}
	}
	return steps, nil
}

// selectPath finds the nodes a path selects.
func selectPath(nodes []node, steps []step) []node {
	for _, st := range steps {
		var next []node
		for _, n := range nodes {
			from := []node{n}
			if st.descend {
				from = descendants(n)
			}
			for _, f := range from {
				next = append(next, children(f, st)...)
			}
		}
		nodes = next
	}
	return nodes
}

// children are the children of n a step selects.
func children(n node, st step) []node {
	var out []node
	switch v := n.value.(type) {
	case map[string]any:
		if st.index >= 0 {
			return nil
		}
		if st.wildcard {
			for _, k := range sortedKeys(v) {
				out = append(out, node{value: v[k], parent: v, key: k})
			}
			return out
		}
		if e, ok := v[st.name]; ok {
			out = append(out, node{value: e, parent: v, key: st.name})
		}
	case []any:
		if st.wildcard {
			for i, e := range v {
				out = append(out, node{value: e, parent: v, index: i})
			}
		} else if st.index >= 0 && st.index < len(v) {
			out = append(out, node{value: v[st.index], parent: v, index: st.index})
		}
	}
	return out
}

// descendants are n and everything below it.
func descendants(n node) []node {
	out := []node{n}
	switch v := n.value.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			out = append(out, descendants(node{value: v[k], parent: v, key: k})...)
		}
	case []any:
		for i, e := range v {
			out = append(out, descendants(node{value: e, parent: v, index: i})...)
		}
	}
	return out
}
