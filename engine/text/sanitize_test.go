package text

import (
	"reflect"
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
		// OSC 0 (a title) and OSC 8 (a hyperlink), each ended by BEL and
		// by ST, in 7-bit and 8-bit forms.
		{"\x1b]0;pwned\x07Paris", "Paris"},
		{"\x1b]0;pwned\x1b\\Paris", "Paris"},
		{"\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "click"},
		{"\x1b]8;;https://evil.example\u009cclick\u009d8;;\u009c", "click"},
		// NUL and DEL.
		{"a\x00b\x00", "ab"},
		{"\x7f\x7fx", "x"},
		// Every C1 control, as a rune, is dropped (those opening a
		// sequence take it along: here, none follows).
		{"<\u0080\u0081\u0084\u0085\u0086\u008a\u008f\u0091\u0095\u0099\u009a\u009c>", "<>"},
		// Characters just around the ranges stay.
		{"\u007e\u00a0\u00ff\u0100", "~\u00a0\u00ff\u0100"},
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

func TestSanitizeC1Runes(t *testing.T) {
	// Each C1 control alone, U+0080 to U+009F, is removed.
	for r := rune(0x80); r <= 0x9f; r++ {
		if got := SanitizeString("a" + string(r) + "b"); strings.ContainsRune(got, r) {
			t.Errorf("SanitizeString(%q) = %q, keeps %U", "a"+string(r)+"b", got, r)
		}
	}
}

func TestSanitizeStringCleanIsNotCopied(t *testing.T) {
	for _, s := range []string{"plain ASCII", "été 🎉 日本\n\ttabs", ""} {
		var got string
		allocs := testing.AllocsPerRun(100, func() { got = SanitizeString(s) })
		if got != s || allocs != 0 {
			t.Errorf("SanitizeString(%q) = %q with %v allocations, want it as is with none", s, got, allocs)
		}
	}
}

func TestSanitizeValue(t *testing.T) {
	type name string
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, nil},
		{"number", 1.5, 1.5},
		{"bool", true, true},
		{"clean string", "été", "été"},
		{"string", "Paris\x1b]0;pwned\x07", "Paris"},
		{"list", []any{"a\x00b", 1, "ok"}, []any{"ab", 1, "ok"}},
		{"object values and keys", map[string]any{"k\x1b[31m": "v\u009b2J", "ok": "x"}, map[string]any{"k": "v", "ok": "x"}},
		{"nested", map[string]any{"a": []any{map[string]any{"\x7fb": []any{"c\rd"}}}}, map[string]any{"a": []any{map[string]any{"b": []any{"cd"}}}}},
		// A clean key wins over one that becomes the same; between two
		// cleaned keys, the one that sorts first does.
		{"clean key wins", map[string]any{"k": 1, "k\x1b[0m": 2, "\x07k": 3}, map[string]any{"k": 1}},
		{"first dirty key wins", map[string]any{"k\x1b[0m": 2, "\x07k": 3}, map[string]any{"k": 3}},
		{"string list", []string{"a", "b\x1b[1m"}, []string{"a", "b"}},
		{"string type", name("x\x00"), "x"},
		{"other type", map[string]string{"k\x00": "v\x1b[1m"}, map[string]any{"k": "v"}},
		{"other type, clean", map[string]string{"k": "<v&>"}, map[string]string{"k": "<v&>"}},
		{"other type, numbers", []int{1, 2}, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SanitizeValue(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SanitizeValue(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizeValueLeavesItsInputAlone(t *testing.T) {
	// The value may be a constant of the configuration, shared by every
	// call: it must not change, and what is clean must be shared, not
	// copied.
	in := map[string]any{"k\x1b[1m": []any{"a\x00"}, "clean": []any{"b"}}
	out := SanitizeValue(in).(map[string]any)
	if _, ok := in["k\x1b[1m"]; !ok || in["k\x1b[1m"].([]any)[0] != "a\x00" {
		t.Errorf("the input changed: %q", in)
	}
	if &out["clean"].([]any)[0] != &in["clean"].([]any)[0] {
		t.Error("a clean list was copied")
	}
	clean := map[string]any{"a": []any{"b", map[string]any{"c": "d"}}, "n": 1.5}
	var got any
	if allocs := testing.AllocsPerRun(100, func() { got = SanitizeValue(clean) }); allocs != 0 {
		t.Errorf("SanitizeValue of a clean value allocated %v times", allocs)
	}
	if !reflect.DeepEqual(got, clean) {
		t.Errorf("SanitizeValue(%v) = %v", clean, got)
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

// BenchmarkSanitizeValue measures what cleaning costs a call whose
// structured content is already clean (the common case: a scan, no
// allocation) and one holding an escape.
func BenchmarkSanitizeValue(b *testing.B) {
	clean := map[string]any{"temperature": 18.5, "conditions": "light rain", "city": "Paris",
		"rows": []any{map[string]any{"id": 1, "name": "alice"}, map[string]any{"id": 2, "name": "bob"}}}
	dirty := map[string]any{"temperature": 18.5, "conditions": "light rain", "city": "Paris\x1b]0;pwned\x07",
		"rows": []any{map[string]any{"id": 1, "name": "alice"}, map[string]any{"id": 2, "name": "bob"}}}
	for name, v := range map[string]any{"clean": clean, "dirty": dirty} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = SanitizeValue(v)
			}
		})
	}
}
