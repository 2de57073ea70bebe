package lsp

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// Completion, hover and definitions read the files' syntax alone: nothing
// is evaluated, no variable is read, nothing is opened.

// parsedFile is one file's text and its syntax, as far as HCL could
// recover it.
type parsedFile struct {
	path string
	text string
	body *hclsyntax.Body // never nil
}

func parse(path, text string) *parsedFile {
	f, _ := hclsyntax.ParseConfig([]byte(text), path, hcl.InitialPos)
	p := &parsedFile{path: path, text: text, body: &hclsyntax.Body{}}
	if f != nil {
		if b, ok := f.Body.(*hclsyntax.Body); ok {
			p.body = b
		}
	}
	return p
}

// parsed returns the syntax of the open document d, parsing it once per
// version.
func (s *server) parsed(d *document) *parsedFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.parsed == nil {
		d.parsed = parse(d.path, d.text)
	}
	return d.parsed
}

// configuration returns the syntax of every file of the configuration d
// is part of: the open buffers, and the files on disk in their directory.
func (s *server) configuration(d *document) []*parsedFile {
	dir := filepath.Dir(d.path)
	names, _ := load.ConfigFiles([]string{dir})
	if !slices.Contains(names, d.path) {
		names = append(names, d.path)
	}
	var files []*parsedFile
	for _, name := range names {
		s.mu.Lock()
		open, ok := s.docs[name]
		s.mu.Unlock()
		if ok {
			files = append(files, s.parsed(open))
			continue
		}
		if f := s.diskFile(name); f != nil {
			files = append(files, f)
		}
	}
	return files
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
	f = &diskFile{mod: info.ModTime(), size: info.Size(), parsed: parse(name, string(b))}
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
	file  *parsedFile
	rng   hcl.Range // the name, where it is declared
	block *hclsyntax.Block
	attr  *hclsyntax.Attribute // for a local
}

// declarations returns what the references of root (var, local, http_api,
// database) may name in files, by name, the first declaration of each.
func declarations(files []*parsedFile, root string) map[string]target {
	out := map[string]target{}
	blockType := map[string]string{"var": "variable", "local": "locals"}[root]
	if blockType == "" {
		blockType = root
	}
	for _, f := range files {
		for _, b := range f.body.Blocks {
			if b.Type != blockType {
				continue
			}
			if blockType == "locals" {
				for _, a := range sortedAttrs(b.Body) {
					if _, dup := out[a.Name]; !dup {
						out[a.Name] = target{file: f, rng: a.NameRange, block: b, attr: a}
					}
				}
				continue
			}
			if len(b.Labels) == 0 {
				continue
			}
			if _, dup := out[b.Labels[0]]; !dup {
				out[b.Labels[0]] = target{file: f, rng: b.LabelRanges[0], block: b}
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

// references are the roots whose names the server completes and finds.
var references = []string{"var", "local", "http_api", "database"}

// traversalAt returns the reference such as var.api_key that the byte
// offset off is on: its root and its first name.
func traversalAt(body *hclsyntax.Body, off int) (root, name string, rng hcl.Range, ok bool) {
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		t, is := n.(*hclsyntax.ScopeTraversalExpr)
		if !is || ok || !contains(t.SrcRange, off) || len(t.Traversal) < 2 {
			return nil
		}
		attr, is := t.Traversal[1].(hcl.TraverseAttr)
		if !is || !slices.Contains(references, t.Traversal.RootName()) {
			return nil
		}
		root, name, rng, ok = t.Traversal.RootName(), attr.Name, t.SrcRange, true
		return nil
	})
	return root, name, rng, ok
}

func contains(r hcl.Range, off int) bool { return r.Start.Byte <= off && off <= r.End.Byte }
