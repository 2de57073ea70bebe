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
			not:  []string{"declares no arguments", "unknown field", "city"},
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
			want: []string{`4:15-4:21: Invalid log level: level is how severe the message is: one of debug, info, notice, warning, error, critical, alert, emergency.`, `8:21-8:22: Invalid expr program: The program "body" does not compile: unknown name body`},
		},
		{
			name: "server log_level",
			src: `server {
  log_level = "chatty"
}`,
			want: []string{`2:15-2:23: Invalid log_level: log_level is the level of the log messages sent to clients that set none: one of debug, info, notice, warning, error, critical, alert, emergency.`},
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
