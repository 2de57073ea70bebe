package load_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputSchemasSetting: output_schemas of the server block (full when
// not set) and of a toolset (the server's when not set); any other value
// is a load error at the value, naming the values allowed.
func TestOutputSchemasSetting(t *testing.T) {
	const tool = `
tool "a" {
  description = "d"
  text        = "x"
}
`
	cfg, diags := loadString(t, tool+`
toolset "t" { tools = ["a"] }
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	if got := cfg.Settings.OutputSchemas; got != "full" {
		t.Errorf("default output_schemas = %q, want full", got)
	}
	if ts, _ := cfg.Toolset("t"); ts.OutputSchemas != "" {
		t.Errorf("a toolset without output_schemas has %q, want the server's (empty)", ts.OutputSchemas)
	}

	cfg, diags = loadString(t, `server {
  output_schemas = "compact"
}
`+tool+`
toolset "t" {
  tools          = ["a"]
  output_schemas = "none"
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	if got := cfg.Settings.OutputSchemas; got != "compact" {
		t.Errorf("output_schemas = %q, want compact", got)
	}
	if ts, _ := cfg.Toolset("t"); ts.OutputSchemas != "none" {
		t.Errorf("the toolset's output_schemas = %q, want none", ts.OutputSchemas)
	}

	const allowed = `Invalid output_schemas: output_schemas says what each tool's outputSchema carries in tools/list: one of "full", "compact" or "none", not `
	for _, tc := range []struct{ src, want string }{
		{"server {\n  output_schemas = \"short\"\n}\n" + tool, `2:20-2:27: ` + allowed + `"short".`},
		{"server {\n  output_schemas = 1\n}\n" + tool, `2:20-2:21: ` + allowed + `"1".`},
		{tool + "toolset \"t\" {\n  tools = [\"a\"]\n  output_schemas = \"Full\"\n}\n", `8:20-8:26: ` + allowed + `"Full".`},
	} {
		_, diags := loadString(t, tc.src, nil, nil)
		if got := describe(diags); !strings.Contains(got, tc.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.src, got, tc.want)
		}
		if len(diags) == 0 || diags[0].Subject == nil || filepath.Base(diags[0].Subject.Filename) != "tools.hcl" {
			t.Errorf("%s: the error names no file: %+v", tc.src, diags)
		}
	}
}
