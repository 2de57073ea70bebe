package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// TestResultMembersByRevision: a tools/call result carries only what the
// client's revision defines: no structuredContent before 2025-06-18, and
// content blocks of a later revision as text that says what they were.
func TestResultMembersByRevision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	src := `
tool "one" {
  description = "Returns every kind of content."
  output "n" {
    type  = integer
    value = expr("1")
  }
  content "text" {
    text = "hello"
  }
  content "audio" {
    data      = "UklGRg=="
    mime_type = "audio/wav"
  }
  content "resource_link" {
    uri   = "https://example.com/report.pdf"
    name  = "report"
    title = "The report"
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry()}, path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ts := serveFront(t, cfg)
	for _, version := range server.ProtocolVersions() {
		meta := `"name": "one"`
		lines := []string{strings.Replace(initialize, "2025-11-25", version, 1), initialized,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"one"}}`}
		if version >= "2026-07-28" {
			meta = meta2026 + `, "name": "one"`
			lines = []string{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `}}`}
		}
		called, _, _ := answer(t, stdioSession(t, cfg, lines...), "2")
		for what, res := range map[string]map[string]json.RawMessage{
			"stdio": members(t, called),
			"HTTP":  post(t, ts, version, "", "tools/call", meta),
		} {
			if _, ok := res["structuredContent"]; ok != (version >= "2025-06-18") {
				t.Errorf("%s %s: structuredContent present: %v", version, what, ok)
			}
			var content []map[string]any
			if err := json.Unmarshal(res["content"], &content); err != nil || len(content) != 3 {
				t.Fatalf("%s %s: content %s", version, what, res["content"])
			}
			want := []string{"text", "audio", "resource_link"}
			if version < "2025-06-18" {
				want[2] = "text"
			}
			if version < "2025-03-26" {
				want[1] = "text"
			}
			for i, c := range content {
				if c["type"] != want[i] {
					t.Errorf("%s %s: block %d is %v, want %s", version, what, i, c["type"], want[i])
				}
			}
			if version < "2025-06-18" {
				if s, _ := content[2]["text"].(string); !strings.Contains(s, "https://example.com/report.pdf") || !strings.Contains(s, "The report") {
					t.Errorf("%s %s: the link as text is %q", version, what, s)
				}
			}
			if version < "2025-03-26" {
				if s, _ := content[1]["text"].(string); !strings.Contains(s, "audio/wav") {
					t.Errorf("%s %s: the audio as text is %q", version, what, s)
				}
			}
		}
	}
}
