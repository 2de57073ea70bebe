package load_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// writeFile writes src to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigFilesRead checks that the loaded configuration lists every file
// it read, configuration and file() alike, as absolute paths, so that
// --watch reloads when any of them changes.
func TestConfigFilesRead(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "desc.txt", "a description")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sub, "schema.json", `{"type":"object"}`)
	a := writeFile(t, dir, "a.hcl", `tool "a" {
  description = file("desc.txt")
  text        = "x"
}`)
	b := writeFile(t, dir, "b.hcl", `tool "b" {
  description  = "b"
  input_schema = file("sub/schema.json")
  text         = "x"
}`)
	t.Chdir(dir)
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(fakeAdapter{})}, ".")
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	got := cfg.Files()
	slices.Sort(got)
	want := []string{a, b, filepath.Join(dir, "desc.txt"), filepath.Join(sub, "schema.json")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Files() = %q, want %q", got, want)
	}
}
