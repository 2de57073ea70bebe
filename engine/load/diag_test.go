package load_test

import (
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
)

// TestDiagnosticsOnlyTheRealError checks that one mistake gives one
// diagnostic: the programs that depend on a block with a typo do not get a
// second, wrong error.
func TestDiagnosticsOnlyTheRealError(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must appear
		not  []string // none may appear
	}{
		{
			name: "typo in an arg block",
			src: `tool "t" {
  description = "d"
  arg "city" {
    type = string
    descripton = "typo"
  }
  text = expr("args.city")
}`,
			want: []string{`5:5-5:15: Unsupported argument`},
			not:  []string{"none are declared here", "unknown field", "city"},
		},
		{
			name: "enum value of the wrong type",
			src: `tool "t" {
  description = "d"
  arg "units" {
    type = string
    enum = ["metric", 3]
  }
  text = expr("args.units")
}`,
			want: []string{`5:23-5:24: Enum value does not fit the type: The enum value 3 (element 1) does not fit the argument's type, string`},
		},
		{
			name: "enum of integers",
			src: `tool "t" {
  description = "d"
  arg "n" {
    type = integer
    enum = [1, 2.5]
  }
  text = expr("string(args.n)")
}`,
			want: []string{`5:16-5:19: Enum value does not fit the type: The enum value 2.5 (element 1) does not fit the argument's type, integer`},
		},
		{
			name: "log block: unknown level, and a program over the action's result",
			src: `tool "t" {
  description = "d"
  log {
    level   = "loud"
    message = "x"
  }
  log {
    message = expr("body")
  }
  text = "t"
}`,
			want: []string{`4:15-4:21: Invalid level: level is how severe the message is: one of "debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency", not "loud".`, `8:21-8:22: Invalid expr program: The program "body" does not compile: unknown name body`},
		},
		{
			name: "server log_level",
			src: `server {
  log_level = "chatty"
}`,
			want: []string{`2:15-2:23: Invalid log_level: log_level is the level of the log messages sent to clients that set none: one of "debug", "info", "notice", "warning", "error", "critical", "alert" or "emergency", not "chatty".`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil, nil)
			got := describe(diags)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				for _, line := range strings.Split(got, "\n") {
					if strings.Contains(line, n) && !strings.Contains(line, "Unsupported argument") {
						t.Errorf("spurious %q in:\n%s", n, got)
					}
				}
			}
		})
	}
}

// TestAllErrorsInOneRun checks that validate reports every error it can
// find in one run: a syntax error in one file hides no error of another,
// an unknown block type hides none of the others, and an invalid default
// is reported along with the tool's other errors.
func TestAllErrorsInOneRun(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.hcl", `tool "broken" {
  description = "d"
  text = "unterminated
}
`)
	b := writeFile(t, dir, "b.hcl", `toool "x" {
}

