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
