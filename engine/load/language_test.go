package load_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/adapters"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
	"github.com/mcpdecl/mcpdecl/testrun"
)

// TestSpecExamplesLoad: the example of every spec'd block loads, as the
// only block of a configuration, or nested where it belongs: in a
// read-only tool with an argument id, next to the examples of the
// adapters' top-level blocks that it may refer to; in a prompt, a prompt's
// argument, auth or a content block; in a block nested deeper, inside that
// block's example or an empty one. Its cross-field rules are checked too.
func TestSpecExamplesLoad(t *testing.T) {
	reg := adapters.Registry()
	lang := load.Language(reg)
	var upstreams string
	for _, b := range lang {
		if _, ok := reg.Upstream(b.Name); ok && b.In == "" {
			upstreams += b.Example + "\n"
		}
	}
	for _, b := range lang {
		if b.Example == "" {
			t.Errorf("%s: no example", b.Path())
			continue
		}
		var errs []string
		for _, src := range placed(lang, b, upstreams) {
			_, _, diags := enginetest.Load(t, reg, src, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)})
			if !diags.HasErrors() {
				errs = nil
				break
			}
			errs = append(errs, src+"\n"+describe(diags))
		}
		if errs != nil {
			t.Errorf("the example of %s does not load:\n%s", b.Path(), strings.Join(errs, "\n"))
		}
	}
}

// placed returns configurations that hold the example of b where b.In
// says it goes.
func placed(lang []*spec.Block, b *spec.Block, upstreams string) []string {
	const message = "\n  message \"user\" {\n    text = \"Hello.\"\n  }\n}\n"
	switch {
	case b.In == "tool" && b.Name == "annotations":
		return []string{"tool \"t\" {\n  description = \"A tool.\"\n" + b.Example + "\n}\n"}
	case b.In == "prompt":
		return []string{"prompt \"p\" {\n" + b.Example + message}
	case b.In == "arg":
		return []string{"prompt \"p\" {\n  arg \"units\" {\n" + b.Example + "\n  }" + message}
	case b.In == "confirm":
		return []string{"tool \"t\" {\n  description = \"A tool.\"\n  confirm {\n    message = \"Sure?\"\n" + b.Example + "\n  }\n}\n"}
	case b.In == "auth":
		return []string{"auth {\n" + b.Example + "\n}\n"}
	case b.In == "content":
		return []string{"tool \"t\" {\n  description = \"A tool.\"\n  content \"text\" {\n    text = \"Hello.\"\n" + b.Example + "\n  }\n}\n"}
	}
	return placedIn(lang, b.In, b.Example, upstreams)
}

// placedIn returns configurations that hold example where in (a path such
// as "tool › http") says it goes.
func placedIn(lang []*spec.Block, in, example, upstreams string) []string {
	if in == "" {
		return []string{example}
	}
	if in == "tool" {
		return []string{upstreams + "tool \"t\" {\n  description = \"A tool.\"\n  arg \"id\" {}\n  annotations {\n    read_only_hint = true\n  }\n" + example + "\n}\n"}
	}
	outer, name := "", in
	if i := strings.LastIndex(in, " › "); i >= 0 {
		outer, name = in[:i], in[i+len(" › "):]
	}
	wraps := []string{name + " {\n" + example + "\n}"}
	for _, p := range lang {
		if p.Name == name && p.In == outer {
			i := strings.LastIndex(p.Example, "}")
			wraps = append([]string{p.Example[:i] + example + "\n}"}, wraps...)
		}
	}
	var out []string
	for _, w := range wraps {
		out = append(out, placedIn(lang, outer, w, upstreams)...)
	}
	return out
}

// TestReferenceIsCurrent: docs/language.md is what the specs generate, and
// names every attribute of every spec'd block. Run go generate
// ./cmd/mcpdecl/ when it fails.
func TestReferenceIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := append(load.Language(adapters.Registry()), testrun.Language()...)
	want := spec.Markdown(blocks)
	if string(got) != string(want) {
		t.Error("docs/language.md is stale: run go generate ./cmd/mcpdecl/ and commit the result")
	}
	doc := string(got)
	for _, b := range blocks {
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