tool "t" {
  description = "d"
  arg "n" {
    type    = integer
    minimum = 10
    default = 1
  }
  text = expr("args.nope")
}
`)
	_, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(fakeAdapter{})}, a, b)
	var got []string
	for _, d := range diags {
		got = append(got, d.Subject.Filename[len(dir)+1:]+": "+d.Summary)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"a.hcl: Unterminated template string",
		"b.hcl: Unsupported block type",
		"b.hcl: Invalid default",
		"b.hcl: Invalid expr program",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
}

// TestDiagnosticColumns: columns count characters as people see them
// (grapheme clusters: an emoji with its skin tone, an e with its combining
// accent, are one each), in a file with CR LF line endings too.
func TestDiagnosticColumns(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		src := strings.Join([]string{`tool "t" {`, `  description = "d"`, "  text = \"\U0001F44D\U0001F3FDe\u0301${nope}\"", `}`}, eol)
		_, diags := loadString(t, src, nil, nil)
		if got := describe(diags); !strings.Contains(got, "3:15-3:19: Unknown variable") {
			t.Errorf("with %q line endings:\n%s\nwant the error at 3:15-3:19", eol, got)
		}
	}
}

// TestErrorsThatFollowFromAnother: a value that failed (a required
// variable without a value, a variable with a typo) is unknown where it is
// used, and what reads it reports nothing more: the cause is the only
// error.
func TestErrorsThatFollowFromAnother(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
		not  []string
	}{
		{
			name: "a required variable without a value, used as a duration",
			src: `variable "wait" {
  type = string
}
tool "t" {
  description = "d"
  timeout     = var.wait
  text        = "t"
}`,
			want: `1:1-1:16: No value for required variable`,
			not:  []string{"Invalid duration"},
		},
		{
			name: "a typo in a variable used as a description",
			src: `variable "desc" {
  type    = string
  defualt = "Says hello."
}
tool "t" {
  description = var.desc
  text        = "t"
}`,
			want: `3:3-3:10: Unsupported argument`,
			not:  []string{"Empty description"},
		},
		{
			name: "a failed local used as a number",
			src: `locals {
  n = nope
}
tool "t" {
  description     = "d"
  max_concurrency = local.n
  text            = "t"
}`,
			want: `2:7-2:11: Unknown variable`,
			not:  []string{"max_concurrency"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil, nil)
			got := describe(diags)
			if !strings.Contains(got, tc.want) {
				t.Errorf("missing %q in:\n%s", tc.want, got)
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("an error that follows from the first, %q, in:\n%s", n, got)
				}
			}
			if len(diags) != 1 {
				t.Errorf("want 1 diagnostic, got %d:\n%s", len(diags), got)
			}
		})
	}
}

// TestUnclosedBlock: a block whose closing brace is missing is reported
// once, at that block (the innermost unclosed one, as the indentation
// shows), and nothing that follows from the syntax error is.
func TestUnclosedBlock(t *testing.T) {
	src := `variable "base" {
  default = "x"
}

tool "one" {
  description = "One."
  arg "a" {
    type = string
  }
  arg "c" {
    type = string

  output "o" {
    type  = string
    value = expr("args.c")
  }
}

tool "two" {
  description = "Two."
  text = "t"
}
`
	_, diags := loadString(t, src, nil, nil)
	got := describe(diags)
	if len(diags) != 1 {
		t.Fatalf("want 1 diagnostic, got %d:\n%s", len(diags), got)
	}
	if !strings.HasPrefix(got, `10:11-10:12: Unclosed configuration block: The block arg "c" has no closing brace`) {
		t.Errorf("want the error at the arg block's brace, 10:11, got:\n%s", got)
	}
}

// TestSyntaxErrorHidesNothingElsewhere: the blocks of a file with a syntax
// error still declare what other files refer to, so that those report no
// error of their own.
func TestSyntaxErrorHidesNothingElsewhere(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.hcl", `variable "greeting" {
  default = "hello"
}

tool "broken" {
  text = "x" +
}
`)
	b := writeFile(t, dir, "b.hcl", `tool "t" {
  description = "d"
  text = var.greeting
}
`)
	_, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(fakeAdapter{})}, a, b)
	got := describe(diags)
	if len(diags) != 1 || diags[0].Subject.Filename != a || diags[0].Summary != "Invalid expression" {
		t.Errorf("want the syntax error in a.hcl alone, got:\n%s", got)
	}
}

// TestUnknownVariableSuggests: a --var for a variable that does not exist
// names the closest one, as every other name error does.
func TestUnknownVariableSuggests(t *testing.T) {
	src := `variable "limit" {
  type    = number
  default = 10
}
tool "t" {
  description = "d"
  text        = "t"
}`
	_, diags := loadString(t, src, nil, map[string]string{"limt": "3"})
	if got := describe(diags); !strings.Contains(got, `Unknown variable: A value was given for variable "limt" with --var, but no variable block declares it. Did you mean "limit"?`) {
		t.Errorf("want a suggestion of limit, got:\n%s", got)
	}
}
