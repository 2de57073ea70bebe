package execaction

import (
	"reflect"
	"strings"
	"testing"
)

func TestTrimPartialRune(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"abc":               "abc",
		"ab\xc3":            "ab",
		"ab\xc3\xa9":        "ab\xc3\xa9",
		"a\xf0\x9f\x8e":     "a",
		"a\xf0\x9f\x8e\x89": "a\xf0\x9f\x8e\x89",
		"\x80\x80":          "\x80\x80",
	} {
		if got := string(trimPartialRune([]byte(in))); got != want {
			t.Errorf("trimPartialRune(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitLines(t *testing.T) {
	for in, want := range map[string][]any{
		"":         {},
		"\n":       {""},
		"a":        {"a"},
		"a\n":      {"a"},
		"a\n\n":    {"a", ""},
		"a\nb":     {"a", "b"},
		"\na\nb\n": {"", "a", "b"},
	} {
		if got := splitLines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitLines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	good := map[string]any{
		`{"a": 1}`:                              map[string]any{"a": 1},
		` [1, 2.5, -3, 1e2, 9007199254740993] `: []any{1, 2.5, -3, 100, 9007199254740993},
		`"s"`:                                   "s",
		`null`:                                  nil,
		"true\n":                                true,
		`1.5e400`:                               nil, // replaced below
	}
	delete(good, `1.5e400`)
	for in, want := range good {
		got, err := decodeJSON([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeJSON(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                              "it printed nothing",
		"  \n":                          "it printed nothing",
		`{"a": tru}`:                    `invalid character '}' in literal true (expecting 'e') at byte 10, after: "{\"a\": tru}"`,
		`{"a":`:                         `the JSON value is cut short at byte 5, after: "{\"a\":"`,
		`[1, 2] x`:                      `there is more than one JSON value, or text after it at byte 8, after: "[1, 2] x"`,
		"\x1b[31m{}":                    `invalid character '\x1b' looking for beginning of value at byte 1, after: ""`,
		strings.Repeat(" ", 100) + "{x": `at byte 102, after: …"`,
	}
	for in, want := range bad {
		_, err := decodeJSON([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decodeJSON(%q): %v; want %q", in, err, want)
		}
	}
}
