package load_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// TestSpecExamplesLoad: the example of every spec'd block loads, as the
// only block of a configuration (a nested one inside a read-only tool, a
// prompt's argument or a content block), with its cross-field rules.
func TestSpecExamplesLoad(t *testing.T) {
	for _, b := range load.Language() {
		if b.Example == "" {
			t.Errorf("%s: no example", b.Path())
			continue
		}
		src := b.Example
		switch {
		case b.In == "tool" && b.Name == "annotations":
			src = "tool \"t\" {\n  description = \"A tool.\"\n" + b.Example + "\n}\n"
		case b.In == "tool":
			src = "tool \"t\" {\n  description = \"A tool.\"\n  annotations {\n    read_only_hint = true\n  }\n" + b.Example + "\n}\n"
		case b.In == "prompt":
			src = "prompt \"p\" {\n" + b.Example + "\n  message \"user\" {\n    text = \"Hello.\"\n  }\n}\n"
		case b.In == "arg":
			src = "prompt \"p\" {\n  arg \"units\" {\n" + b.Example + "\n  }\n  message \"user\" {\n    text = \"Hello.\"\n  }\n}\n"
		case b.In == "auth":
			src = "auth {\n" + b.Example + "\n}\n"
		case b.In == "content":
			src = "tool \"t\" {\n  description = \"A tool.\"\n  content \"text\" {\n    text = \"Hello.\"\n" + b.Example + "\n  }\n}\n"
		}
		if _, diags := loadString(t, src, nil, nil); diags.HasErrors() {
			t.Errorf("the example of %s does not load:\n%s\n%s", b.Path(), src, describe(diags))
		}
	}
}

// TestReferenceIsCurrent: docs/language.md is what the specs generate, and
// names every attribute of every spec'd block. Run go generate
// ./cmd/mcpdecl/ when it fails.
func TestReferenceIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Markdown(load.Language(), load.NotYetSpecified)
	if string(got) != string(want) {
		t.Error("docs/language.md is stale: run go generate ./cmd/mcpdecl/ and commit the result")
	}
	doc := string(got)
	for _, b := range load.Language() {
		section := doc[strings.Index(doc, `<a id="`+b.ID()+`"></a>`):]
		if i := strings.Index(section[1:], "<a id="); i >= 0 {
			section = section[:i+1]
		}
		for _, a := range b.Attrs {
			if !strings.Contains(section, "| `"+a.Name+"` |") {
				t.Errorf("the reference of %s does not list %s", b.Path(), a.Name)
			}
		}
	}
}
