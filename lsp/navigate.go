package lsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	v := s.syntax(d)
	off := v.toOld(offset(d.text, p.Position))
	// A reference: what it names.
	if root, name, rng, ok := traversalAt(v.f.body, off); ok {
		t, found := declarations(s.configuration(d), root)[name]
		if !found {
			return nil, nil
		}
		var doc string
		switch root {
		case "var":
			doc = variableDoc(t.view.f.text, name, t.block)
		case "local":
			doc = fmt.Sprintf("**local.%s** = `%s`", name, exprText(t.view.f.text, t.attr.Expr))
		default:
			doc = fmt.Sprintf("**%s.%s**: the %s block %q", root, name, t.block.Type, name)
		}
		r := v.span(rng)
		return &protocol.Hover{Contents: markdown(doc), Range: &r}, nil
	}
	blocks := enclosing(v.f.body, off)
	at := offset(d.text, p.Position)
	// An argument read by an expr program: its declaration.
	if name, rng, ok := argAt(d.text, at); ok && len(blocks) > 0 {
		for _, b := range blocks[0].Body.Blocks {
			if b.Type == "arg" && len(b.Labels) > 0 && b.Labels[0] == name {
				doc := argDoc(v.f.text, b)
				if sch := s.argSchema(d, blockName(blocks[0]), name); sch != "" {
					doc += "\n\nIts JSON Schema:\n```json\n" + sch + "\n```"
				}
				if h, ok := s.programHover(d, at); ok {
					doc += "\n\n" + h.Contents.(protocol.MarkupContent).Value
				}
				return &protocol.Hover{Contents: markdown(doc), Range: &rng}, nil
			}
		}
	}
	// Elsewhere in an expr program: the type of what it reads there, and
	// of its result.
	if programPrefix.MatchString(d.text[strings.LastIndexByte(d.text[:at], '\n')+1 : at]) {
		if h, ok := s.programHover(d, at); ok {
			return h, nil
		}
	}
	// The name of a variable or an argument where it is declared.
	body := v.f.body
	if len(blocks) > 0 {
		body = blocks[len(blocks)-1].Body
	}
	for _, b := range body.Blocks {
		if len(b.Labels) != 1 || !contains(b.LabelRanges[0], off) {
			continue
		}
		var doc string
		switch b.Type {
		case "variable":
			doc = variableDoc(v.f.text, b.Labels[0], b)
		case "arg":
			doc = argDoc(v.f.text, b)
			if len(blocks) > 0 {
				if sch := s.argSchema(d, blockName(blocks[0]), b.Labels[0]); sch != "" {
					doc += "\n\nIts JSON Schema:\n```json\n" + sch + "\n```"
				}
			}
		default:
			continue
		}
		r := v.span(b.LabelRanges[0])
		return &protocol.Hover{Contents: markdown(doc), Range: &r}, nil
	}
	// An attribute's name, or a block's type: its spec.
	for _, a := range body.Attributes {
		if !contains(a.NameRange, off) {
			continue
		}
		b := s.specOf(load.IsTestFile(d.path), blocks)
		if b == nil || b.Attr(a.Name) == nil {
			return nil, nil
		}
		r := v.span(a.NameRange)
		return &protocol.Hover{Contents: markdown(attrDoc(b, b.Attr(a.Name))), Range: &r}, nil
	}
	for _, blk := range body.Blocks {
		if !contains(blk.TypeRange, off) {
			continue
		}
		b := s.specOf(load.IsTestFile(d.path), append(blocks[:len(blocks):len(blocks)], blk))
		if b == nil {
			return nil, nil
		}
		r := v.span(blk.TypeRange)
		return &protocol.Hover{Contents: markdown(blockDoc(b)), Range: &r}, nil
	}
	return nil, nil
}

// argRef matches args.name in an expr program.
var argRef = regexp.MustCompile(`\bargs\.(\w+)`)

// argAt returns the argument that args.name at the byte offset off of
// text names, when off is in an expr("…") program on its line.
func argAt(text string, off int) (string, protocol.Range, bool) {
	start := strings.LastIndexByte(text[:off], '\n') + 1
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	line := text[start:end]
	if !strings.Contains(line, "expr(") {
		return "", protocol.Range{}, false
	}
	for _, m := range argRef.FindAllStringSubmatchIndex(line, -1) {
		if start+m[0] <= off && off <= start+m[1] {
			return line[m[2]:m[3]], protocol.Range{Start: position(text, start+m[0]), End: position(text, start+m[1])}, true
		}
	}
	return "", protocol.Range{}, false
}

