package load_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

func TestSanitizeAttribute(t *testing.T) {
	tool := func(name, sanitize string) string {
		return `
tool "` + name + `" {
  description = "d"
  ` + sanitize + `
  fake {
    body = { title = "\u001b]0;pwned\u0007Paris" }
  }
  output "title" {
    type  = string
    value = expr("body.title")
  }
}
`
	}
	src := tool("default", "") + tool("on", "sanitize = true") + tool("null", "sanitize = null") + tool("off", "sanitize = false")
	cfg, diags := loadString(t, src, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	for name, want := range map[string]string{
		"default": `{"title":"Paris"}`,
		"on":      `{"title":"Paris"}`,
		"null":    `{"title":"Paris"}`,
		"off":     `{"title":"\u001b]0;pwned\u0007Paris"}`,
	} {
		res := enginetest.Call(context.Background(), t, cfg, name, `{}`)
		if got := enginetest.Structured(t, res); got != want {
			t.Errorf("%s: structuredContent = %s, want %s", name, got, want)
		}
	}

	_, diags = loadString(t, tool("bad", `sanitize = "no"`), nil, nil)
	if got := describe(diags); !strings.Contains(got, "4:14-4:18: ") || !strings.Contains(got, "true or false") {
		t.Errorf("diagnostics = %s, want one at the value that asks for true or false", got)
	}
}
