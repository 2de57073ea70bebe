package load_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/adapters"
	"github.com/mcpdecl/mcpdecl/engine"
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
// block's example or an empty one; or as it is, when it is a whole
// configuration. Its cross-field rules are checked too.
func TestSpecExamplesLoad(t *testing.T) {
	reg := adapters.Registry()
	lang := load.Language(reg)
	upstreams := upstreamExamples(reg, lang)
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

// TestEveryBlockDecodes: each block is read through its spec wherever it
// goes, so that an attribute it does not declare is an error. A block
// that a spec nests but no code decodes would take anything silently.
func TestEveryBlockDecodes(t *testing.T) {
	reg := adapters.Registry()
	lang := load.Language(reg)
	upstreams := upstreamExamples(reg, lang)
	checked := 0
	for _, b := range lang {
		// The block's own body: the example's first brace, where the
		// example starts with the block.
		first, _, _ := strings.Cut(strings.TrimSpace(b.Example), "\n")
		if b.Open || !strings.HasPrefix(first, b.Name+" ") || !strings.HasSuffix(first, "{") {
			continue // an open block (locals) takes any name
		}
		broken := &spec.Block{Name: b.Name, In: b.In, Example: strings.Replace(b.Example, "{", "{\n  zz_undeclared = 1", 1)}
		var loaded []string
		for _, src := range placed(lang, broken, upstreams) {
			_, _, diags := enginetest.Load(t, reg, src, enginetest.Options{LookupEnv: enginetest.MapEnv(nil)})
			if strings.Contains(describe(diags), `"zz_undeclared"`) {
				loaded = nil
				break
			}
			loaded = append(loaded, src+"\n"+describe(diags))
		}
		if loaded != nil {
			t.Errorf("%s takes an attribute its spec does not declare:\n%s", b.Path(), strings.Join(loaded, "\n"))
		}
		checked++
	}
	t.Logf("%d of %d blocks checked", checked, len(lang))
	if checked < len(lang)/2 {
		t.Errorf("only %d of %d blocks checked: the examples changed shape", checked, len(lang))
	}
}

// upstreamExamples are the examples of the adapters' top-level blocks
// (http_api, database), which the examples of other blocks may refer to.
func upstreamExamples(reg *engine.Registry, lang []*spec.Block) string {
	var out string
	for _, b := range lang {
		if _, ok := reg.Upstream(b.Name); ok && b.In == "" {
			out += b.Example + "\n"
		}
	}
	return out
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
	// An example may be a whole configuration that holds the block where it
	// goes, with what it refers to (a step's tool and http_api).
	return append(placedIn(lang, b.In, b.Example, upstreams), b.Example)
}

// placedIn returns configurations that hold example where in (a path such
// as "tool › http") says it goes.
func placedIn(lang []*spec.Block, in, example, upstreams string) []string {
	if in == "" {
		return []string{example}
	}
	if in == "tool" {
		// The arguments the examples read: id, and units as the arg
		// example declares it (so that they fit together as the editor's
		// "tool with http" snippet puts them).
		args := "  arg \"id\" {}\n"
		if !strings.Contains(example, `arg "units"`) {
			args += "  arg \"units\" {\n    default = \"metric\"\n  }\n"
		}
		return []string{upstreams + "tool \"t\" {\n  description = \"A tool.\"\n" + args + "  annotations {\n    read_only_hint = true\n  }\n" + example + "\n}\n"}
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
	for _, b := range reachable(blocks) {
		start := strings.Index(doc, `<a id="`+b.ID()+`"></a>`)
		if start < 0 {
			t.Errorf("the reference has no section for %s: add its spec to load.Language (or testrun.Language)", b.Path())
			continue
		}
		section := doc[start:]
		if i := strings.Index(section[1:], "<a id="); i >= 0 {
			section = section[:i+1]
		}
		for _, a := range b.Attrs {
			if !strings.Contains(section, "| `"+a.Name+"` |") {
				t.Errorf("the reference of %s does not list %s", b.Path(), a.Name)
			}
		}
		for _, n := range b.Blocks {
			if !strings.Contains(section, "| [`"+n.Block.Name+"`](#"+n.Block.ID()+") |") {
				t.Errorf("the reference of %s does not list its block %s", b.Path(), n.Block.Name)
			}
		}
	}
}

// TestFileSpecHoldsTheLanguage: the spec of a file reaches every block of
// the language, in full, and nests the adapters' action blocks wherever an
// action runs, so that writers (the importers) can write any of them.
func TestFileSpecHoldsTheLanguage(t *testing.T) {
	reg := adapters.Registry()
	type key struct{ name, in, summary string }
	reached := map[key]bool{}
	actionsIn := map[string][]string{}
	var walk func(b *spec.Block, path string)
	walk = func(b *spec.Block, path string) {
		reached[key{b.Name, b.In, b.Summary}] = true
		for _, n := range b.Blocks {
			if _, ok := reg.Action(n.Block.Name); ok && n.Block.In == "tool" {
				actionsIn[path] = append(actionsIn[path], n.Block.Name)
				if len(n.Block.Attrs) == 0 {
					t.Errorf("%s › %s is nested without its attributes", path, n.Block.Name)
				}
			}
			walk(n.Block, strings.TrimPrefix(path+" › "+n.Block.Name, " › "))
		}
	}
	walk(load.FileSpec(reg), "")
	for _, b := range load.Language(reg) {
		if !reached[key{b.Name, b.In, b.Summary}] {
			t.Errorf("%s is not reached from the file's spec", b.Path())
		}
	}
	kinds := strings.Join(reg.ActionKinds(), ",")
	for _, p := range []string{"tool", "tool › step", "resource", "resource_template", "tool › arg › complete", "prompt › arg › complete"} {
		if got := strings.Join(actionsIn[p], ","); got != kinds {
			t.Errorf("%s nests the actions %q, want %q", p, got, kinds)
		}
	}
}

// reachable returns blocks and every block nested in them, at any depth,
// each once: what a configuration or a test file may hold.
func reachable(blocks []*spec.Block) []*spec.Block {
	seen := map[*spec.Block]bool{}
	var out []*spec.Block
	var walk func(b *spec.Block)
	walk = func(b *spec.Block) {
		if seen[b] {
			return
		}
		seen[b] = true
		out = append(out, b)
		for _, n := range b.Blocks {
			walk(n.Block)
		}
	}
	for _, b := range blocks {
		walk(b)
	}
	return out
}
