package lsp

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// Completion, hover and definitions read the files' syntax alone: nothing
// is evaluated, no variable is read, nothing is opened.

// parsedFile is one file's text and its syntax, as far as HCL could
// recover it.
type parsedFile struct {
	path    string
	text    string
	version int32           // of the document parsed; -1 for a file on disk
	body    *hclsyntax.Body // never nil
}

func parse(path, text string, version int32) *parsedFile {
	p := &parsedFile{path: path, text: text, version: version, body: &hclsyntax.Body{}}
	if len(text) > engine.MaxConfigFileBytes {
		// Larger than a configuration may be: the diagnostics say so, and
		// nothing is completed in it.
		return p
	}
	f, _ := load.ParseConfig([]byte(text), path)
	if f != nil {
		if b, ok := f.Body.(*hclsyntax.Body); ok {
			p.body = b
		}
	}
	return p
}

// view is a parse of a document's text, perhaps of an earlier version,
// and how to map the offsets of that text to those of the document's
// text: everything before the first byte that differs, and after the last,
// is where it was.
type view struct {
	f    *parsedFile
	text string // the document's text
	// prefix and suffix are the lengths of the text that f.text and text
	// have in common at their start and at their end.
	prefix, suffix int
}

func newView(f *parsedFile, text string) view {
	v := view{f: f, text: text}
	old := f.text
	n := min(len(old), len(text))
	for v.prefix < n && old[v.prefix] == text[v.prefix] {
		v.prefix++
	}
	for v.suffix < n-v.prefix && old[len(old)-1-v.suffix] == text[len(text)-1-v.suffix] {
		v.suffix++
	}
	return v
}

// toOld maps an offset of the text to one of the parsed text; an offset in
// what changed maps to where the change starts.
func (v view) toOld(off int) int {
	switch {
	case off <= v.prefix:
		return off
	case off >= len(v.text)-v.suffix:
		return off - len(v.text) + len(v.f.text)
	}
	return v.prefix
}

// toNew maps an offset of the parsed text to one of the text.
func (v view) toNew(off int) int {
	switch {
	case off <= v.prefix:
		return off
	case off >= len(v.f.text)-v.suffix:
		return off + len(v.text) - len(v.f.text)
	}
	return v.prefix
}

// span is the protocol range, in the text, of a range of the parsed text.
func (v view) span(r hcl.Range) protocol.Range {
	return protocol.Range{Start: position(v.text, v.toNew(r.Start.Byte)), End: position(v.text, v.toNew(r.End.Byte))}
}

// syntax returns the syntax of the open document d at once: its parse
// when it has one, else the last parse of the same file (the diagnostics,
// debounced, parse each version the typing pauses on) mapped through the
// edits since, else a new parse. Completion after a keystroke thus costs
// no parse of a large file.
func (s *server) syntax(d *document) view {
	s.mu.Lock()
	f := d.parsed
	if f == nil {
		f = s.latest[d.path]
	}
	s.mu.Unlock()
	if f == nil {
		f = parse(d.path, d.text, d.version)
		s.parsedDoc(d, f)
	}
	return newView(f, d.text)
}

// parsedDoc records f, the parse of d's text, as d's and as the file's
// latest.
func (s *server) parsedDoc(d *document, f *parsedFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.parsed == nil {
		d.parsed = f
	}
	if l := s.latest[d.path]; l == nil || l.version <= f.version {
		s.latest[d.path] = f
	}
}

// configuration returns the syntax of every file of the configuration d
// is part of: the open buffers, and the files on disk in their directory;
// d alone in a directory of configurations.
func (s *server) configuration(d *document) []view {
	dir := filepath.Dir(d.path)
	names, _ := load.ConfigFiles([]string{dir})
	if !slices.Contains(names, d.path) {
		names = append(names, d.path)
	}
	var views []view
	servers := 0
	for _, name := range names {
		s.mu.Lock()
		open, ok := s.docs[name]
		s.mu.Unlock()
		var v view
		if ok {
			v = s.syntax(open)
		} else if f := s.diskFile(name); f != nil {
			v = newView(f, f.text)
		} else {
			continue
		}
		if slices.ContainsFunc(v.f.body.Blocks, func(b *hclsyntax.Block) bool { return b.Type == "server" }) {
			servers++
		}
		views = append(views, v)
	}
	if servers > 1 {
		// A directory of configurations, one a file (see configurations).
		return []view{s.syntax(d)}
	}
	return views
}

