package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// An editor's unsaved buffers take the place of their files, and a buffer
// not yet saved is read too; the size cap holds for them.
func TestSourcesReplaceFiles(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "a.hcl")
	if err := os.WriteFile(saved, []byte("server {\n  nme = \"x\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unsaved := filepath.Join(dir, "b.hcl")
	reg := engine.NewRegistry(fakeAdapter{})
	_, _, diags := load.Load(load.Options{Registry: reg, Sources: map[string][]byte{
		saved:   []byte("server {\n  name = \"x\"\n}\n"),
		unsaved: []byte("variable \"v\" {\n  tpye = string\n}\n"),
	}}, saved, unsaved)
	if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Filename != unsaved || !strings.Contains(diags[0].Detail, `"tpye"`) {
		t.Fatalf("want the one error of the unsaved buffer, got %v", diags)
	}

	big := make([]byte, engine.MaxConfigFileBytes+1)
	_, _, diags = load.Load(load.Options{Registry: reg, Sources: map[string][]byte{saved: big}}, saved)
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "more than the") {
		t.Fatalf("want the buffer refused for its size, got %v", diags)
	}
}
