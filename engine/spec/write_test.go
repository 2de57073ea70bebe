package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/mcpdecl/mcpdecl/engine/spec"
)

var (
	named = &spec.Block{Name: "named", Labels: []string{"name"}, Attrs: []*spec.Attr{spec.String("note", "is a note")}}
	open  = &spec.Block{Name: "values", Open: true}
	file  = &spec.Block{Name: "file", Blocks: []spec.Nested{{Block: block}, {Block: named}, {Block: open}}}
)

// TestWriterWritesAsHCLWrite: what a Writer writes is what hclwrite writes
// for the same calls.
func TestWriterWritesAsHCLWrite(t *testing.T) {
	f := hclwrite.NewEmptyFile()
	w := spec.NewWriter(file, f.Body())
	w.AppendComment("A thing.\nSecond\tline\x01.")
	th := w.Block("thing")
	th.Value("count", cty.NumberIntVal(3))
	th.Traversal("store", hcl.Traversal{hcl.TraverseRoot{Name: "var"}, hcl.TraverseAttr{Name: "store"}})
	th.Block("retry").Raw("attempts", hclwrite.TokensForValue(cty.NumberIntVal(2)))
	w.AppendNewline()
	w.Block("named", "x").Value("note", cty.StringVal("hi"))
	w.Block("values").Value("any_name", cty.True)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	want := "# A thing.\n# Second\tline .\nthing {\n  count = 3\n  store = var.store\n  retry {\n    attempts = 2\n  }\n}\n\n" +
		"named \"x\" {\n  note = \"hi\"\n}\nvalues {\n  any_name = true\n}\n"
	if got := string(hclwrite.Format(f.Bytes())); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriterRefusesNamesTheSpecLacks: every name the spec does not
// declare by its current name is reported, in one run, saying where, and
// not written.
func TestWriterRefusesNamesTheSpecLacks(t *testing.T) {
	f := hclwrite.NewEmptyFile()
	w := spec.NewWriter(file, f.Body())
	th := w.Block("thing")
	th.Value("cuont", cty.NumberIntVal(3))
	th.Value("shared", cty.True)
	th.Block("retyr").Value("whatever", cty.True) // nothing more is checked in a block that failed
	w.Block("named").Value("note", cty.StringVal("no label"))
	w.Block("other")
	w.Block("values").Value("not a name", cty.True)
	err := w.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`cannot write the attribute "cuont" in thing: the language has no such attribute there (it declares count, ttl, store, hosts, public)`,
		`cannot write the attribute "shared" in thing: it is a former name of public; write that`,
		`cannot write a retyr block in thing: the language has no such block there (it declares retry)`,
		`cannot write a named block at the top of a file with 0 labels: its spec names 1 (name)`,
		`cannot write a other block at the top of a file`,
		`cannot write the attribute "not a name" in values: it is not a valid name`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 6 {
		t.Errorf("%d errors, want 6:\n%v", n, err)
	}
	// Nothing refused is written.
	if got := string(hclwrite.Format(f.Bytes())); got != "thing {\n}\nvalues {\n}\n" {
		t.Errorf("written:\n%s", got)
	}
}

// TestWriterAdopt: a block written elsewhere moves into a block that
// nests it by the same spec, and not into one that nests another.
func TestWriterAdopt(t *testing.T) {
	other := &spec.Block{Name: "retry", Attrs: []*spec.Attr{spec.Int("tries", "is how many tries")}}
	host := &spec.Block{Name: "host", Blocks: []spec.Nested{{Block: inner}}}
	elsewhere := &spec.Block{Name: "elsewhere", Blocks: []spec.Nested{{Block: other}}}
	root := &spec.Block{Name: "file", Blocks: []spec.Nested{{Block: block}, {Block: host}, {Block: elsewhere}}}

	f := hclwrite.NewEmptyFile()
	w := spec.NewWriter(root, f.Body())
	scratch := w.Detached()
	r := scratch.Block("thing").Block("retry")
	r.Value("attempts", cty.NumberIntVal(4))
	w.Block("host").Adopt(r)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	if got := string(hclwrite.Format(f.Bytes())); got != "host {\n  retry {\n    attempts = 4\n  }\n}\n" {
		t.Errorf("got:\n%s", got)
	}
	w.Block("elsewhere").Adopt(r)
	if err := w.Err(); err == nil || !strings.Contains(err.Error(), "cannot move the retry block in elsewhere: it was written for retry, whose spec differs") {
		t.Errorf("err = %v", err)
	}
}

// TestCheckNames: written HCL is checked against the spec, at any depth,
// each name that is not the current one at its range.
func TestCheckNames(t *testing.T) {
	src := "thing {\n  count = 1\n  shared = true\n  retry {\n    atempts = 2\n  }\n  retyr {}\n}\nvalues {\n  x = 1\n}\nnamed \"a\" {\n  note = \"n\"\n}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, d := range file.CheckNames(f.Body.(*hclsyntax.Body)) {
		got = append(got, fmt.Sprintf("%d:%d %s: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
	}
	want := []string{
		`3:3 Former attribute name: "shared" is a former name of public in thing.`,
		`5:5 Unknown attribute: retry declares no attribute "atempts": it declares attempts.`,
		`7:3 Unknown block: thing nests no retyr block: it declares retry.`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
