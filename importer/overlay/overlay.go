// Package overlay applies OpenAPI Overlay 1.0 documents to the trees the
// importers read (an OpenAPI document; the operations of a GraphQL
// import), so that curation written once (names, descriptions, removals)
// survives a new version of what is imported; and reads JSON or YAML into
// such trees.
package overlay

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Apply applies the OpenAPI Overlay 1.0 document data
// (https://spec.openapis.org/overlay/v1.0.0.html) to doc, a tree of plain
// values (as [Decode] gives), and returns the tree changed. Actions apply
// in order: update merges an object into each target (objects
// recursively, lists appended, other values replaced), remove deletes each
// target. Targets are JSONPath expressions of names
// ($.paths['/pets'].get), wildcards (.* and [*]), indexes ([0]) and
// descent (..description); filter expressions are not read, and an
// overlay that uses one is refused. location names the overlay in
// messages. unmatched are the actions whose target selects nothing, each
// as "location: actions[i]: the target T", for a warning: the document
// may have changed under the overlay.
func Apply(doc map[string]any, data []byte, location string) (out map[string]any, unmatched []string, err error) {
	root, err := Decode(data, location)
	if err != nil {
		return nil, nil, err
	}
	m, _ := root.(map[string]any)
	if s, _ := m["overlay"].(string); s == "" {
		return nil, nil, fmt.Errorf("%s is not an OpenAPI Overlay: it has no overlay field at its top", location)
	}
	actions, _ := m["actions"].([]any)
	for i, av := range actions {
		a, _ := av.(map[string]any)
		where := fmt.Sprintf("%s: actions[%d]", location, i)
		target, _ := a["target"].(string)
		if target == "" {
			return nil, nil, fmt.Errorf("%s has no target", where)
		}
		path, err := parsePath(target)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the target %q: %w", where, target, err)
		}
		remove := a["remove"] == true
		update, hasUpdate := a["update"]
		if !remove && !hasUpdate {
			return nil, nil, fmt.Errorf("%s needs update or remove: true", where)
		}
		var top any = doc
		nodes := selectPath([]node{{value: top}}, path)
		if len(nodes) == 0 {
			unmatched = append(unmatched, fmt.Sprintf("%s: the target %s", where, target))
		}
		for j := len(nodes) - 1; j >= 0; j-- { // backwards: removing list elements keeps indexes right
			n := nodes[j]
			switch {
			case remove:
				n.remove()
			default:
				if m, ok := n.value.(map[string]any); ok {
					if u, ok := update.(map[string]any); ok {
						merge(m, u)
						continue
					}
				}
				n.set(update)
			}
		}
	}
	return dropRemoved(doc).(map[string]any), unmatched, nil
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
		if um, ok := v.(map[string]any); ok {
			if mm, ok := m[k].(map[string]any); ok {
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
			for _, k := range slices.Sorted(maps.Keys(v)) {
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
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, descendants(node{value: v[k], parent: v, key: k})...)
		}
	case []any:
		for i, e := range v {
			out = append(out, descendants(node{value: e, parent: v, index: i})...)
		}
	}
	return out
}

// HintNames are the names of MCP's tool annotations an overlay may set
// (an OpenAPI operation's x-mcp-annotations, a GraphQL operation's
// annotations); HintAttrs are their attributes in HCL.
var (
	HintNames = [...]string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	HintAttrs = [...]string{"read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"}
)
