package load

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestParseConfigInPieces checks that a big file parsed in pieces gives
// what HCL's parser gives for the whole file, the same body down to every
// source range, and the same diagnostics, including where a guessed cut
// falls inside a heredoc or a comment.
func TestParseConfigInPieces(t *testing.T) {
	tools := func(n int, each string) string {
		var b strings.Builder
		b.WriteString("variable \"v\" {\n  default = 1\n}\n")
		for i := range n {
			fmt.Fprintf(&b, "\ntool \"t%d\" {\n  description = \"Tool %d.\"\n  %s\n  arg \"a\" {\n    type = string\n  }\n}\n", i, i, each)
		}
		return b.String()
	}
	heredoc := "text = <<EOT\nbefore\n}\nafter = 1\n}\ntool \"not a tool\" {\nEOT"
	tests := []struct {
		name, src string
		pieces    bool // whether the source must be cut at all
	}{
		{"blocks and blank lines", tools(2000, `text = expr("args.a")`), true},
		{"CRLF line ends", strings.ReplaceAll(tools(2000, `text = "x"`), "\n", "\r\n"), false},
		{"heredocs holding closing braces", tools(1000, heredoc), true},
		{"a comment holding closing braces", tools(1000, "text = \"x\"") + "/*\n}\ntool \"x\" {\n*/\n" + tools(1000, "text = \"y\""), true},
		{"a syntax error in the middle", tools(1000, "text = \"x\"") + "tool \"bad\" {\n  text = = 1\n}\n" + tools(1000, "text = \"y\""), true},
		{"an attribute set twice, far apart", "x = 1\n" + tools(2000, "text = \"x\"") + "x = 2\n", true},
		{"a small file", tools(3, "text = \"x\""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			if cuts := cutTopLevel(src, parsePiece); (len(cuts) > 1) != tt.pieces {
				t.Fatalf("%d pieces", len(cuts))
			}
			want, wantDiags := hclsyntax.ParseConfig(src, "tools.hcl", hcl.InitialPos)
			got, gotDiags := parseConfig(src, "tools.hcl")
			if gotDiags.Error() != wantDiags.Error() {
				t.Errorf("diagnostics:\n%s\nwant\n%s", gotDiags.Error(), wantDiags.Error())
			}
			if !reflect.DeepEqual(got.Body, want.Body) {
				t.Error("the bodies differ")
			}
			if string(got.Bytes) != string(want.Bytes) {
				t.Error("the sources differ")
			}
		})
	}
}
