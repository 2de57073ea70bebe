package text

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONInner checks the JSON escapes the redactor hides secrets in
// against the encoders that write them: encoding/json with and without
// HTML escaping, and Python's json.dumps (every character past ASCII
// escaped, past U+FFFF as a surrogate pair).
func TestJSONInner(t *testing.T) {
	for _, s := range []string{
		"plain", `q"uo\te`, "<a&b>", "tab\tnl\ncr\rbs\bff\f\x00\x1f\x7f",
		"é😀\u2028\u2029", "bad\xffutf8\xc3", "mixed <é> \"😀\" &",
	} {
		for _, html := range []bool{false, true} {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			_ = enc.Encode(s)
			want := strings.TrimSuffix(b.String(), "\n")
			want = want[1 : len(want)-1]
			style := plainJSON
			if html {
				style = htmlJSON
			}
			if got := jsonInner(s, style); got != want {
				t.Errorf("jsonInner(%q, html %v) = %q, want %q", s, html, got, want)
			}
		}
	}
	// What Python 3 writes for json.dumps("<é> \"😀\"\n")[1:-1].
	if got, want := jsonInner("<é> \"😀\"\n", asciiJSON), `<\u00e9> \"\ud83d\ude00\"\n`; got != want {
		t.Errorf("jsonInner ASCII = %q, want %q", got, want)
	}
}
