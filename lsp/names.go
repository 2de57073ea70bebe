package lsp

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/mcpdecl/mcpdecl/engine/load"
)

// Blocks are also named by strings: a toolset's tools (names or
// patterns), a test's tool and prompt, a mock's http_api or database.
// Completion offers the names declared; definition and references follow
// them, as for var.x.

// nameRef is a string that names a block.
type nameRef struct {
	kind    string    // the type of the block named: tool, prompt, http_api, database
	name    string    // as written; a pattern in a toolset's tools
	rng     hcl.Range // the string's text, without its quotes, in the parse
	pattern bool
}

// matches reports whether r names the block name.
func (r nameRef) matches(name string) bool {
	if !r.pattern {
		return r.name == name
	}
	ok, _ := path.Match(r.name, name)
	return ok
}

// nameRefs are the strings of body (a file's) that name blocks.
func nameRefs(v view) []nameRef {
	var out []nameRef
	var mock func(b *hclsyntax.Block)
	mock = func(b *hclsyntax.Block) {
		if b.Type != "mock" || len(b.Labels) != 2 {
			return
		}
		r := b.LabelRanges[1]
		if r.End.Byte-r.Start.Byte >= 2 && r.Start.Byte < len(v.f.text) && v.f.text[r.Start.Byte] == '"' {
			r.Start.Byte++
			r.End.Byte--
		}
		out = append(out, nameRef{kind: b.Labels[0], name: b.Labels[1], rng: r})
	}
	for _, b := range v.f.body.Blocks {
		switch b.Type {
		case "toolset":
			a, ok := b.Body.Attributes["tools"]
			if !ok {
				continue
			}
			tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr)
			if !ok {
				continue
			}
			for _, e := range tuple.Exprs {
				if name, rng, ok := stringLiteral(e); ok {
					out = append(out, nameRef{kind: "tool", name: name, rng: rng, pattern: strings.ContainsAny(name, "*?[")})
				}
			}
		case "test":
			for _, kind := range []string{"tool", "prompt"} {
				if a, ok := b.Body.Attributes[kind]; ok {
					if name, rng, ok := stringLiteral(a.Expr); ok {
						out = append(out, nameRef{kind: kind, name: name, rng: rng})
					}
				}
			}
			for _, m := range b.Body.Blocks {
				mock(m)
			}
		case "mock":
			mock(b)
		}
	}
	return out
}

// stringLiteral is the value of e when it is a string written as a
// literal, and the range of its text.
func stringLiteral(e hclsyntax.Expression) (string, hcl.Range, bool) {
	t, ok := e.(*hclsyntax.TemplateExpr)
	if !ok || len(t.Parts) != 1 {
		return "", hcl.Range{}, false
	}
	lit, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr)
	if !ok || lit.Val.Type() != cty.String || lit.Val.IsNull() {
		return "", hcl.Range{}, false
	}
	return lit.Val.AsString(), lit.SrcRange, true
}

// nameRefAt is the name reference of v at the byte offset off (of its
// parse).
func nameRefAt(v view, off int) (nameRef, bool) {
	for _, r := range nameRefs(v) {
		if contains(r.rng, off) {
			return r, true
		}
	}
	return nameRef{}, false
}

// declaredAt is the block declared at the byte offset off of v's parse,
// when off is on the name of a top-level block: tool "x", http_api "x".
func declaredAt(v view, off int) (kind, name string, ok bool) {
	for _, b := range v.f.body.Blocks {
		if len(b.Labels) == 1 && contains(b.LabelRanges[0], off) {
			return b.Type, b.Labels[0], true
		}
	}
	return "", "", false
}

// testedViews are the syntax of the configuration that the test file d
// tests: its config attribute's files, or its directory's.
func (s *server) testedViews(d *document) []view {
	dir := filepath.Dir(d.path)
	paths := []string{dir}
	if a, ok := s.syntax(d).f.body.Attributes["config"]; ok {
		if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.IsWhollyKnown() && !v.IsNull() {
			if v.Type() == cty.String {
				v = cty.TupleVal([]cty.Value{v})
			}
			if lv, err := convert.Convert(v, cty.List(cty.String)); err == nil && !lv.IsNull() {
				paths = nil
				for _, p := range lv.AsValueSlice() {
					p := p.AsString()
					if !filepath.IsAbs(p) {
						p = filepath.Join(dir, p)
					}
					paths = append(paths, filepath.Clean(p))
				}
			}
		}
	}
	names, _ := load.ConfigFiles(paths)
	return s.views(names)
}

// views are the syntax of the files names: the open buffers', else the
// files'.
func (s *server) views(names []string) []view {
	var out []view
	for _, name := range names {
		s.mu.Lock()
		open, ok := s.docs[name]
		s.mu.Unlock()
		if ok {
			out = append(out, s.syntax(open))
		} else if f := s.diskFile(name); f != nil {
			out = append(out, newView(f, f.text))
		}
	}
	return out
}

// declaringViews are the files whose blocks d's names may name: the
// configuration d tests, for a test file; else d's configuration.
func (s *server) declaringViews(d *document) []view {
	if load.IsTestFile(d.path) {
		return s.testedViews(d)
	}
	return s.configuration(d)
}

