package text_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

func TestExcerpt(t *testing.T) {
	tests := map[string]string{
		"":                              "",
		"  \n ":                         "",
		"a\n\nb\tc ":                    "a b c",
		"  a\n\n  b\tc  \n":             "a b c",
		"bell\x07":                      "bell\uFFFD",
		strings.Repeat("a", 600):        strings.Repeat("a", 512) + "…",
		"\xff\xfe":                      "\uFFFD\uFFFD",
		strings.Repeat("€", 200):        strings.Repeat("€", 170) + "…",
		strings.Repeat("é", 1000):       strings.Repeat("é", 256) + "…",
		strings.Repeat("a ", 300):       strings.TrimSpace(strings.Repeat("a ", 256)) + "…",
		"ok" + strings.Repeat(" ", 600): "ok",
	}
	for in, want := range tests {
		if got := text.Excerpt(context.Background(), in); got != want {
			t.Errorf("Excerpt(%q) = %q, want %q", in, got, want)
		}
	}
}
