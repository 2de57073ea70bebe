package jsonenc_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/jsonenc"
)

// marshal is what encoding/json writes for v, without HTML escaping.
func marshal(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	type point struct{ X, Y int }
	values := []any{
		nil, true, false, 0, -42, int64(9007199254740993), int32(-7), uint(3), uint64(math.MaxUint64),
		0.0, -0.0, 1.5, -2.25e-7, 1e21, 1e20, 123456789.125, 1e-7, 5e-324, 1.7976931348623157e308,
		json.Number("12"), json.Number("-1.5e+30"),
		"", "plain", "quote \" backslash \\ tab \t nl \n cr \r nul \x00 bs \b ff \f del \x7f",
		"<html> & 'x'", "héllo wörld ✓ 🎉", "bad \xff utf8", "line\u2028sep\u2029",
		[]any{}, []any(nil), map[string]any{}, map[string]any(nil),
		[]any{1, "a", nil, []any{true}}, map[string]any{"b": 1, "a": []any{true}, "": "empty", "B": 2, "é": 3},
		[]string{"a", "b"}, float32(1.1), point{1, 2}, map[string]any{"p": point{3, 4}, "list": []any{int8(5)}},
	}
	for _, v := range values {
		want, err := marshal(t, v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonenc.Append([]byte("prefix "), v)
		if err != nil {
			t.Errorf("Append(%#v): %v", v, err)
			continue
		}
		if string(got) != "prefix "+string(want) {
			t.Errorf("Append(%#v)\n got %s\nwant prefix %s", v, got, want)
		}
	}
}

func TestAppendErrors(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), json.Number("1.2.3"), []any{1, make(chan int)}, map[string]any{"f": func() {}}} {
		got, err := jsonenc.Append([]byte("kept"), v)
		if err == nil {
			t.Errorf("Append(%#v) = %s, want an error", v, got)
		}
		if string(got) != "kept" {
			t.Errorf("Append(%#v) changed the buffer to %q", v, got)
		}
	}
}

func TestNumberSyntax(t *testing.T) {
	for s, want := range map[string][2]bool{
		"0": {true, true}, "-0": {true, true}, "12": {true, true}, "1.5": {false, true}, "1e3": {false, true},
		"-1.5E-3": {false, true}, "": {false, false}, "-": {false, false}, "01": {false, false}, "1.": {false, false},
		".5": {false, false}, "1e": {false, false}, "+1": {false, false}, "1x": {false, false}, "NaN": {false, false},
	} {
		whole, ok := jsonenc.NumberSyntax(s)
		if whole != want[0] || ok != want[1] {
			t.Errorf("NumberSyntax(%q) = %v, %v; want %v, %v", s, whole, ok, want[0], want[1])
		}
	}
}
