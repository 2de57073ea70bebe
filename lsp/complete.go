package lsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// What the text before the cursor, on its line, says is being written.
var (
	// expr("… args.ci
	argsPrefix = regexp.MustCompile(`\bexpr\(\s*"[^"]*\bargs\.(\w*)$`)
	// var.ap, http_api.we
	refPrefix = regexp.MustCompile(`\b(` + strings.Join(referenceRoots, "|") + `)\.(\w*)$`)
	// units = "me
	valuePrefix = regexp.MustCompile(`^\s*(\w+)\s*=\s*("?)([\w.-]*)$`)
	// the start of a line: an attribute or a block
	namePrefix = regexp.MustCompile(`^\s*(\w*)$`)
)

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	items := s.complete(d, offset(d.text, p.Position))
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return protocol.CompletionList{Items: items}, nil
}

// complete returns what may be written at the byte offset off of d.
func (s *server) complete(d *document, off int) []protocol.CompletionItem {
	if len(d.text) > engine.MaxConfigFileBytes {
		return nil // larger than a configuration may be: its diagnostic says so
	}
	lineStart := strings.LastIndexByte(d.text[:off], '\n') + 1
	line := d.text[lineStart:off]
	v := s.syntax(d)
	blocks := enclosing(v.f.body, v.toOld(off))
	if m := programPrefix.FindStringSubmatch(line); m != nil {
		// What the program may read here, as the load compiled it.
		if items, ok := s.programItems(d, off, m[1]); ok {
			return items
		}
	}
	if m := argsPrefix.FindStringSubmatch(line); m != nil {
		return argItems(v.f.text, blocks)
	}
	if items, ok := s.blockNameItems(d, line, blocks); ok {
		return items
	}
	if m := refPrefix.FindStringSubmatch(line); m != nil {
		return refItems(s.configuration(d), m[1])
	}
	if m := valuePrefix.FindStringSubmatch(line); m != nil {
		b := s.specOf(load.IsTestFile(d.path), blocks)
		if b == nil {
			return nil
		}
		a := b.Attr(m[1])
		if a == nil {
			return nil
		}
		choices := a.Type.Choices
		switch {
		case a.Type.Kind == spec.KindBool && m[2] == "":
			var items []protocol.CompletionItem
			for _, v := range []string{"true", "false"} {
				items = append(items, protocol.CompletionItem{Label: v, Kind: ptr(protocol.CompletionItemKindValue), Detail: ptr(a.Name)})
			}
			return items
		case a.Type.Kind != spec.KindEnum:
			return nil
		}
		var items []protocol.CompletionItem
		for _, c := range choices {
			insert := fmt.Sprintf("%q", c.Value)
			if m[2] != "" {
				insert = c.Value
			}
			items = append(items, protocol.CompletionItem{
				Label: c.Value, Kind: ptr(protocol.CompletionItemKindEnumMember),
				Detail: ptr(a.Name), Documentation: markdown(c.Doc), InsertText: &insert,
			})
		}
		return items
	}
	if namePrefix.MatchString(line) {
		return s.nameItems(load.IsTestFile(d.path), blocks)
	}
	return nil
}

// nameItems are the attributes and blocks that may be written in the
// innermost of blocks, or at the top of a file (of a test file when test
// is set); a block with its body as a snippet when the client takes
// snippets, and at the top, whole blocks as the specs' examples show them.
func (s *server) nameItems(test bool, blocks []*hclsyntax.Block) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	if len(blocks) == 0 {
		top := map[string]*spec.Block{}
		var types []string
		for _, b := range s.nestedSpecs(test, "", nil, true) {
			top[b.Name] = b
			types = append(types, b.Name)
		}
		if !test {
			types = nil
			for _, h := range load.RootBlocks(s.opts.Registry) {
				types = append(types, h.Type)
			}
		}
		for _, name := range types {
			item := protocol.CompletionItem{Label: name, Kind: ptr(protocol.CompletionItemKindClass), Detail: ptr("block")}
			if b, ok := top[name]; ok {
				item.Documentation = markdown(blockDoc(b))
				s.withSnippet(&item, b)
			}
			items = append(items, item)
		}
		return append(items, s.wholeBlocks(test)...)
	}
	b := s.specOf(test, blocks)
	inner := blocks[len(blocks)-1]
	for _, a := range attrsOf(b) {
		if _, written := inner.Body.Attributes[a.Name]; written {
			continue
		}
		insert := a.Name + " = "
		items = append(items, protocol.CompletionItem{
			Label: a.Name, Kind: ptr(protocol.CompletionItemKindProperty),
			Detail: ptr(a.Type.TypeText()), Documentation: markdown(attrDoc(b, a)), InsertText: &insert,
		})
	}
	for _, n := range s.nestedSpecs(test, inner.Type, b, false) {
		item := protocol.CompletionItem{
			Label: n.Name, Kind: ptr(protocol.CompletionItemKindClass),
			Detail: ptr("block"), Documentation: markdown(blockDoc(n)),
		}
		s.withSnippet(&item, n)
		items = append(items, item)
	}
	return items
}

