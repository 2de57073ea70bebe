package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unformattedTools is a configuration of n HTTP tools written carelessly:
// uneven indentation and unaligned "=".
func unformattedTools(n int) []byte {
	const tool = `
tool "tool_%04d" {
    description = "Current weather for a city."
  arg "city" {
    type = string
    min_length = 1
  }
  arg "units" {
      type    = string
    enum = ["metric", "imperial"]
    default="metric"
  }
  http {
    api = http_api.api
    path = "/weather/{city}"
    path_params = { city = expr("args.city") }
    query = { units = expr("args.units") }
  }
  output "temperature" {
    type = number
    value = expr("body.main.temp")
  }
}
`
	var b strings.Builder
	b.WriteString("http_api \"api\" {\n  base_url = \"https://api.example.com\"\n}\n")
	for i := range n {
		fmt.Fprintf(&b, tool, i)
	}
	return []byte(b.String())
}

// TestFmtIdempotent checks that formatting a formatted file changes nothing,
// and that the formatted file still parses.
func TestFmtIdempotent(t *testing.T) {
	src := unformattedTools(3)
	once, _, diags := formatHCL(src, "x.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if bytes.Equal(once, src) {
		t.Fatal("the careless file came out unchanged")
	}
	twice, _, diags := formatHCL(once, "x.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !bytes.Equal(once, twice) {
		t.Errorf("formatting twice changed the text:\n%s\nthen\n%s", once, twice)
	}
	if !bytes.Contains(once, []byte("    min_length = 1\n")) || !bytes.Contains(once, []byte("    type       = string\n")) {
		t.Errorf("the arguments are not aligned:\n%s", once)
	}
}

// BenchmarkFmt1000 runs fmt --check on a generated file of 1,000 tools, as
// the command line does: read, parse for syntax errors, format, compare.
func BenchmarkFmt1000(b *testing.B) {
	name := filepath.Join(b.TempDir(), "tools.hcl")
	src := unformattedTools(1000)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if code := Main([]string{"fmt", "--check", name}, nil, io.Discard, io.Discard); code != exitError {
			b.Fatalf("fmt --check exited with %d, want 1 (the file needs formatting)", code)
		}
	}
}
