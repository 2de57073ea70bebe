package tracing

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// TestDecode reads what a tracing block asks a span to record: nothing
// without the block, and what it says with one.
func TestDecode(t *testing.T) {
	ctx := &engine.DecodeContext{Redactor: &text.Redactor{}}
	if l, diags := Decode(nil, ctx); diags.HasErrors() || l.Arguments || l.Results {
		t.Errorf("no block: arguments %v, results %v, %v; want nothing recorded", l.Arguments, l.Results, diags)
	}
	tests := []struct {
		src                string
		arguments, results bool
		diag               string // "": none
	}{
		{src: "tracing {\n}"},
		{src: "tracing {\n  arguments = true\n}", arguments: true},
		{src: "tracing {\n  results = true\n}", results: true},
		{src: "tracing {\n  argument = true\n}", diag: "arguments"},
	}
	for _, tt := range tests {
		file, diags := hclsyntax.ParseConfig([]byte(tt.src), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		content, _ := file.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "tracing"}}})
		l, diags := Decode(content.Blocks[0], ctx)
		switch {
		case tt.diag != "":
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.diag) {
				t.Errorf("%q: %v; want an error that names %q", tt.src, diags, tt.diag)
			}
		case diags.HasErrors():
			t.Errorf("%q: %v", tt.src, diags)
		case l.Arguments != tt.arguments || l.Results != tt.results:
			t.Errorf("%q: arguments %v, results %v; want %v, %v", tt.src, l.Arguments, l.Results, tt.arguments, tt.results)
		}
	}
}

// TestCap cuts a value on a character boundary and marks the cut.
func TestCap(t *testing.T) {
	for _, tt := range []struct {
		s     string
		limit int
		want  string
	}{
		{"short", 8, "short"},
		{"exactly8", 8, "exactly8"},
		{"abcdefghij", 4, "abcd…"},
		{"aéb", 2, "a…"}, // é is two bytes: not split
	} {
		if got := Cap(tt.s, tt.limit); got != tt.want {
			t.Errorf("Cap(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}
