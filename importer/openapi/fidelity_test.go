package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inputFidelity imports and loads a document and compares its tools'
// input schemas with its requests (see CheckInput).
func inputFidelity(t *testing.T, path string) InputFidelity {
	t.Helper()
	spec, res, err := importPath(path, Options{Source: filepath.Base(path)})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	paths, err := writeFiles(t.TempDir(), res.Files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFiles(paths, nil)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	defer cfg.Close()
	return CheckInput(spec, res, inputSchemas(cfg))
}

// TestInputFidelity: the tools imported from the documents the tests use
// keep every property, required name, enum value, bound and format of
// their requests, at any depth.
func TestInputFidelity(t *testing.T) {
	docs, _ := filepath.Glob("testdata/*")
	checks := 0
	for _, p := range docs {
		if st, err := os.Stat(p); err != nil || st.IsDir() || strings.Contains(p, "broken") || strings.Contains(p, "not-openapi") ||
			strings.Contains(p, "truncated") || strings.Contains(p, "overlay") {
			continue
		}
		f := inputFidelity(t, p)
		checks += f.Checks
		if f.Shallow > 0 {
			t.Errorf("%s: %d tools cut shallow, past the budget of definitions", filepath.Base(p), f.Shallow)
		}
		for _, l := range f.Losses {
			t.Errorf("%s: %s", filepath.Base(p), l)
		}
	}
	if checks < 200 {
		t.Errorf("only %d comparisons were made", checks)
	}
	t.Logf("%d comparisons", checks)
}