// attrsOf are the attributes of b, none when b is nil.
func attrsOf(b *spec.Block) []*spec.Attr {
	if b == nil {
		return nil
	}
	return b.Attrs
}

// argItems are the arguments declared by the tool (or resource, prompt)
// that blocks are in.
func argItems(text string, blocks []*hclsyntax.Block) []protocol.CompletionItem {
	if len(blocks) == 0 {
		return nil
	}
	var items []protocol.CompletionItem
	for _, b := range blocks[0].Body.Blocks {
		if b.Type != "arg" || len(b.Labels) == 0 {
			continue
		}
		typ := "string"
		if a, ok := b.Body.Attributes["type"]; ok {
			typ = exprText(text, a.Expr)
		}
		item := protocol.CompletionItem{Label: b.Labels[0], Kind: ptr(protocol.CompletionItemKindField), Detail: ptr(typ)}
		if desc := literal(b.Body, "description"); desc != "" {
			item.Documentation = markdown(desc)
		}
		items = append(items, item)
	}
	return items
}

// refItems are the names that references of root may name.
func refItems(views []view, root string) []protocol.CompletionItem {
	decls := declarations(views, root)
	names := make([]string, 0, len(decls))
	for name := range decls {
		names = append(names, name)
	}
	slices.Sort(names)
	items := make([]protocol.CompletionItem, 0, len(names))
	for _, name := range names {
		t := decls[name]
		item := protocol.CompletionItem{Label: name, Kind: ptr(protocol.CompletionItemKindVariable), Detail: ptr(t.block.Type)}
		if root == "var" {
			item.Documentation = markdown(variableDoc(t.view.f.text, name, t.block))
		}
		items = append(items, item)
	}
	return items
}

// variableDoc documents a variable from its declaration: its type, its
// default and its description. A sensitive variable's default is never
// shown, not even as written.
func variableDoc(text, name string, b *hclsyntax.Block) string {
	var s strings.Builder
	fmt.Fprintf(&s, "**var.%s**", name)
	typ := "string"
	if a, ok := b.Body.Attributes["type"]; ok {
		typ = exprText(text, a.Expr)
	}
	fmt.Fprintf(&s, " (%s)", typ)
	sensitive := false
	if a, ok := b.Body.Attributes["sensitive"]; ok {
		if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.Bool && v.True() {
			sensitive = true
		}
	}
	if sensitive {
		s.WriteString(" (sensitive)")
	}
	if desc := literal(b.Body, "description"); desc != "" {
		s.WriteString("\n\n" + desc)
	}
	if a, ok := b.Body.Attributes["default"]; ok {
		if sensitive {
			s.WriteString("\n\nDefault: (sensitive)")
		} else {
			fmt.Fprintf(&s, "\n\nDefault: `%s`", exprText(text, a.Expr))
		}
	}
	return s.String()
}

// exprText is the text of an expression of text as written, on one line.
func exprText(text string, e hclsyntax.Expression) string {
	r := e.Range()
	if r.Start.Byte < 0 || r.End.Byte > len(text) || r.Start.Byte > r.End.Byte {
		return ""
	}
	return strings.Join(strings.Fields(text[r.Start.Byte:r.End.Byte]), " ")
}

// literal is the value of a string attribute written as a literal, or "".
func literal(body *hclsyntax.Body, name string) string {
	a, ok := body.Attributes[name]
	if !ok {
		return ""
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

func markdown(s string) any {
	if s == "" {
		return nil
	}
	return protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}
}
