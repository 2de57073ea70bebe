package load_test

import (
	"strings"
	"testing"
)

// TestLabelMistakesSayHowToWrite checks that a block written with too few
// or too many labels is an error that shows how the block is written,
// instead of HCL's "All tool blocks must have 1 labels (name)."
func TestLabelMistakesSayHowToWrite(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"a tool without its name", "tool {\n  description = \"d\"\n  text = \"t\"\n}\n",
			`1:6-1:7: Missing name for tool: A tool block needs its name: write tool "name" { … }.`},
		{"a tool with two names", "tool \"a\" \"b\" {\n  description = \"d\"\n  text = \"t\"\n}\n",
			`1:10-1:13: Extraneous label for tool: A tool block takes one label, its name: write tool "name" { … }.`},
		{"a prompt message without its role", "prompt \"p\" {\n  message {\n    text = \"hi\"\n  }\n}\n",
			`2:11-2:12: Missing role for message: A message block needs its role: write message "role" { … }.`},
		{"a server block with a label", "server \"main\" {\n  name = \"x\"\n}\n",
			`1:8-1:14: Extraneous label for server: A server block takes no label: write server { … }.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil, nil)
			if got := describe(diags); !strings.Contains(got, tc.want) {
				t.Errorf("missing %q in:\n%s", tc.want, got)
			}
		})
	}
}
