package lsp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// Snippets are the specs' examples (each validates, as the reference's
// tests check) with their labels and attribute values as placeholders to
// tab through; a block without an example is its header and required
// attributes. They are sent only to a client that says it takes snippets.

// withSnippet makes item insert b as a snippet, when the client takes
// snippets.
func (s *server) withSnippet(item *protocol.CompletionItem, b *spec.Block) {
	if !s.snippetSupport() {
		return
	}
	n := 0
	text := blockSnippet(b, &n) + "$0"
	item.InsertText = &text
	item.InsertTextFormat = ptr(protocol.InsertTextFormatSnippet)
}

func (s *server) snippetSupport() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snippets
}

// wholeBlocks are the snippets of whole blocks written at the top of a
// file: a tool with an arg, an http action and an output; in a test file,
// a test with a mock. Each is made of the specs' examples.
func (s *server) wholeBlocks(test bool) []protocol.CompletionItem {
	if !s.snippetSupport() {
		return nil
	}
	specs := map[string]*spec.Block{}
	for _, b := range s.language(test) {
		if _, dup := specs[b.Name]; !dup || b.In == "" {
			specs[b.Name] = b
		}
	}
	whole := func(label, outer string, nested ...string) *protocol.CompletionItem {
		o := specs[outer]
		if o == nil {
			return nil
		}
		n := 0
		header, attrs := headerSnippet(o, &n)
		var body strings.Builder
		body.WriteString(header)
		body.WriteString(attrs)
		for _, name := range nested {
			b := specs[name]
			if b == nil {
				return nil
			}
			body.WriteString("\n" + indent(blockSnippet(b, &n), "  ") + "\n")
		}
		body.WriteString("}\n$0")
		text := body.String()
		return &protocol.CompletionItem{
			Label: label, Kind: ptr(protocol.CompletionItemKindSnippet), Detail: ptr("snippet"),
			Documentation: markdown(fmt.Sprintf("A %s block with %s, from their examples in the language reference.", outer, strings.Join(nested, ", "))),
			InsertText:    &text, InsertTextFormat: ptr(protocol.InsertTextFormatSnippet),
		}
	}
	var out []protocol.CompletionItem
	candidates := []*protocol.CompletionItem{whole("tool with http", "tool", "arg", "http", "output")}
	if test {
		candidates = []*protocol.CompletionItem{whole("test with mock", "test", "mock", "assert")}
	}
	for _, c := range candidates {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// blockSnippet is b as a snippet: its example with placeholders, or its
// header and required attributes. n numbers the placeholders.
func blockSnippet(b *spec.Block, n *int) string {
	if blk, src := exampleBlock(b); blk != nil {
		return placeholders(src, blk, n)
	}
	header, attrs := headerSnippet(b, n)
	return header + attrs + "}"
}

// headerSnippet is the header of b, its labels placeholders, and its
// required attributes as its example writes them (all of the example's
// when none is required), without its nested blocks nor its closing
// brace.
func headerSnippet(b *spec.Block, n *int) (header, attrs string) {
	blk, src := exampleBlock(b)
	labels := b.Labels
	if blk != nil {
		labels = blk.Labels
	}
	var h strings.Builder
	h.WriteString(b.Name)
	for _, l := range labels {
		*n++
		fmt.Fprintf(&h, ` "${%d:%s}"`, *n, escapeSnippet(l))
	}
	h.WriteString(" {\n")
	var a strings.Builder
	if blk != nil {
		// The required ones, or all when none is: the others may read
		// what the example declares beside them.
		required := slices.ContainsFunc(b.Attrs, func(a *spec.Attr) bool { return a.Required })
		for _, at := range sortedAttrs(blk.Body) {
			if a := b.Attr(at.Name); required && (a == nil || !a.Required) {
				continue
			}
			*n++
			fmt.Fprintf(&a, "  %s = ${%d:%s}\n", at.Name, *n, escapeSnippet(src[at.Expr.Range().Start.Byte:at.Expr.Range().End.Byte]))
		}
		return h.String(), a.String()
	}
	for _, at := range b.Attrs {
		if at.Required {
			*n++
			fmt.Fprintf(&a, "  %s = ${%d}\n", at.Name, *n)
		}
	}
	return h.String(), a.String()
}

// exampleBlock is the block of b's example (the example may show others
// beside it) and the example's text.
func exampleBlock(b *spec.Block) (*hclsyntax.Block, string) {
	if b.Example == "" {
		return nil, ""
	}
	f, diags := hclsyntax.ParseConfig([]byte(b.Example), b.Name+".example", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, ""
	}
	body := f.Body.(*hclsyntax.Body)
	for _, blk := range body.Blocks {
		if blk.Type == b.Name {
			return blk, b.Example
		}
	}
	return nil, ""
}

// placeholders is the text of blk in src with its labels, its attributes'
// values and those of its nested blocks as numbered placeholders.
func placeholders(src string, blk *hclsyntax.Block, n *int) string {
	type edit struct {
		start, end int
		label      bool
	}
	var edits []edit
	var walk func(b *hclsyntax.Block)
	walk = func(b *hclsyntax.Block) {
		for _, r := range b.LabelRanges {
			edits = append(edits, edit{r.Start.Byte, r.End.Byte, true})
		}
		for _, a := range b.Body.Attributes {
			r := a.Expr.Range()
			edits = append(edits, edit{r.Start.Byte, r.End.Byte, false})
		}
		for _, nb := range b.Body.Blocks {
			walk(nb)
		}
	}
	walk(blk)
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out strings.Builder
	pos := blk.Range().Start.Byte
	for _, e := range edits {
		out.WriteString(escapeSnippet(src[pos:e.start]))
		*n++
		text := src[e.start:e.end]
		if e.label {
			fmt.Fprintf(&out, `"${%d:%s}"`, *n, escapeSnippet(strings.Trim(text, `"`)))
		} else {
			fmt.Fprintf(&out, "${%d:%s}", *n, escapeSnippet(text))
		}
		pos = e.end
	}
	out.WriteString(escapeSnippet(src[pos:blk.Range().End.Byte]))
	return out.String()
}

// escapeSnippet escapes what a snippet reads as syntax: $, } and \.
func escapeSnippet(s string) string {
	return strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`).Replace(s)
}

func indent(s, by string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "\n")
}
