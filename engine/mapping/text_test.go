package mapping_test

import (
	"strings"
	"testing"
)

// TestFieldOfTextBody checks that a program reading a field of a body that
// is text, not JSON, fails saying so in the user's words, not with expr's
// "invalid operation".
func TestFieldOfTextBody(t *testing.T) {
	for _, tc := range []struct{ program, want string }{
		{`expr("body.title")`, `body is a string (the response was not JSON, content type text/html), so body.title has no value`},
		{`expr("int(body.count) + 1")`, `body is a string (the response was not JSON, content type text/html), so body.count has no value`},
	} {
		t.Run(tc.program, func(t *testing.T) {
			v, diags := compile(t, tc.program)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_, err := v.Eval(map[string]any{"args": map[string]any{}, "body": "<html>hi</html>", "content_type": "text/html"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want …%s…", err, tc.want)
			}
		})
	}
}
