package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestTemplateDefs: a resource template's argument may refer to its defs,
// which type its URI variable and offer its enum as completions; a
// resource, which takes no arguments, takes no defs.
func TestTemplateDefs(t *testing.T) {
	dir := t.TempDir()
	src := `
resource_template "kind" {
  uri_template = "x://{kind}/{n}"
  defs         = { Kind = { type = "string", enum = ["cat", "dog"] }, N = { type = "integer", minimum = 1 } }
  arg "kind" {
    schema = { "$ref" = "#/$defs/Kind" }
  }
  arg "n" {
    schema = { "$ref" = "#/$defs/N" }
  }
  text = expr("args.kind + ' ' + string(args.n + 1)")
}
`
	name := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(name, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry()}, name)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	defer cfg.Close()
	tmpl := cfg.Templates[0]
	got, err := tmpl.Read(context.Background(), "x://dog/2")
	if err != nil || len(got) != 1 || got[0].Text != "dog 3" {
		t.Fatalf("read x://dog/2: %+v, %v", got, err)
	}
	for _, uri := range []string{"x://cow/2", "x://cat/0"} {
		if _, err := tmpl.Read(context.Background(), uri); err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}
	values, _, err := tmpl.Complete(context.Background(), "kind", "", 10)
	if err != nil || strings.Join(values, ",") != "cat,dog" {
		t.Errorf("completions of kind: %v, %v", values, err)
	}

	bad := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(bad, []byte("resource \"r\" {\n  uri  = \"x://r\"\n  defs = {}\n  text = \"a\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, diags := load.Load(load.Options{Registry: engine.NewRegistry()}, bad); !strings.Contains(diags.Error(), `"defs" is not expected here`) {
		t.Errorf("defs on a resource: %v", diags)
	}
}
