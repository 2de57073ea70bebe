package text_test

import (
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

func TestUpperFirst(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"no such file":   "No such file",
		"Already":        "Already",
		"été chaud":      "Été chaud",
		"42 is a number": "42 is a number",
		"\xffbad":        "\xffbad",
	} {
		if got := text.UpperFirst(in); got != want {
			t.Errorf("UpperFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOr(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := text.Or(c.in); got != c.want {
			t.Errorf("Or(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := text.Or(text.Quoted([]string{"x", `y"`})); got != `"x" or "y\""` {
		t.Errorf("Or(Quoted) = %s", got)
	}
}
