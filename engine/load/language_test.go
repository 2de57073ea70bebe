package load_test

import (
	"os"
	"strings"
	"testing"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	sampleaction "github.com/mcpdecl/mcpdecl/adapters/sample"
	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/enginetest"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

// adapters are the adapters mcpdecl is built with, whose specs the
// reference lists.
func adapters() *engine.Registry {
	return engine.NewRegistry(httpaction.New(), execaction.New(), sqlaction.New(), sampleaction.New())
}

// TestSpecExamplesLoad: the example of every spec'd block loads, as the
// only block of a configuration (a nested one inside a read-only tool), with
// its cross-field rules.
func TestSpecExamplesLoad(t *testing.T) {
	for _, b := range load.Language(adapters()) {
		if b.Example == "" {
			t.Errorf("%s: no example", b.Path())
			continue
		}
		src := b.Example
		if b.In == "tool" {
			src = "tool \"t\" {\n  description = \"A tool.\"\n  annotations {\n    read_only_hint = true\n  }\n  arg \"id\" {\n    type = string\n  }\n" + b.Example + "\n}\n"
		}
		if b.In == "confirm" {
			src = "tool \"t\" {\n  description = \"A tool.\"\n  confirm {\n    message = \"Sure?\"\n" + b.Example + "\n  }\n}\n"
		}
		if _, _, diags := enginetest.Load(t, adapters(), src, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)}); diags.HasErrors() {
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
	want := spec.Markdown(load.Language(adapters()), load.NotYetSpecified)
	if string(got) != string(want) {
		t.Error("docs/language.md is stale: run go generate ./cmd/mcpdecl/ and commit the result")
	}
	doc := string(got)
	for _, b := range load.Language(adapters()) {
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
