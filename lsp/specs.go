package lsp

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/testrun"
)

// The blocks and attributes the server completes and documents are the
// language's specs (load.Language), read at each request: a block gains
// completion and hover the moment it has a spec.

// specOf returns the spec of the innermost of blocks (outermost first),
// or nil when that block has no spec yet.
func (s *server) specOf(test bool, blocks []*hclsyntax.Block) *spec.Block {
	var parent *spec.Block
	parentName := ""
	for i, b := range blocks {
		var found *spec.Block
		for _, c := range s.nestedSpecs(test, parentName, parent, i == 0) {
			if c.Name == b.Type {
				found = c
				break
			}
		}
		parent, parentName = found, b.Type
	}
	return parent
}

// nestedSpecs are the specs of the blocks that may stand in a block named
// parentName (whose spec is parent, nil when it has none), or at the top
// of a file when top is set; of a test file when test is set.
func (s *server) nestedSpecs(test bool, parentName string, parent *spec.Block, top bool) []*spec.Block {
	var out []*spec.Block
	seen := map[string]bool{}
	add := func(b *spec.Block) {
		if !seen[b.Name] {
			seen[b.Name] = true
			out = append(out, b)
		}
	}
	if parent != nil {
		for _, n := range parent.Blocks {
			add(n.Block)
		}
	}
	for _, b := range s.language(test) {
		if (top && b.In == "") || (!top && b.In != "" && b.In == parentName) {
			add(b)
		}
	}
	return out
}

// language is the specs of the blocks of a configuration, or of a test
// file when test is set.
func (s *server) language(test bool) []*spec.Block {
	if test {
		return testrun.Language()
	}
	return load.Language(s.opts.Registry)
}

// attrDoc documents an attribute in Markdown: its name and type, what it
// is, its default and its bounds.
func attrDoc(b *spec.Block, a *spec.Attr) string {
	var s strings.Builder
	fmt.Fprintf(&s, "**%s** (%s) in `%s`", a.Name, a.Type.TypeText(), b.Path())
	if a.Required {
		s.WriteString(", required")
	}
	fmt.Fprintf(&s, "\n\n`%s` %s.", a.Name, strings.TrimSuffix(a.Doc, "."))
	if d := a.DefaultText(); d != "" {
		fmt.Fprintf(&s, "\n\nDefault: %s.", d)
	}
	if len(a.Type.Choices) > 0 {
		s.WriteString("\n\nOne of:")
		for _, c := range a.Type.Choices {
			fmt.Fprintf(&s, "\n- `%q`", c.Value)
			if c.Doc != "" {
				s.WriteString(": " + c.Doc)
			}
		}
	}
	if a.Secret {
		s.WriteString("\n\nIt may hold a secret: give it from a sensitive variable.")
	}
	return s.String()
}

// blockDoc documents a block in Markdown.
func blockDoc(b *spec.Block) string {
	var s strings.Builder
	fmt.Fprintf(&s, "**%s**", b.Path())
	for _, l := range b.Labels {
		fmt.Fprintf(&s, " \"%s\"", l)
	}
	s.WriteString(" block")
	if b.Summary != "" {
		s.WriteString("\n\n" + b.Summary)
	}
	if b.Doc != "" {
		s.WriteString("\n\n" + b.Doc)
	}
	if b.Example != "" {
		s.WriteString("\n\n```hcl\n" + strings.TrimSpace(b.Example) + "\n```")
	}
	return s.String()
}
