package load_test

import (
	"strings"
	"testing"
)

func TestArgHeader(t *testing.T) {
	cfg, diags := loadString(t, `
tool "t" {
  description = "d"
  arg "region" {
    type   = string
    header = "Region"
  }
  arg "count" {
    type     = integer
    header   = "Count"
    optional = true
  }
  text = expr("args.region")
}
`, nil, nil)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("t")
	props := tool.InputSchema()["properties"].(map[string]any)
	for name, want := range map[string]string{"region": "Region", "count": "Count"} {
		if got := props[name].(map[string]any)["x-mcp-header"]; got != want {
			t.Errorf("%s: x-mcp-header = %v, want %q", name, got, want)
		}
	}

	tests := []struct{ name, arg, want string }{
		{"not a token", `type = string
    header = "Re gion"`, `Invalid header: "Re gion" is not a valid header name`},
		{"not ASCII", `type = string
    header = "Régión"`, `Invalid header`},
		{"empty", `type = string
    header = ""`, `Invalid header: header names the HTTP header`},
		{"a number", `type = number
    header = "N"`, `Header for an argument of this type: Only a string, integer or bool argument can be mirrored in a header; this one's type is number.`},
		{"an object", `type = object({a = string})
    header = "O"`, `Header for an argument of this type`},
		{"sensitive", `type = string
    sensitive = true
    header = "S"`, `Header for a sensitive argument`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, "tool \"t\" {\n  description = \"d\"\n  arg \"a\" {\n    "+tc.arg+"\n  }\n}\n", nil, nil)
			if got := describe(diags); !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics:\n%s\nwant one containing:\n%s", got, tc.want)
			}
		})
	}

	_, diags = loadString(t, `
tool "t" {
  description = "d"
  arg "a" {
    header = "Region"
  }
  arg "b" {
    header = "region"
  }
}
`, nil, nil)
	if got := describe(diags); !strings.Contains(got, `8:14-8:22: Duplicate header: The argument "a" is already mirrored in the header "region"`) {
		t.Errorf("diagnostics:\n%s\nwant a duplicate header", got)
	}
}
