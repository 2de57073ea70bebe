//go:build unix

package execaction

import (
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestStdoutTypedByParse checks that reading a field of a text stdout is a
// load error at the program, not "invalid operation" at call time, and that
// stdout as text or lines is usable as what it is.
func TestStdoutTypedByParse(t *testing.T) {
	for _, tc := range []struct{ parse, program, want string }{
		{"text", "stdout.title", "7:23-7:24: Invalid expr program: The program \"stdout.title\" does not compile: type string has no field title"},
		{"lines", "stdout.title", "7:23-7:24: Invalid expr program"},
		{"text", "upper(stdout)", ""},
		{"lines", "stdout[0] + '!'", ""},
		{"json", "stdout.title", ""},
	} {
		t.Run(tc.parse+" "+tc.program, func(t *testing.T) {
			_, _, diags := loadString(t, `tool "t" {
  description = "d"
  exec {
    command = ["echo", "hi"]
    parse   = "`+tc.parse+`"
  }
  text = expr("`+tc.program+`")
}`)
			got := enginetest.Describe(diags)
			if tc.want == "" {
				if diags.HasErrors() {
					t.Errorf("unexpected errors:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got\n%s\nwant %s", got, tc.want)
			}
		})
	}
}
