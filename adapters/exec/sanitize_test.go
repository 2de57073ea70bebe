//go:build unix

package execaction

import (
	"strings"
	"testing"
)

// TestSanitizeFalseKeepsControls: a tool with sanitize = false gets its
// program's output as written, terminal escapes included, in its programs
// and its result (the text block of a tool without outputs is stdout);
// by default they are removed. Invalid UTF-8 is replaced either way, so
// that the result stays valid JSON text.
func TestSanitizeFalseKeepsControls(t *testing.T) {
	for _, tc := range []struct {
		name, sanitize, want string
	}{
		{"cleaned by default", "", "red \ufffd!"},
		{"kept with sanitize = false", "sanitize = false", "\x1b[31mred\x1b[0m \ufffd!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := mustLoad(t, `
tool "plain" {
  description = "Prints in red."
  `+tc.sanitize+`
  exec {
    command = ["printf", "\\033[31mred\\033[0m \\377!"]
  }
}

tool "colour" {
  description = "Prints in red."
  `+tc.sanitize+`
  exec {
    command = ["printf", "\\033[31mred\\033[0m \\377!"]
  }
  output "out" {
    type  = string
    value = expr("stdout")
  }
}
`)
			res := call(t, cfg, "colour", `{}`)
			mustSucceed(t, res)
			if got := res.Structured["out"]; got != tc.want {
				t.Errorf("out = %q, want %q", got, tc.want)
			}
			if !strings.Contains(res.Content[0].Text, "red") {
				t.Errorf("text = %q", res.Content[0].Text)
			}
			res = call(t, cfg, "plain", `{}`)
			mustSucceed(t, res)
			if got := res.Content[0].Text; got != tc.want {
				t.Errorf("text without outputs = %q, want %q", got, tc.want)
			}
		})
	}
}
