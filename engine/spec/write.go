package spec

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Writer writes HCL through the specs: each block and attribute is named
// as its spec declares it, so that a writer (the importers) cannot leave
// behind a name the language renamed or dropped. A name the spec does not
// declare — or declares only as a former name — is not written: the
// Writer records an error, which [Writer.Err] returns, and goes on, so
// that one run reports every such name. A Writer made by NewWriter with a
// nil spec checks nothing.
//
// A Writer and the Writers of the blocks written in it share their errors;
// Writers made by separate [NewWriter] calls may be used on separate
// goroutines.
type Writer struct {
	spec  *Block // nil past an error: nothing more is checked
	body  *hclwrite.Body
	block *hclwrite.Block // nil at the top
	kids  []*Writer
	errs  *writeErrs
}

// writeErrs are the errors of a tree of Writers.
type writeErrs struct {
	mu   sync.Mutex
	list []error
}

// NewWriter returns a Writer of body, whose blocks and attributes are those
// spec declares. For a file, spec is the language's file block, whose
// nested blocks are the top-level blocks.
func NewWriter(spec *Block, body *hclwrite.Body) *Writer {
	return &Writer{spec: spec, body: body, errs: &writeErrs{}}
}

// Err is every name written that the specs do not declare, or nil.
func (w *Writer) Err() error {
	w.errs.mu.Lock()
	defer w.errs.mu.Unlock()
	return errors.Join(w.errs.list...)
}

func (w *Writer) fail(format string, args ...any) {
	w.errs.mu.Lock()
	w.errs.list = append(w.errs.list, fmt.Errorf(format, args...))
	w.errs.mu.Unlock()
}

// Name is the type of the block written, "" at the top.
func (w *Writer) Name() string {
	if w.block == nil {
		return ""
	}
	return w.block.Type()
}

// Block appends a block of type name, with those labels, and returns its
// Writer. The block must be one the spec nests, with as many labels as
// its spec names; else it goes to a body of its own, never written, and
// nothing in it is checked.
func (w *Writer) Block(name string, labels ...string) *Writer {
	var n *Block
	if w.spec != nil {
		n = w.spec.nested(name)
		switch {
		case n == nil:
			w.fail("cannot write a %s block %s: the language has no such block there (%s); the writer is behind the spec", name, w.where(), names(w.spec.Blocks, func(n Nested) string { return n.Block.Name }))
		case len(labels) != len(n.Labels):
			w.fail("cannot write a %s block %s with %d labels: its spec names %d (%s)", name, w.where(), len(labels), len(n.Labels), strings.Join(n.Labels, ", "))
			n = nil
		}
	}
	body := w.body
	if w.spec != nil && n == nil {
		body = hclwrite.NewEmptyFile().Body()
	}
	blk := body.AppendNewBlock(name, labels)
	child := &Writer{spec: n, body: blk.Body(), block: blk, errs: w.errs}
	w.kids = append(w.kids, child)
	return child
}

// Detached returns a Writer of a new, empty body of the same spec, which
// shares this one's errors: for blocks written to be adopted elsewhere
// ([Writer.Adopt]).
func (w *Writer) Detached() *Writer {
	return &Writer{spec: w.spec, body: hclwrite.NewEmptyFile().Body(), errs: w.errs}
}

// Blocks are the Writers of the blocks written in this one, in order.
func (w *Writer) Blocks() []*Writer { return w.kids }

// Adopt appends a block written by another Writer, such as a block of a
// tool that a resource takes as it is. The block must be one this block
// nests by the same spec.
func (w *Writer) Adopt(child *Writer) {
	if w.spec != nil && child.spec != nil {
		if n := w.spec.nested(child.Name()); n != child.spec {
			w.fail("cannot move the %s block %s: it was written for %s, whose spec differs from this block's", child.Name(), w.where(), child.spec.Path())
			return
		}
	}
	w.body.AppendBlock(child.block)
	w.kids = append(w.kids, child)
}

// Value sets the attribute name to a value.
func (w *Writer) Value(name string, v cty.Value) {
	if w.check(name) {
		w.body.SetAttributeValue(name, v)
	}
}

