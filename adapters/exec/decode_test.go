//go:build unix

package execaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	// Each source is the body of an exec block in a tool; the block starts
	// on line 3, so its attributes are on line 4 and after.
	tests := []struct {
		name string
		body string
		want []string // each must appear in the diagnostics, in order
	}{
		{
			name: "missing program",
			body: `command = ["no-such-program-xyz", "a"]`,
			want: []string{`4:16-4:37: Program not found: "no-such-program-xyz" was not found in any directory of PATH (`, `); install it, or write the program's absolute path.`},
		},
		{
			name: "missing absolute program",
			body: `command = ["/no/such/program"]`,
			want: []string{`4:16-4:34: Program not found: The program /no/such/program does not exist.`},
		},
		{
			name: "relative program, relative to the file",
			body: `command = ["./nope.sh"]`,
			want: []string{`4:16-4:27: Program not found: The program `, `/nope.sh does not exist.`},
		},
		{
			name: "program is a directory",
			body: `command = ["/tmp"]`,
			want: []string{`4:16-4:22: Program cannot be run: The program /tmp cannot be run: it is a directory.`},
		},
		{
			name: "expr in command[0]",
			body: `command = [expr("args.x"), "a"]`,
			want: []string{`4:16-4:30: Program must be fixed: command[0], the program to run, is resolved when the configuration loads, so it cannot be an expr(…) program.`},
		},
		{
			name: "empty program",
			body: `command = ["", "a"]`,
			want: []string{`4:16-4:18: Invalid program: command[0] must be the name or path of the program to run; it is empty.`},
		},
		{
			name: "null program",
			body: `command = [null]`,
			want: []string{`4:16-4:20: Invalid program: command[0] must be the name or path of the program to run, a string; got null.`},
		},
		{
			name: "empty command",
			body: `command = []`,
			want: []string{`4:15-4:17: Empty command: command needs at least the program to run`},
		},
		{
			name: "command not a list",
			body: `command = "git status"`,
			want: []string{`4:15-4:27: Invalid command: command must be a list: the program, then its arguments, such as ["git", "status"].`},
		},
		{
			name: "command is a program",
			body: `command = expr("args.x")`,
			want: []string{`4:15-4:29: Invalid command: command must be a list`},
		},
		{
			name: "missing command",
			body: `parse = "text"`,
			want: []string{`Missing required argument: The argument "command" is required`},
		},
		{
			name: "null argument",
			body: `command = ["echo", "a", null]`,
			want: []string{`4:29-4:33: Invalid argument: command[2] yielded null; an argument must be a string, a number, a bool, or a list of them`},
		},
		{
			name: "object argument",
			body: `command = ["echo", { a = 1 }]`,
			want: []string{`4:24-4:33: Invalid argument: command[1] yielded an object;`},
		},
		{
			name: "program yielding an object",
			body: `command = ["echo", expr("{a: args.x}")]`,
			want: []string{`4:24-4:43: Invalid argument: command[1] always yields an object, but an argument must be a string, a number, a bool, or a list of them to splice in.`},
		},
		{
			name: "expr typo in an argument",
			body: `command = ["echo", expr("args.y")]`,
			want: []string{`4:35-4:36: Invalid expr program: The program "args.y" does not compile: unknown field y`},
		},
		{
			name: "bad parse",
			body: "command = [\"echo\"]\n    parse = \"yaml\"",
			want: []string{`5:13-5:19: Invalid parse: parse is how stdout reaches programs: one of "text" (the output as a string, the default), "json" (the output decoded) or "lines" (a list of its lines), not "yaml".`},
		},
		{
			name: "bad log_stderr",
			body: "command = [\"echo\"]\n    log_stderr = \"verbose\"",
			want: []string{`5:18-5:27: Invalid log_stderr: log_stderr is the level at which each line the program writes to stderr is sent to the client as a log message: one of "debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency", not "verbose".`},
		},
		{
			name: "progress without a group",
			body: "command = [\"echo\"]\n    progress = \"\\\\d+%\"",
			want: []string{`5:16-5:23: Invalid progress: progress is a regular expression matching the lines of stdout and stderr that report the program's progress: the pattern needs one group, a percentage such as "(\\d+)%", or two, done and total such as "(\\d+) of (\\d+)"; it has 0.`},
		},
		{
			name: "progress that does not compile",
			body: "command = [\"echo\"]\n    progress = \"(\\\\d+\"",
			want: []string{`5:16-5:23: Invalid progress: progress is a regular expression matching the lines of stdout and stderr that report the program's progress: error parsing regexp: missing closing ): ` + "`(\\d+`."},
		},
		{
			name: "missing dir",
			body: "command = [\"echo\"]\n    dir = \"nope\"",
			want: []string{`5:11-5:17: Invalid dir: The directory `, `/nope does not exist.`},
		},
		{
			name: "dir is a file",
			body: "command = [\"echo\"]\n    dir = \"/etc/passwd\"",
			want: []string{`5:11-5:24: Invalid dir: /etc/passwd is not a directory.`},
		},
		{
			name: "dir is a program",
			body: "command = [\"echo\"]\n    dir = expr(\"args.x\")",
			want: []string{`5:11-5:25: Program not allowed here`},
		},
		{
			name: "env not a map",
			body: "command = [\"echo\"]\n    env = [\"A=1\"]",
			want: []string{`5:11-5:18: Invalid env: env must be a map of variable names to values`},
		},
		{
			name: "env name with =",
			body: "command = [\"echo\"]\n    env = { \"A=B\" = \"1\" }",
			want: []string{`5:13-5:18: Invalid environment variable name: "A=B" cannot name an environment variable`},
		},
		{
			name: "env value a list",
			body: "command = [\"echo\"]\n    env = { A = [1] }",
			want: []string{`5:17-5:20: Invalid environment value: env A yielded a list; an environment value must be a string, a number or a bool (or null, to leave it out).`},
		},
		{
			name: "env value program yielding a list",
			body: "command = [\"echo\"]\n    env = { A = expr(\"[args.x]\") }",
			want: []string{`5:17-5:33: Invalid environment value: env A always yields a list`},
		},
		{
			name: "max_output zero",
			body: "command = [\"echo\"]\n    max_output = 0",
			want: []string{`5:18-5:19: Invalid max_output: max_output is how many bytes of stdout, and of stderr, are kept, such as 1048576 for 1 MiB; a program that writes more is stopped there: a whole number from 1 to 1099511627776, not 0.`},
		},
		{
			name: "bad timeout",
			body: "command = [\"echo\"]\n    timeout = \"soon\"",
			want: []string{`5:15-5:21: Invalid duration: "soon" is not a positive duration`},
		},
		{
			name: "truncate not a bool",
			body: "command = [\"echo\"]\n    truncate = \"maybe\"",
			want: []string{`5:16-5:23: Incorrect value type: This must be true or false; got string.`},
		},
		{
			name: "unknown attribute",
			body: "command = [\"echo\"]\n    shell = true",
			want: []string{`5:5-5:10: Unsupported argument: An argument named "shell" is not expected here.`},
		},
		{
			name: "every error at once",
			body: "command = [\"no-such-program-xyz\"]\n    parse = \"yaml\"\n    dir = \"nope\"",
			want: []string{`4:16-4:37: Program not found`, `5:13-5:19: Invalid parse`, `6:11-6:17: Invalid dir`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "tool \"t\" {\n  description = \"d\"\n  exec {\n    " + tt.body + "\n  }\n  arg \"x\" { type = string }\n}\n"
			cfg, _, diags := loadString(t, src)
			if cfg != nil || !diags.HasErrors() {
				t.Fatalf("loaded without errors:\n%s", describeDiags(diags))
			}
			got := describeDiags(diags)
			t.Log(got)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("diagnostics do not contain %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestLoadComputedCommand(t *testing.T) {
	// command may come from a variable; its arguments may not be programs
	// there, but literals are fine.
	cfg, _ := mustLoad(t, `
variable "cmd" {
  default = ["echo", "from", "var", 1, true]
}
locals {
  extra = ["a", "b"]
}
tool "var" {
  description = "d"
  exec { command = var.cmd }
}
tool "concat" {
  description = "d"
  exec { command = concat(["echo"], local.extra) }
}
tool "splice" {
  description = "d"
  exec { command = ["echo", local.extra, "c"] }
}
`)
	for tool, want := range map[string]string{"var": "from var 1 true\n", "concat": "a b\n", "splice": "a b c\n"} {
		res := call(t, cfg, tool, `{}`)
		mustSucceed(t, res)
		if res.Text() != want {
			t.Errorf("%s: %q, want %q", tool, res.Text(), want)
		}
	}

	_, _, diags := loadString(t, `
variable "cmd" {
  default = ["no-such-program-xyz"]
}
tool "var" {
  description = "d"
  exec { command = var.cmd }
}
`)
	if got := describeDiags(diags); !strings.Contains(got, `7:20-7:27: Program not found`) {
		t.Errorf("diagnostics:\n%s", got)
	}
}

func TestLoadBrokenReference(t *testing.T) {
	// A reference to an undeclared variable is reported once, by the
	// loader, and the exec block adds nothing.
	_, _, diags := loadString(t, `
tool "t" {
  description = "d"
  exec {
    command = ["echo", var.nope]
    env     = { A = var.nope }
  }
}
`)
	if !diags.HasErrors() {
		t.Fatal("no error")
	}
	for _, d := range diags {
		if d.Summary != "Reference to an undeclared variable" && !strings.Contains(d.Summary, "Unknown variable") {
			t.Errorf("unexpected diagnostic: %s: %s", d.Summary, d.Detail)
		}
	}
}

func TestLoadRelativeDirAndProgram(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\npwd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(name, []byte("tool \"t\" {\n  description = \"d\"\n  exec { command = [\"./run.sh\"] }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := loadFile(t, name)
	want := "3:21-3:31: Program cannot be run: The program " + filepath.Join(dir, "run.sh") + " cannot be run: it is not executable."
	if got := describeDiags(diags); !strings.Contains(got, want) {
		t.Errorf("diagnostics:\n%s\nwant %s", got, want)
	}
}
