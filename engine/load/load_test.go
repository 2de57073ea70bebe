package load_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// loadString loads src as the one file tools.hcl in a temporary directory,
// with the fake action, and env as the whole environment.
func loadString(t testing.TB, src string, env map[string]string, vars map[string]string) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(fakeAdapter{}), src, enginetest.Options{Vars: vars, LookupEnv: enginetest.MapEnv(env)})
	return cfg, diags
}

// describe renders diagnostics with their ranges.
var describe = enginetest.Describe

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must appear in the diagnostics, in order
	}{
		{
			name: "invalid tool name",
			src:  `tool "a b" { description = "x" }`,
			want: []string{`1:6-1:11: Invalid tool name: "a b" is not a valid tool name`},
		},
		{
			name: "tool name too long",
			src:  `tool "` + strings.Repeat("a", 129) + `" { description = "x" }`,
			want: []string{`Invalid tool name`},
		},
		{
			name: "missing description",
			src:  "tool \"x\" {\n}",
			want: []string{`Missing required argument: The argument "description" is required`},
		},
		{
			name: "empty description",
			src:  `tool "x" { description = "" }`,
			want: []string{`1:26-1:28: Empty description`},
		},
		{
			name: "unknown attribute",
			src:  "tool \"x\" {\n  description = \"d\"\n  colour = 1\n}",
			want: []string{`3:3-3:9: Unsupported argument: An argument named "colour" is not expected here.`},
		},
		{
			name: "unknown block",
			src:  `resources "x" {}`,
			want: []string{`1:1-1:10: Unsupported block type`},
		},
		{
			name: "duplicate tool",
			src:  "tool \"x\" { description = \"a\" }\ntool \"x\" { description = \"b\" }",
			want: []string{`2:6-2:9: Duplicate tool: A tool named "x" is already declared at `},
		},
		{
			name: "expr typo names the column",
			src:  "tool \"x\" {\n  description = \"d\"\n  arg \"city\" {}\n  fake { body = expr(\"args.ctiy\") }\n}",
			want: []string{`4:28-4:29: Invalid expr program: The program "args.ctiy" does not compile: unknown field ctiy`},
		},
		{
			name: "expr before the action cannot read its result",
			src:  "tool \"x\" {\n  description = \"d\"\n  fake { body = expr(\"status\") }\n}",
			want: []string{`Invalid expr program: The program "status" does not compile: unknown name status`},
		},
		{
			name: "expr syntax error",
			src:  "tool \"x\" {\n  description = \"d\"\n  text = expr(\"args.(\")\n}",
			want: []string{`Invalid expr program`},
		},
		{
			name: "two actions",
			src:  "tool \"x\" {\n  description = \"d\"\n  fake {}\n  fake {}\n}",
			want: []string{`4:3-4:7: More than one action: This tool already has a fake action at`},
		},
		{
			name: "output type mismatch",
			src:  "tool \"x\" {\n  description = \"d\"\n  arg \"n\" { type = integer }\n  output \"o\" {\n    type = string\n    value = expr(\"args.n + 1\")\n  }\n}",
			want: []string{`6:13-6:31: Wrong type for output: Output "o" is declared as string, but its value is always an integer.`},
		},
		{
			name: "error_if must be a bool",
			src:  "tool \"x\" {\n  description = \"d\"\n  error_if = expr(\"'yes'\")\n}",
			want: []string{`Wrong type for error_if: error_if must yield a bool, but this yields a string.`},
		},
		{
			name: "required variable without value",
			src:  "variable \"key\" {\n  type = string\n}",
			want: []string{`1:1-1:15: No value for required variable: Variable "key" has no default. Give it a value with --var key=VALUE or the environment variable MCPDECL_VAR_key, or add a default.`},
		},
		{
			name: "default of the wrong type",
			src:  "variable \"n\" {\n  type = number\n  default = \"many\"\n}",
			want: []string{`3:13-3:19: Invalid default value: The default of variable "n" does not fit its type number`},
		},
		{
			name: "reference to an undeclared variable",
			src:  "variable \"a\" {\n  default = 1\n}\ntool \"x\" {\n  description = var.b\n}",
			want: []string{`5:20-5:22: Reference to an undeclared variable: There is no variable named "b". Declared: a.`},
		},
		{
			name: "local cycle",
			src:  "locals {\n  a = local.b\n  b = local.a\n}",
			want: []string{`Cycle in local values: Local value "a" depends on itself`, `Cycle in local values: Local value "b"`},
		},
		{
			name: "bad duration",
			src:  "tool \"x\" {\n  description = \"d\"\n  timeout = \"soon\"\n}",
			want: []string{`3:13-3:19: Invalid duration: "soon" is not a positive duration`},
		},
		{
			name: "default breaks the arg's own constraints",
			src:  "tool \"x\" {\n  description = \"d\"\n  arg \"u\" {\n    enum = [\"a\", \"b\"]\n    default = \"c\"\n  }\n}",
			want: []string{`5:15-5:18: Invalid default: The default does not satisfy the argument's own constraints`},
		},
		{
			name: "constraint that does not apply",
			src:  "tool \"x\" {\n  description = \"d\"\n  arg \"n\" {\n    type = integer\n    min_length = 1\n  }\n}",
			want: []string{`5:5-5:15: Constraint does not apply: min_length does not apply to an argument of type integer.`},
		},
		{
			name: "bad pattern",
			src:  "tool \"x\" {\n  description = \"d\"\n  arg \"s\" { pattern = \"(\" }\n}",
			want: []string{`Invalid pattern: The pattern is not a valid regular expression`},
		},
		{
			name: "expr where a load-time value is needed",
			src:  "tool \"x\" {\n  description = expr(\"args\")\n}",
			want: []string{`2:17-2:29: Program not allowed here`},
		},
		{
			name: "every error at once",
			src:  "tool \"a b\" { description = \"d\" }\ntool \"y\" {\n  description = \"d\"\n  colour = 1\n}\nvariable \"v\" {}",
			want: []string{`Invalid tool name`, `Unsupported argument`, `No value for required variable`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, tt.src, nil, nil)
			if cfg != nil {
				t.Errorf("a configuration was returned despite errors")
			}
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", tt.want)
			}
			got := describe(diags)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("diagnostics do not contain %q (in order)\ngot:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestVariables(t *testing.T) {
	src := `
variable "greeting" {
  default = "hello"
}
variable "n" {
  type    = number
  default = 1
}
variable "token" {
  default   = env("TOKEN", "none")
  sensitive = true
}
locals {
  message = "${var.greeting} x${var.n}"
  shout   = upper(local.message)
}
tool "t" {
  description = "d"
  text        = local.shout
  error_if    = expr("args.fail")
  error_message = expr("'failed with ' + args.echo")
  arg "fail" {
    type    = bool
    default = false
  }
  arg "echo" {
    type    = string
    default = ""
  }
}
`
	tests := []struct {
		name string
		env  map[string]string
		vars map[string]string
		want string
	}{
		{"defaults", nil, nil, "HELLO X1"},
		{"environment", map[string]string{"MCPDECL_VAR_greeting": "hi", "MCPDECL_VAR_n": "2"}, nil, "HI X2"},
		{"flag wins over environment", map[string]string{"MCPDECL_VAR_greeting": "hi"}, map[string]string{"greeting": "hey"}, "HEY X1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadString(t, src, tt.env, tt.vars)
			if diags.HasErrors() {
				t.Fatal(describe(diags))
			}
			tool, _ := cfg.Tool("t")
			res := tool.Call(context.Background(), nil)
			if res.IsError || res.Text() != tt.want {
				t.Errorf("text = %q (error %v), want %q", res.Text(), res.IsError, tt.want)
			}
		})
	}

	t.Run("sensitive values are redacted from errors", func(t *testing.T) {
		cfg, diags := loadString(t, src, map[string]string{"TOKEN": "tok-12345"}, nil)
		if diags.HasErrors() {
			t.Fatal(describe(diags))
		}
		tool, _ := cfg.Tool("t")
		res := tool.Call(context.Background(), json.RawMessage(`{"fail": true, "echo": "tok-12345"}`))
		if !res.IsError || res.Text() != "failed with "+text.Mask {
			t.Errorf("error text = %q, want the token redacted", res.Text())
		}
	})

	t.Run("bad values", func(t *testing.T) {
		_, diags := loadString(t, src, map[string]string{"MCPDECL_VAR_n": "many"}, nil)
		if !strings.Contains(describe(diags), "Invalid value for variable: The value given by the environment variable MCPDECL_VAR_n is not a valid number.") {
			t.Errorf("got %s", describe(diags))
		}
		_, diags = loadString(t, src, nil, map[string]string{"nope": "1"})
		if !strings.Contains(describe(diags), `Unknown variable: A value was given for variable "nope" with --var`) {
			t.Errorf("got %s", describe(diags))
		}
	})
}

func TestFileFunction(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), []byte(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "tools.hcl")
	src := `tool "t" {
  description  = "d"
  input_schema = file("schema.json")
  text         = expr("args.q")
}`
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Load from another working directory: file() is relative to the file.
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(fakeAdapter{})}, name)
	if diags.HasErrors() {
		t.Fatal(describe(diags))
	}
	tool, _ := cfg.Tool("t")
	if res := tool.Call(context.Background(), json.RawMessage(`{"q":"found"}`)); res.Text() != "found" {
		t.Errorf("text = %q", res.Text())
	}
	if res := tool.Call(context.Background(), json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Text(), "q") {
		t.Errorf("missing q: %q", res.Text())
	}
}
