package load_test

import (
	"strings"
	"testing"
)

func TestToolsets(t *testing.T) {
	const tools = `
tool "issues_list" {
  description = "d"
  text        = "x"
}
tool "issues_get" {
  description = "d"
  text        = "x"
  tags        = ["issues", "read"]
}
tool "pulls_get" {
  description = "d"
  text        = "x"
  tags        = ["pulls", "read", "read"]
}
`
	cfg, diags := loadString(t, tools+`
toolset "read" {
  tools = ["issues_*", "issues_get"]
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	ts, ok := cfg.Toolset("read")
	if !ok || strings.Join(ts.Tools, ",") != "issues_get,issues_list" {
		t.Errorf("toolset read = %+v", ts)
	}

	cfg, diags = loadString(t, tools+`
toolset "by_tag" {
  tags = ["read"]
}
toolset "both" {
  tools = ["issues_list"]
  tags  = ["pulls"]
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	for name, want := range map[string]string{"by_tag": "issues_get,pulls_get", "both": "issues_list,pulls_get"} {
		if ts, ok := cfg.Toolset(name); !ok || strings.Join(ts.Tools, ",") != want {
			t.Errorf("toolset %s = %+v, want the tools %s", name, ts, want)
		}
	}

	for _, tc := range []struct{ name, src, want string }{
		{"a typo", `toolset "t" { tools = ["issues_lst"] }`, `No tool matches: "issues_lst" names no tool of the configuration. Did you mean "issues_list"?`},
		{"no match", `toolset "t" { tools = ["admin_*"] }`, `"admin_*" names no tool of the configuration. The tools are: issues_get, issues_list, pulls_get.`},
		{"bad pattern", `toolset "t" { tools = ["issues_[a"] }`, `Invalid pattern: "issues_[a" is not a valid pattern`},
		{"empty", `toolset "t" { tools = [] }`, `Invalid tools: tools lists the toolset's tools`},
		{"bad name", `toolset "a/b" { tools = ["issues_get"] }`, `Invalid toolset name: "a/b" is not a valid toolset name: it is served at /mcp/a/b`},
		{"missing tools", `toolset "t" {}`, `Empty toolset: A toolset selects its tools with tools (names and patterns), tags, or both`},
		{"a tag typo", `toolset "t" { tags = ["reed"] }`, `No tool has this tag: No tool of the configuration has the tag "reed". Did you mean "read"?`},
		{"no such tag", `toolset "t" { tags = ["admin"] }`, `has the tag "admin". The tags are: issues, pulls, read.`},
		{"bad tag", "toolset \"t\" { tags = [\"\"] }", `Invalid tag: The tag "" is empty`},
		{"tags not a list", `toolset "t" { tags = "read" }`, `16:22-16:28: Invalid tags: tags select the tools with any of these tags: a list of strings, not a string.`},
		{"a tool's bad tag", `tool "x" {
  description = "d"
  text        = "x"
  tags        = ["a\u0007"]
}`, `Invalid tag: The tag "a\a" is empty, longer than 128 bytes or holds a control character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tools+tc.src, nil, nil)
			if got := describe(diags); !diags.HasErrors() || !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant one containing:\n%s", got, tc.want)
			}
		})
	}
}
