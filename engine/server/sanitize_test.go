package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// hostileJSON is what a hostile upstream answers: JSON whose strings, and
// one key, hold a window title (OSC 0 ended by BEL), a hyperlink (OSC 8
// ended by ST), colours, NUL and 8-bit C1 controls, as JSON escapes.
const hostileJSON = `{"name":"Paris\u001b]0;pwned\u0007","link":"\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\",` +
	`"nested":{"k\u001b[31m":["a\u0000b","c\u009b2Jd","e\u009d0;t\u009cf"]},"fine":"été\n\t🎉"}`

// hostileTools declares, for one action, tools that clean their results
// and tools with sanitize = false.
const hostileTools = `
tool "%[1]s" {
  description = "Cleaned."
  %[2]s
  output "name" {
    type  = string
    value = expr("%[3]s.name")
  }
  output "link" {
    type  = string
    value = expr("%[3]s.link")
  }
  output "nested" {
    type  = any
    value = expr("%[3]s.nested")
  }
  output "fine" {
    type  = string
    value = expr("%[3]s.fine")
  }
}

tool "%[1]s_link" {
  description = "A resource link named by the upstream."
  %[2]s
  content "resource_link" {
    uri         = "https://example.com/r"
    name        = expr("%[3]s.name")
    title       = expr("%[3]s.link")
    description = expr("values(%[3]s.nested)[0][1]")
  }
  content "resource" {
    uri       = "https://example.com/e"
    mime_type = "text/plain"
    text      = expr("%[3]s.name")
  }
}

tool "%[1]s_error" {
  description = "An error worded by the upstream."
  %[2]s
  error_if      = expr("true")
  error_message = expr("%[3]s.name")
}

tool "%[1]s_text" {
  description = "Texts written as the JSON of values."
  %[2]s
  text = expr("%[3]s.nested")
}

tool "%[1]s_content_text" {
  description = "A content block written as the JSON of a value."
  %[2]s
  content "text" {
    text = expr("%[3]s.nested")
  }
}

tool "%[1]s_json_error" {
  description = "An error written as the JSON of a value."
  %[2]s
  error_if      = expr("true")
  error_message = expr("%[3]s.nested")
}

tool "%[1]s_raw" {
  description = "Not cleaned."
  sanitize    = false
  %[2]s
  output "name" {
    type  = string
    value = expr("%[3]s.name")
  }
  output "nested" {
    type  = any
    value = expr("%[3]s.nested")
  }
}

tool "%[1]s_raw_link" {
  description = "A resource link, not cleaned."
  sanitize    = false
  %[2]s
  content "resource_link" {
    uri   = "https://example.com/r"
    name  = expr("%[3]s.name")
    title = expr("%[3]s.link")
  }
}

tool "%[1]s_raw_error" {
  description = "Errors are cleaned all the same."
  sanitize    = false
  %[2]s
  error_if      = expr("true")
  error_message = expr("%[3]s.name")
}
`

// controlIn returns the first terminal control character in s: C0 but
// newline and tab, DEL, C1.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return r, true
		}
	}
	return 0, false
}