// Raw sets the attribute name to an expression, given as tokens.
func (w *Writer) Raw(name string, tokens hclwrite.Tokens) {
	if w.check(name) {
		w.body.SetAttributeRaw(name, tokens)
	}
}

// Traversal sets the attribute name to a reference, such as var.base_url.
func (w *Writer) Traversal(name string, t hcl.Traversal) {
	if w.check(name) {
		w.body.SetAttributeTraversal(name, t)
	}
}

// Attribute returns the attribute name as written, or nil.
func (w *Writer) Attribute(name string) *hclwrite.Attribute { return w.body.GetAttribute(name) }

// AppendNewline appends a blank line.
func (w *Writer) AppendNewline() { w.body.AppendNewline() }

// AppendComment appends text as # lines; control characters other than
// tabs become spaces.
func (w *Writer) AppendComment(text string) {
	var toks hclwrite.Tokens
	for _, l := range strings.Split(text, "\n") {
		l = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' {
				return ' '
			}
			return r
		}, l)
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenComment, Bytes: []byte(strings.TrimRight("# "+l, " ") + "\n")})
	}
	w.body.AppendUnstructuredTokens(toks)
}

// check says whether the spec declares the attribute name by its current
// name, and records an error when it does not. In a block that failed,
// nothing is checked: the block is not written.
func (w *Writer) check(name string) bool {
	if w.spec == nil {
		return true
	}
	if w.spec.Open {
		if !hclsyntax.ValidIdentifier(name) {
			w.fail("cannot write the attribute %q %s: it is not a valid name", name, w.where())
			return false
		}
		return true
	}
	switch a := w.spec.Attr(name); {
	case a == nil:
		w.fail("cannot write the attribute %q %s: the language has no such attribute there (%s); the writer is behind the spec", name, w.where(), names(w.spec.Attrs, func(a *Attr) string { return a.Name }))
	case a.Name != name:
		w.fail("cannot write the attribute %q %s: it is a former name of %s; write that", name, w.where(), a.Name)
	default:
		return true
	}
	return false
}

// where names the block written, for errors: "in tool › http".
func (w *Writer) where() string {
	if w.block == nil && w.spec.Name == "file" {
		return "at the top of a file"
	}
	return "in " + w.spec.Path()
}

// nested returns the spec of the block name nests, or nil.
func (b *Block) nested(name string) *Block {
	for _, n := range b.Blocks {
		if n.Block.Name == name {
			return n.Block
		}
	}
	return nil
}

// names lists the names of xs, for an error.
func names[T any](xs []T, name func(T) string) string {
	if len(xs) == 0 {
		return "it declares none"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return "it declares " + strings.Join(out, ", ")
}

// CheckNames reports each block and attribute of body, at any depth, that
// b does not declare by its current name: written HCL checked against the
// language, such as an importer's output or a scaffold. Values are not
// looked at.
func (b *Block) CheckNames(body *hclsyntax.Body) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if !b.Open {
		attrs := slices.SortedFunc(maps.Values(body.Attributes), func(x, y *hclsyntax.Attribute) int {
			return x.NameRange.Start.Byte - y.NameRange.Start.Byte
		})
		for _, attr := range attrs {
			name := attr.Name
			switch a := b.Attr(name); {
			case a == nil:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown attribute",
					Detail: fmt.Sprintf("%s declares no attribute %q: %s.", b.Path(), name, names(b.Attrs, func(a *Attr) string { return a.Name })), Subject: attr.NameRange.Ptr()})
			case a.Name != name:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Former attribute name",
					Detail: fmt.Sprintf("%q is a former name of %s in %s.", name, a.Name, b.Path()), Subject: attr.NameRange.Ptr()})
			}
		}
	}
	for _, blk := range body.Blocks {
		n := b.nested(blk.Type)
		if n == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown block",
				Detail: fmt.Sprintf("%s nests no %s block: %s.", b.Path(), blk.Type, names(b.Blocks, func(n Nested) string { return n.Block.Name })), Subject: blk.TypeRange.Ptr()})
			continue
		}
		diags = append(diags, n.CheckNames(blk.Body)...)
	}
	return diags
}
