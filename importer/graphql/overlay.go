package graphql

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpdecl/mcpdecl/importer/overlay"
)

// Overlay is an OpenAPI Overlay 1.0 document that curates the import: its
// actions target the tree [Import] builds of the operations (see
// [operationTree]), by the operation's name.
type Overlay struct {
	// Location names the overlay in messages: its path.
	Location string
	// Data is its JSON or YAML.
	Data []byte
}

// The tree an overlay applies to is
//
//	operations:
//	  <the operation's name, else its file's name without extension>:
//	    name: <the tool's name>
//	    description: <the tool's description>
//	    title: <absent; the tool's title>
//	    annotations: <absent; readOnlyHint, destructiveHint, idempotentHint, openWorldHint>
//	    variables:
//	      <variable>:
//	        description: <the argument's description, when it has one>
//	        default: <the operation's default, when it has one>
//	        value: <absent; a fixed value sent for the variable, which is then no argument>
//
// Removing an operation leaves it out; removing a variable makes it no
// argument and leaves it out of the request (the operation's default, or
// null, applies), which a required variable without a default cannot be.

// opFields and varFields are the fields of the tree the import reads.
var (
	opFields  = []string{"name", "title", "description", "annotations", "variables"}
	varFields = []string{"description", "default", "value"}
)

// toolName is what MCP allows as a tool's name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// treeKey is the key of an operation in the tree: its name, else its
// file's name without extension.
func treeKey(o string, op Operation) string {
	if o != "" {
		return o
	}
	base := path.Base(op.Path)
	return strings.TrimSuffix(base, path.Ext(base))
}

// operationTree is the tree of the tools as they would be written without
// an overlay.
func operationTree(tools []*toolDecl) map[string]any {
	ops := map[string]any{}
	for _, t := range tools {
		vars := map[string]any{}
		for _, a := range t.args {
			v := map[string]any{}
			if a.Description != "" {
				v["description"] = a.Description
			}
			if a.Default != nil {
				v["default"] = a.Default
			}
			vars[a.Name] = v
		}
		ops[t.key] = map[string]any{"name": t.name, "description": t.description, "variables": vars}
	}
	return map[string]any{"operations": ops}
}

// applyOverlays applies the overlays to the tools, in order: it renames
// and describes them, leaves out those the overlays removed, and changes
// their arguments. unmatched are the actions that selected nothing. An
// operation whose changed variables cannot be sent is skipped.
func applyOverlays(tools []*toolDecl, overlays []Overlay) (kept []*toolDecl, skipped []Skip, hidden, unmatched []string, err error) {
	tree := operationTree(tools)
	for _, o := range overlays {
		var u []string
		if tree, u, err = overlay.Apply(tree, o.Data, o.Location); err != nil {
			return nil, nil, nil, nil, err
		}
		unmatched = append(unmatched, u...)
	}
	ops, _ := tree["operations"].(map[string]any)
	if ops == nil {
		return nil, nil, nil, unmatched, fmt.Errorf("the overlays removed operations itself, or made it something else than an object")
	}
	byKey := map[string]bool{}
	for _, t := range tools {
		byKey[t.key] = true
	}
	for _, k := range slices.Sorted(maps.Keys(ops)) {
		if !byKey[k] {
			return nil, nil, nil, unmatched, fmt.Errorf("the overlays add operations.%s, which no operation file holds: an overlay changes the operations read, it cannot add one", k)
		}
	}
	for _, t := range tools {
		node, ok := ops[t.key]
		if !ok {
			hidden = append(hidden, t.key)
			continue
		}
		why, err := t.curate(node)
		if err != nil {
			return nil, nil, nil, unmatched, fmt.Errorf("the overlays make operations.%s %w", t.key, err)
		}
		if why != "" {
			skipped = append(skipped, Skip{Path: t.op.Path, Reason: why})
			continue
		}
		kept = append(kept, t)
	}
	return kept, skipped, hidden, unmatched, nil
}

// curate applies the tree's node of the tool to it. It returns an error
// for a node the import cannot read, and why the tool cannot be written,
// or "".
func (t *toolDecl) curate(n any) (string, error) {
	node, ok := n.(map[string]any)
	if !ok {
		return "", fmt.Errorf("something else than an object")
	}
	if err := known(node, opFields); err != nil {
		return "", err
	}
	var err error
	if t.name, err = text(node, "name", t.name); err != nil {
		return "", err
	}
	if !toolName.MatchString(t.name) {
		return "", fmt.Errorf("named %q: a tool's name is 1 to 128 letters, digits, _, - and .", t.name)
	}
	if t.description, err = text(node, "description", t.description); err != nil {
		return "", err
	}
	if strings.TrimSpace(t.description) == "" {
		return "", fmt.Errorf("without a description: every tool needs one")
	}
	if t.title, err = text(node, "title", ""); err != nil {
		return "", err
	}
	if a, ok := node["annotations"]; ok {
		if t.hints, err = annotations(a); err != nil {
			return "", err
		}
	}
	vars, ok := node["variables"].(map[string]any)
	if !ok {
		vars = map[string]any{}
		if node["variables"] != nil {
			return "", fmt.Errorf("have variables that are not an object")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if !slices.ContainsFunc(t.args, func(a argDecl) bool { return a.Name == k }) {
			return "", fmt.Errorf("have variables.%s, which the operation does not declare", k)
		}
	}
	for i := range t.args {
		a := &t.args[i]
		v, ok := vars[a.Name]
		if !ok {
			if !a.Optional {
				return fmt.Sprintf("the overlays take $%s out of its arguments, but the operation requires it and gives it no default: give it a value (value: …) instead", a.Name), nil
			}
			a.omitted = true
			continue
		}
		vm, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("have variables.%s that is not an object", a.Name)
		}
		if err := known(vm, varFields); err != nil {
			return "", fmt.Errorf("have variables.%s %w", a.Name, err)
		}
		if a.Description, err = text(vm, "description", ""); err != nil {
			return "", fmt.Errorf("have variables.%s %w", a.Name, err)
		}
		a.Default = vm["default"]
		if a.HasDefault = a.Default != nil; a.HasDefault {
			a.Optional = true
		}
		if fixed, ok := vm["value"]; ok {
			if fixed == nil {
				return "", fmt.Errorf("have variables.%s.value null: remove the variable to leave it out", a.Name)
			}
			a.value = fixed
		}
	}
	return "", nil
}

// known checks that node has no field but fields.
func known(node map[string]any, fields []string) error {
	for _, k := range slices.Sorted(maps.Keys(node)) {
		if !slices.Contains(fields, k) {
			return fmt.Errorf("have %s, which import graphql does not read: it reads %s", k, strings.Join(fields, ", "))
		}
	}
	return nil
}

// text is node's string field k, else def when it has none.
func text(node map[string]any, k, def string) (string, error) {
	v, ok := node[k]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("have a %s that is not a string", k)
	}
	return s, nil
}

// annotations reads an annotations object: MCP's hint names, each true or
// false.
func annotations(v any) (map[string]bool, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("have annotations that are not an object")
	}
	out := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(overlay.HintNames[:], k) {
			return nil, fmt.Errorf("have annotations.%s: annotations take %s", k, strings.Join(overlay.HintNames[:], ", "))
		}
		b, ok := m[k].(bool)
		if !ok {
			return nil, fmt.Errorf("have annotations.%s that is neither true nor false", k)
		}
		out[k] = b
	}
	return out, nil
}
