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

	for _, tc := range []struct{ name, src, want string }{
		{"a typo", `toolset "t" { tools = ["issues_lst"] }`, `No tool matches: "issues_lst" names no tool of the configuration. Did you mean "issues_list"?`},
		{"no match", `toolset "t" { tools = ["admin_*"] }`, `"admin_*" names no tool of the configuration. The tools are: issues_get, issues_list.`},
		{"bad pattern", `toolset "t" { tools = ["issues_[a"] }`, `Invalid pattern: "issues_[a" is not a valid pattern`},
		{"empty", `toolset "t" { tools = [] }`, `Invalid tools: tools lists the toolset's tools`},
		{"bad name", `toolset "a/b" { tools = ["issues_get"] }`, `Invalid toolset name: "a/b" is not a valid toolset name: it is served at /mcp/a/b`},
		{"missing tools", `toolset "t" {}`, `Missing required argument: The argument "tools" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tools+tc.src, nil, nil)
			if got := describe(diags); !diags.HasErrors() || !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant one containing:\n%s", got, tc.want)
			}
		})
	}
}