// diskFile parses the file name, once per change of its size or time.
func (s *server) diskFile(name string) *parsedFile {
	info, err := os.Stat(name)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	s.mu.Lock()
	f, ok := s.disk[name]
	s.mu.Unlock()
	if ok && f.mod.Equal(info.ModTime()) && f.size == info.Size() {
		return f.parsed
	}
	b, err := engine.ReadConfigFile(name)
	if err != nil {
		return nil
	}
	f = &diskFile{mod: info.ModTime(), size: info.Size(), parsed: parse(name, string(b), -1)}
	s.mu.Lock()
	s.disk[name] = f
	s.mu.Unlock()
	return f.parsed
}

// enclosing returns the blocks whose bodies hold the byte offset off, the
// outermost first.
func enclosing(body *hclsyntax.Body, off int) []*hclsyntax.Block {
	var path []*hclsyntax.Block
	for {
		var next *hclsyntax.Block
		for _, b := range body.Blocks {
			if b.OpenBraceRange.End.Byte <= off && off <= b.CloseBraceRange.Start.Byte {
				next = b
				break
			}
		}
		if next == nil {
			return path
		}
		path = append(path, next)
		body = next.Body
	}
}

// target is a declaration that references name: a variable, a local, an
// http_api or a database.
type target struct {
	view  view
	rng   hcl.Range // the name, where it is declared (in the view's parse)
	block *hclsyntax.Block
	attr  *hclsyntax.Attribute // for a local
}

// declarations returns what the references of root (var, local, http_api,
// database) may name in files, by name, the first declaration of each.
func declarations(views []view, root string) map[string]target {
	out := map[string]target{}
	blockType := map[string]string{"var": "variable", "local": "locals"}[root]
	if blockType == "" {
		blockType = root
	}
	for _, v := range views {
		for _, b := range v.f.body.Blocks {
			if b.Type != blockType {
				continue
			}
			if blockType == "locals" {
				for _, a := range sortedAttrs(b.Body) {
					if _, dup := out[a.Name]; !dup {
						out[a.Name] = target{view: v, rng: a.NameRange, block: b, attr: a}
					}
				}
				continue
			}
			if len(b.Labels) == 0 {
				continue
			}
			if _, dup := out[b.Labels[0]]; !dup {
				out[b.Labels[0]] = target{view: v, rng: b.LabelRanges[0], block: b}
			}
		}
	}
	return out
}

// sortedAttrs are the attributes of body in the order written.
func sortedAttrs(body *hclsyntax.Body) []*hclsyntax.Attribute {
	attrs := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		attrs = append(attrs, a)
	}
	slices.SortFunc(attrs, func(a, b *hclsyntax.Attribute) int { return a.SrcRange.Start.Byte - b.SrcRange.Start.Byte })
	return attrs
}

// referenceRoots are the roots whose names the server completes and finds.
var referenceRoots = []string{"var", "local", "http_api", "database"}

// traversalAt returns the reference such as var.api_key that the byte
// offset off is on: its root and its first name.
func traversalAt(body *hclsyntax.Body, off int) (root, name string, rng hcl.Range, ok bool) {
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		t, is := n.(*hclsyntax.ScopeTraversalExpr)
		if !is || ok || !contains(t.SrcRange, off) || len(t.Traversal) < 2 {
			return nil
		}
		attr, is := t.Traversal[1].(hcl.TraverseAttr)
		if !is || !slices.Contains(referenceRoots, t.Traversal.RootName()) {
			return nil
		}
		root, name, rng, ok = t.Traversal.RootName(), attr.Name, t.SrcRange, true
		return nil
	})
	return root, name, rng, ok
}

func contains(r hcl.Range, off int) bool { return r.Start.Byte <= off && off <= r.End.Byte }