// controls lists where v, as a client decoded it, holds a control
// character: in a string or in a key.
func controls(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if r, ok := controlIn(x); ok {
			out = append(out, fmt.Sprintf("%s: %U in %q", path, r, x))
		}
	case []any:
		for i, e := range x {
			out = append(out, controls(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case map[string]any:
		for k, e := range x {
			if r, ok := controlIn(k); ok {
				out = append(out, fmt.Sprintf("%s: %U in the key %q", path, r, k))
			}
			out = append(out, controls(e, path+"."+k)...)
		}
	}
	return out
}

// asClientSees decodes the JSON of a whole tools/call result, as a client
// would, for controls to walk: every text, name, title and structured value.
func asClientSees(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUpstreamControlsAreCleaned(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(hostileJSON))
	}))
	defer up.Close()
	dir := t.TempDir()
	// The program prints the same JSON; printf's %s leaves its
	// backslashes alone.
	execAction := `exec {
    command = ["printf", "%s", ` + hclQuote(hostileJSON) + `]
    parse   = "json"
  }`
	httpAction := `http {
    url = "` + up.URL + `/"
  }`
	src := fmt.Sprintf(hostileTools, "up", httpAction, "body") + fmt.Sprintf(hostileTools, "prog", execAction, "stdout")
	path := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(httpaction.New(), execaction.New())}, path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	t.Cleanup(func() { _ = cfg.Close() })
	cs := connect(t, cfg)
	call := func(t *testing.T, name string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	firstText := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}

	for _, prefix := range []string{"up", "prog"} {
		t.Run(prefix, func(t *testing.T) {
			t.Run("structured content and its text", func(t *testing.T) {
				res := call(t, prefix)
				if res.IsError {
					t.Fatalf("tool error: %s", firstText(res))
				}
				for _, c := range controls(asClientSees(t, res), "result") {
					t.Error(c)
				}
				want := map[string]any{
					"name":   "Paris",
					"link":   "click",
					"nested": map[string]any{"k": []any{"ab", "cd", "ef"}},
					"fine":   "été\n\t🎉",
				}
				got, _ := json.Marshal(res.StructuredContent)
				wantJSON, _ := json.Marshal(want)
				if string(got) != string(wantJSON) {
					t.Errorf("structuredContent = %s, want %s", got, wantJSON)
				}
				// The text block is the JSON of the structured content:
				// no \u001b escapes either.
				if s := firstText(res); strings.Contains(s, `\u00`) || s != string(wantJSON) {
					t.Errorf("text = %s, want %s", s, wantJSON)
				}
			})
			t.Run("resource link and embedded resource", func(t *testing.T) {
				res := call(t, prefix+"_link")
				for _, c := range controls(asClientSees(t, res), "result") {
					t.Error(c)
				}
				link, ok := res.Content[0].(*mcp.ResourceLink)
				if !ok || link.Name != "Paris" || link.Title != "click" || link.Description != "cd" {
					t.Errorf("resource link = %+v, want Paris, click, cd", res.Content[0])
				}
			})
			t.Run("tool error", func(t *testing.T) {
				res := call(t, prefix+"_error")
				if !res.IsError || firstText(res) != "Paris" {
					t.Errorf("error = %v %q, want the cleaned Paris", res.IsError, firstText(res))
				}
			})
			t.Run("texts written as JSON", func(t *testing.T) {
				// Once in JSON, ESC is the six characters \u001b, which
				// cleaning the text cannot see: the value is cleaned first.
				const want = `{"k":["ab","cd","ef"]}`
				for _, name := range []string{"_text", "_content_text", "_json_error"} {
					if got := firstText(call(t, prefix+name)); got != want {
						t.Errorf("%s: text = %s, want %s", name, got, want)
					}
				}
			})
			t.Run("sanitize = false keeps the result raw", func(t *testing.T) {
				res := call(t, prefix+"_raw")
				if res.IsError {
					t.Fatalf("tool error: %s", firstText(res))
				}
				sc := res.StructuredContent.(map[string]any)
				if sc["name"] != "Paris\x1b]0;pwned\x07" {
					t.Errorf("name = %q, want it raw", sc["name"])
				}
				if _, ok := sc["nested"].(map[string]any)["k\x1b[31m"]; !ok {
					t.Errorf("nested = %q, want its key raw", sc["nested"])
				}
				if s := firstText(res); !strings.Contains(s, `Paris\u001b]0;pwned\u0007`) {
					t.Errorf("text = %s, want the raw escapes", s)
				}
				res = call(t, prefix+"_raw_link")
				if link := res.Content[0].(*mcp.ResourceLink); link.Name != "Paris\x1b]0;pwned\x07" {
					t.Errorf("resource link name = %q, want it raw", link.Name)
				}
			})
			t.Run("sanitize = false still cleans errors", func(t *testing.T) {
				res := call(t, prefix+"_raw_error")
				if !res.IsError || firstText(res) != "Paris" {
					t.Errorf("error = %v %q, want the cleaned Paris", res.IsError, firstText(res))
				}
			})
		})
	}
}

// hclQuote writes s as an HCL string: quoted, with backslashes and
// quotes escaped, and ${ and %{ kept from being templates.
func hclQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "${", "$${")
	return `"` + s + `"`
}
