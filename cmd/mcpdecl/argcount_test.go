package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestArgumentCountSaysUsage checks that a command given too few or too
// many arguments says what it takes, in its own words, and exits with 2:
// not cobra's "requires at least 2 arg(s), only received 1".
func TestArgumentCountSaysUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "tools.hcl"}, `Error: mcpdecl call takes PATH... TOOL [JSON]; it was given 1 argument: "tools.hcl"`},
		{[]string{"validate"}, "Error: mcpdecl validate takes PATH...; it was given none"},
		{[]string{"init", "a", "b"}, `Error: mcpdecl init takes [DIR or FILE]; it was given 2 arguments: "a" "b"`},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(tc.args, nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want+"\n") {
			t.Errorf("mcpdecl %s: exit %d, stderr:\n%s\nwant exit 2 and %q", strings.Join(tc.args, " "), code, stderr.String(), tc.want)
		}
	}
}
