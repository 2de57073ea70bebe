package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeFirstSnippet checks that the first configuration a reader of
// the README sees validates as written (given its variable) and is
// formatted.
func TestReadmeFirstSnippet(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```hcl\n")
	if !ok {
		t.Fatal("the README has no hcl snippet")
	}
	snippet, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the README's first hcl snippet is not closed")
	}
	name := filepath.Join(t.TempDir(), "tools.hcl")
	if err := os.WriteFile(name, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"validate", name, "--var", "api_key=k"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("validate exited with %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	if code := Main([]string{"fmt", "--check", name}, nil, io.Discard, &stderr); code != exitOK {
		t.Fatalf("the README's first snippet is not formatted (fmt --check exited with %d): %s", code, stderr.String())
	}
}
