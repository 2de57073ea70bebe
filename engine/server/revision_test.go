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

// TestInputDefsByRevision: a tool whose arguments refer to its defs lists
// them under $defs for clients of 2025-11-25 and later, and written in
// place (a recursive one cut where it recurs) for older clients; calls are
// validated against the whole schema, nested fields included.
func TestInputDefsByRevision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.hcl")
	src := `
locals {
  defs = {
    Pet = {
      type       = "object"
      required   = ["name", "kind"]
      properties = {
        name  = { type = "string", minLength = 1 }
        kind  = { "$ref" = "#/$defs/Kind" }
        owner = { "$ref" = "#/$defs/Person" }
      }
    }
    Kind   = { type = "string", enum = ["cat", "dog"] }
    Person = {
      type       = "object"
      properties = {
        name    = { type = "string" }
        friends = { type = "array", items = { "$ref" = "#/$defs/Person" } }
      }
    }
    Unused = { type = "string", description = "Not reached by the tool." }
  }
}

tool "one" {
  description = "Adds a pet."
  defs        = local.defs
  arg "pet" {
    schema = { "$ref" = "#/$defs/Pet" }
  }
  arg "others" {
    schema   = { type = "array", items = { "$ref" = "#/$defs/Pet" } }
    optional = true
  }
  text = expr("args.pet.kind")
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
		meta := ""
		if version >= "2026-07-28" {
			meta = meta2026
		}
		var list struct {
			Tools []struct{ InputSchema map[string]any }
		}
		raw, _ := json.Marshal(post(t, ts, version, "", "tools/list", meta))
		if err := json.Unmarshal(raw, &list); err != nil || len(list.Tools) != 1 {
			t.Fatalf("%s: tools/list %s", version, raw)
		}
		in := list.Tools[0].InputSchema
		text, _ := json.Marshal(in)
		if version >= "2025-11-25" {
			defs, _ := in["$defs"].(map[string]any)
			if len(defs) != 3 || defs["Unused"] != nil || !strings.Contains(string(text), `"$ref":"#/$defs/Pet"`) {
				t.Errorf("%s: the input schema lists %s", version, text)
			}
		} else {
			props, _ := in["properties"].(map[string]any)
			pet, _ := props["pet"].(map[string]any)
			petProps, _ := pet["properties"].(map[string]any)
			kind, _ := petProps["kind"].(map[string]any)
			if strings.Contains(string(text), "$ref") || strings.Contains(string(text), "$defs") || kind["enum"] == nil ||
				!strings.Contains(string(text), "recursive") {
				t.Errorf("%s: the inlined input schema is %s", version, text)
			}
		}
		for args, want := range map[string]string{
			`{"pet": {"name": "Rex", "kind": "dog", "owner": {"name": "Ann", "friends": [{"name": "Bo"}]}}}`: `"text":"dog"`,
			`{"pet": {"name": "Rex", "kind": "cow"}}`:                                                        `/pet/kind`,
			`{"pet": {"name": "Rex", "kind": "cat", "owner": {"friends": [{"name": 3}]}}}`:                   `/pet/owner/friends/0/name`,
			`{"pet": {"name": "Rex", "kind": "cat"}, "others": [{"name": ""}]}`:                              `/others/0`,
		} {
			params := `"name": "one", "arguments": ` + args
			if meta != "" {
				params = meta + ", " + params
			}
			res, _ := json.Marshal(post(t, ts, version, "", "tools/call", params))
			if !strings.Contains(string(res), want) {
				t.Errorf("%s: calling with %s: %s, want %s in it", version, args, res, want)
			}
		}
	}
}
