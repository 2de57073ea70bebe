package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text\n", "plain text\n"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"unicode: été 🎉 日本", "unicode: été 🎉 日本"},
		// SGR colours and other CSI sequences.
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[1;38;5;208mbold orange\x1b[m", "bold orange"},
		{"\x1b[38:2:255:0:0mrgb\x1b[0m", "rgb"},
		{"\x1b[2K\x1b[1Gprogress", "progress"},
		{"\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"\x1b[>4;2m\x1b[ q", ""},
		// OSC: titles, hyperlinks, ended by BEL or ST.
		{"\x1b]0;window title\x07after", "after"},
		{"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1b]52;c;c2VjcmV0\x07x", "x"},
		// An unterminated OSC stops at the line break.
		{"\x1b]0;title\nnext line", "\nnext line"},
		// DCS, SOS, PM, APC strings.
		{"\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"\x1b_apc\x1b\\a\x1b^pm\x1b\\b\x1bXsos\x1b\\c", "abc"},
		// Two- and three-byte escapes.
		{"\x1b7saved\x1b8", "saved"},
		{"\x1b(Bascii\x1b#8", "ascii"},
		{"\x1bcreset", "reset"},
		// A lone or cut-short escape.
		{"end\x1b", "end"},
		{"end\x1b[", "end"},
		{"end\x1b[12;", "end"},
		{"\x1b\x1b[31mx", "x"},
		// A CSI broken by a byte that cannot belong to it keeps that byte.
		{"\x1b[12\nx", "\nx"},
		// C0 controls other than \n and \t, and DEL.
		{"a\rb\bc\x00d\x07e\x7ff\x0bg\x0ch", "abcdefgh"},
		{"windows\r\nline\r\n", "windows\nline\n"},
		// 8-bit C1 controls in UTF-8: CSI, OSC and the others.
		{"\u009b31mred\u009b0m", "red"},
		{"\u009d0;title\u009cafter", "after"},
		{"a\u0085b\u0080c", "abc"},
		// Invalid UTF-8.
		{"bad \xff byte", "bad \uFFFD byte"},
		{"cut \xe6\x97", "cut \uFFFD\uFFFD"},
		// Characters that look like controls but are not.
		{"\u00a0nbsp \u200b", "\u00a0nbsp \u200b"},
	}
	for _, tt := range tests {
		if got := Sanitize([]byte(tt.in)); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSanitizeIsClean(t *testing.T) {
	// Whatever goes in, what comes out is valid UTF-8 with no escape and no
	// control other than \n and \t.
	inputs := []string{
		"\x1b", "\x1b]", "\x1bP", "\u009b", "\u009d", "\xc2", "\x1b[\u009b", strings.Repeat("\x1b[", 100),
	}
	for b := range 256 {
		inputs = append(inputs, string([]byte{byte(b)}), "\x1b"+string([]byte{byte(b)})+"x", "\x1b["+string([]byte{byte(b)})+"x")
	}
	for _, in := range inputs {
		out := Sanitize([]byte(in))
		if !utf8.ValidString(out) {
			t.Errorf("Sanitize(%q) = %q, not UTF-8", in, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Errorf("Sanitize(%q) = %q, holds %U", in, out, r)
			}
		}
		if !isClean([]byte(out)) {
			t.Errorf("Sanitize(%q) = %q, which isClean refuses", in, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add([]byte("\x1b[31mred\x1b[0m\r\n\u009b1m"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("Sanitize(%q) = %q, holds %U", in, out, r)
			}
		}
		if again := Sanitize([]byte(out)); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
	})
}