// referringViews are the files that may name the blocks of d's
// configuration: the configuration, and the test files of its
// directories.
func (s *server) referringViews(d *document) []view {
	decl := s.declaringViews(d)
	out := slices.Clone(decl)
	dirs := map[string]bool{filepath.Dir(d.path): true}
	for _, v := range decl {
		dirs[filepath.Dir(v.f.path)] = true
	}
	seen := map[string]bool{}
	for _, v := range out {
		seen[v.f.path] = true
	}
	for dir := range dirs {
		tests, _ := filepath.Glob(filepath.Join(dir, "*.test.hcl"))
		s.mu.Lock()
		for p := range s.docs {
			if filepath.Dir(p) == dir && load.IsTestFile(p) {
				tests = append(tests, p)
			}
		}
		s.mu.Unlock()
		slices.Sort(tests)
		for _, p := range slices.Compact(tests) {
			if !seen[p] {
				seen[p] = true
				out = append(out, s.views([]string{p})...)
			}
		}
	}
	return out
}

// nameLocations are where the blocks a name reference names are declared.
func nameLocations(views []view, r nameRef) []protocol.Location {
	var out []protocol.Location
	for _, v := range views {
		for _, b := range v.f.body.Blocks {
			if b.Type == r.kind && len(b.Labels) > 0 && r.matches(b.Labels[0]) {
				out = append(out, protocol.Location{URI: pathURI(v.f.path), Range: v.span(b.LabelRanges[0])})
			}
		}
	}
	return out
}

// blockReferences are the places of views that name the block kind name:
// name references, and kind.name traversals (http_api.x, database.x).
func blockReferences(views []view, kind, name string) []protocol.Location {
	var out []protocol.Location
	for _, v := range views {
		for _, r := range nameRefs(v) {
			if r.kind == kind && r.matches(name) {
				out = append(out, protocol.Location{URI: pathURI(v.f.path), Range: v.span(r.rng)})
			}
		}
		if !slices.Contains(referenceRoots, kind) {
			continue
		}
		out = append(out, traversalsTo(v, kind, name)...)
	}
	return out
}

// traversalsTo are the places of v that refer to root.name, such as
// http_api.up or local.defs.
func traversalsTo(v view, root, name string) []protocol.Location {
	var out []protocol.Location
	_ = hclsyntax.VisitAll(v.f.body, func(n hclsyntax.Node) hcl.Diagnostics {
		t, is := n.(*hclsyntax.ScopeTraversalExpr)
		if !is || len(t.Traversal) < 2 || t.Traversal.RootName() != root {
			return nil
		}
		if attr, is := t.Traversal[1].(hcl.TraverseAttr); is && attr.Name == name {
			out = append(out, protocol.Location{URI: pathURI(v.f.path), Range: v.span(t.SrcRange)})
		}
		return nil
	})
	return out
}

// What the text before the cursor, on its line, says is being named.
var (
	// tool = "get_w, prompt = "sum
	subjectPrefix = regexp.MustCompile(`^\s*(tool|prompt)\s*=\s*"([\w.-]*)$`)
	// mock "http_api" "wea
	mockPrefix = regexp.MustCompile(`^\s*mock\s+"(http_api|database)"\s+"([\w.-]*)$`)
	// an open string in a list: tools = ["get_*", "lo
	listStringPrefix = regexp.MustCompile(`(?:\[|,)\s*"([\w.*?\[\]-]*)$`)
)

// blockNameItems completes a string that names a block, when the line
// says one is being written: it returns false when not.
func (s *server) blockNameItems(d *document, line string, blocks []*hclsyntax.Block) ([]protocol.CompletionItem, bool) {
	var kind string
	switch {
	case load.IsTestFile(d.path) && subjectPrefix.MatchString(line):
		kind = subjectPrefix.FindStringSubmatch(line)[1]
	case load.IsTestFile(d.path) && mockPrefix.MatchString(line):
		kind = mockPrefix.FindStringSubmatch(line)[1]
	case len(blocks) == 1 && blocks[0].Type == "toolset" && listStringPrefix.MatchString(line) &&
		(strings.Contains(line, "tools") || !strings.Contains(line, "=")):
		kind = "tool"
	default:
		return nil, false
	}
	var items []protocol.CompletionItem
	seen := map[string]bool{}
	for _, v := range s.declaringViews(d) {
		for _, b := range v.f.body.Blocks {
			if b.Type != kind || len(b.Labels) == 0 || seen[b.Labels[0]] {
				continue
			}
			seen[b.Labels[0]] = true
			item := protocol.CompletionItem{Label: b.Labels[0], Kind: ptr(protocol.CompletionItemKindReference), Detail: ptr(kind)}
			if desc := literal(b.Body, "description"); desc != "" {
				item.Documentation = markdown(desc)
			}
			items = append(items, item)
		}
	}
	slices.SortFunc(items, func(a, b protocol.CompletionItem) int { return strings.Compare(a.Label, b.Label) })
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return items, true
}
