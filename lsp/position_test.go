package lsp

import (
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Positions count UTF-16 code units: ° is one, 😀 two, whatever their
// bytes.
func TestPositions(t *testing.T) {
	text := "a = \"°C 😀\"\nb = 1\n"
	for _, c := range []struct {
		what string
		pos  protocol.Position
	}{
		{"C", protocol.Position{Line: 0, Character: 6}},
		{" 😀", protocol.Position{Line: 0, Character: 7}},
		{"\"\n", protocol.Position{Line: 0, Character: 10}},
		{"b", protocol.Position{Line: 1, Character: 0}},
	} {
		off := strings.Index(text, c.what)
		if got := position(text, off); got != c.pos {
			t.Errorf("position of %q: %+v, want %+v", c.what, got, c.pos)
		}
		if got := offset(text, c.pos); got != off {
			t.Errorf("offset of %+v: %d, want %d", c.pos, got, off)
		}
	}
	// Past the end of a line or of the text: clamped.
	if got := offset(text, protocol.Position{Line: 1, Character: 99}); got != len("a = \"°C 😀\"\nb = 1") {
		t.Errorf("past the end of a line: %d", got)
	}
	if got := offset(text, protocol.Position{Line: 99}); got != len(text) {
		t.Errorf("past the end of the text: %d", got)
	}
}

// The fix of an expr program's typo replaces the path the diagnostic
// starts at, as many parts of it as the suggestion has.
func TestSuggestionEdit(t *testing.T) {
	text := "  q = { city = expr(\"args.ctiy.x\") }\n"
	start := position(text, strings.Index(text, "args"))
	edit, ok := suggestionEdit(text, protocol.Range{Start: start, End: protocol.Position{Line: 0, Character: start.Character + 1}}, "args.city")
	if !ok || edit.NewText != "args.city" || edit.Range.End != position(text, strings.Index(text, ".x")) {
		t.Errorf("the fix: %+v", edit)
	}
	text = "  timout = \"1s\"\n"
	edit, ok = suggestionEdit(text, protocol.Range{Start: protocol.Position{Character: 2}, End: protocol.Position{Character: 8}}, "timeout")
	if !ok || edit.NewText != "timeout" || edit.Range.End.Character != 8 {
		t.Errorf("the fix: %+v", edit)
	}
}