// argDoc documents an arg block: its type, its description, and its other
// attributes as written.
func argDoc(text string, b *hclsyntax.Block) string {
	typ := "string"
	if a, ok := b.Body.Attributes["type"]; ok {
		typ = exprText(text, a.Expr)
	}
	doc := fmt.Sprintf("**args.%s** (%s)", b.Labels[0], typ)
	if desc := literal(b.Body, "description"); desc != "" {
		doc += "\n\n" + desc
	}
	// The rest as written: its constraints and its default are in the
	// schema every client sees.
	for _, a := range sortedAttrs(b.Body) {
		if a.Name != "type" && a.Name != "description" {
			doc += fmt.Sprintf("\n\n%s: `%s`", a.Name, exprText(text, a.Expr))
		}
	}
	return doc
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	v := s.syntax(d)
	off := v.toOld(offset(d.text, p.Position))
	if root, name, _, ok := traversalAt(v.f.body, off); ok {
		views := s.configuration(d)
		if load.IsTestFile(d.path) {
			views = s.testedViews(d)
		}
		t, found := declarations(views, root)[name]
		if !found {
			return nil, nil
		}
		return protocol.Location{URI: pathURI(t.view.f.path), Range: t.view.span(t.rng)}, nil
	}
	// A string that names a block: a tool in a toolset or a test, a
	// mock's http_api; a pattern names every tool it matches.
	if r, ok := nameRefAt(v, off); ok {
		locs := nameLocations(s.declaringViews(d), r)
		switch len(locs) {
		case 0:
			return nil, nil
		case 1:
			return locs[0], nil
		}
		return locs, nil
	}
	return nil, nil
}

// namedBlocks are the kinds of blocks whose references are found through
// the files: by name in strings, and as kind.name for some.
var namedBlocks = []string{"tool", "prompt", "http_api", "database"}

// references finds the references to what the position names (var.x,
// local.x, http_api.x, database.x, a tool or a prompt by name, a mock's
// target) or declares (tool "x" and the like) in its configuration and
// the test files beside it, and the declaration when the client asks.
func (s *server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	v := s.syntax(d)
	off := v.toOld(offset(d.text, p.Position))
	locations := []protocol.Location{}
	root, name, _, isTraversal := traversalAt(v.f.body, off)
	kind := root
	if !isTraversal {
		if r, ok := nameRefAt(v, off); ok && !r.pattern {
			kind, name = r.kind, r.name
		} else if k, n, ok := declaredAt(v, off); ok && slices.Contains(namedBlocks, k) {
			kind, name = k, n
		} else {
			return locations, nil
		}
	}
	if slices.Contains(namedBlocks, kind) {
		if p.Context.IncludeDeclaration {
			locations = append(locations, nameLocations(s.declaringViews(d), nameRef{kind: kind, name: name})...)
		}
		return append(locations, blockReferences(s.referringViews(d), kind, name)...), nil
	}
	views := s.configuration(d)
	if t, found := declarations(views, root)[name]; found && p.Context.IncludeDeclaration {
		locations = append(locations, protocol.Location{URI: pathURI(t.view.f.path), Range: t.view.span(t.rng)})
	}
	for _, v := range views {
		locations = append(locations, traversalsTo(v, root, name)...)
	}
	return locations, nil
}

// symbolKinds are how the outline shows the blocks of the language; the
// other labelled blocks are shown as objects.
var symbolKinds = map[string]protocol.SymbolKind{
	"tool":              protocol.SymbolKindFunction,
	"resource":          protocol.SymbolKindFile,
	"resource_template": protocol.SymbolKindFile,
	"prompt":            protocol.SymbolKindString,
	"test":              protocol.SymbolKindEvent,
	"variable":          protocol.SymbolKindVariable,
	"arg":               protocol.SymbolKindField,
	"output":            protocol.SymbolKindProperty,
	"mock":              protocol.SymbolKindInterface,
}

func (s *server) symbols(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	v := s.syntax(d)
	out := blockSymbols(v, v.f.body)
	if out == nil {
		out = []protocol.DocumentSymbol{}
	}
	return out, nil
}

// blockSymbols are the labelled blocks of body, with theirs.
func blockSymbols(v view, body *hclsyntax.Body) []protocol.DocumentSymbol {
	var out []protocol.DocumentSymbol
	for _, b := range body.Blocks {
		if len(b.Labels) == 0 {
			continue
		}
		kind, ok := symbolKinds[b.Type]
		if !ok {
			kind = protocol.SymbolKindObject
		}
		out = append(out, protocol.DocumentSymbol{
			Name:           b.Labels[0],
			Detail:         ptr(b.Type),
			Kind:           kind,
			Range:          v.span(b.Range()),
			SelectionRange: v.span(b.LabelRanges[0]),
			Children:       blockSymbols(v, b.Body),
		})
	}
	return out
}

// blockName is the first label of b, "" when it has none.
func blockName(b *hclsyntax.Block) string {
	if len(b.Labels) == 0 {
		return ""
	}
	return b.Labels[0]
}
