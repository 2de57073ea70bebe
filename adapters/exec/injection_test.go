//go:build unix

package execaction

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// argvDumpEnv names the file into which this test binary, started as the
// program of a tool, writes the arguments it received (as JSON) and exits:
// a program that is not a shell and reports its argv byte for byte.
const argvDumpEnv = "MCPDECL_TEST_ARGV_DUMP"

func init() {
	if out := os.Getenv(argvDumpEnv); out != "" {
		b, err := json.Marshal(os.Args[1:])
		if err == nil {
			err = os.WriteFile(out, b, 0o600)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println("dumped")
		os.Exit(0)
	}
}

// TestArgumentsAreNeverShellCode calls tools whose argv is built from the
// arguments with values a shell would act on. Each reaches the program as
// exactly one literal argument (checked byte for byte by a helper that is
// not a shell, and through printf), no shell runs (none of the files the
// values would create or delete is touched), and a NUL byte, which no
// argument can carry, is a clear tool error that starts no program.
func TestArgumentsAreNeverShellCode(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	sandbox := t.TempDir() // what the hostile values aim at
	victim := filepath.Join(sandbox, "victim")
	if err := os.WriteFile(victim, []byte("still here"), 0o600); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "argv.json")
	cfg, _ := mustLoad(t, fmt.Sprintf(`
tool "dump" {
  description = "Reports its argv."
  arg "v" { type = string }
  arg "more" {
    type    = list(string)
    default = []
  }
  exec {
    command = [%s, "fixed", expr("args.v"), expr("args.more"), "--", expr("args.v")]
    env     = { %s = %s }
  }
}
tool "printf" {
  description = "Prints its one argument."
  arg "v" { type = string }
  exec {
    command = ["printf", "%%s\n", expr("args.v")]
  }
}
`, hclString(self), argvDumpEnv, hclString(dump)))

	in := func(name string) string { return filepath.Join(sandbox, name) }
	hostile := []string{
		"; rm -rf " + victim,
		"; touch " + in("semicolon"),
		"$(touch " + in("dollar") + ")",
		"`touch " + in("backtick") + "`",
		"| touch " + in("pipe"),
		"| cat /etc/passwd",
		"&& touch " + in("and"),
		"|| touch " + in("or"),
		"> " + in("redirect"),
		"x > " + in("redirect2") + " 2>&1",
		"--output=" + in("output"),
		"-o" + in("dash-o"),
		"\ntouch " + in("newline"),
		"a\nb",
		"a\rb",
		"\ttab",
		"${IFS}touch${IFS}" + in("ifs"),
		"$PATH",
		"'; touch " + in("quote") + "; '",
		`"; touch ` + in("dquote") + `; "`,
		"*",
		in("*"),
		"~",
		"",
		" ",
		"-",
		"--",
		"été 🎉 日本語",
		"\x1b[31mred",
		strings.Repeat("$(x)", 10000),
	}
	read := func(t *testing.T) ([]string, bool) {
		t.Helper()
		b, err := os.ReadFile(dump)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		var argv []string
		if err := json.Unmarshal(b, &argv); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return argv, true
	}
	for i, h := range hostile {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_ = os.Remove(dump)
			args, _ := json.Marshal(map[string]any{"v": h, "more": []string{h, "-x", h}})
			res := call(t, cfg, "dump", string(args))
			mustSucceed(t, res)
			argv, ok := read(t)
			if !ok {
				t.Fatal("the program did not run")
			}
			if want := []string{"fixed", h, h, "-x", h, "--", h}; !slices.Equal(argv, want) {
				t.Errorf("the program received %q, want %q", argv, want)
			}

			args, _ = json.Marshal(map[string]any{"v": h})
			res = call(t, cfg, "printf", string(args))
			mustSucceed(t, res)
			if want := text.Sanitize([]byte(h + "\n")); res.Text() != want {
				t.Errorf("printf printed %q, want %q", res.Text(), want)
			}
		})
	}

	// A NUL byte cannot be an argument: a tool error that says so, and no
	// program starts.
	for _, args := range []string{
		`{"v": "a\u0000b"}`,
		`{"v": "\u0000"}`,
		`{"v": "ok", "more": ["fine", "; rm -rf /\u0000"]}`,
	} {
		_ = os.Remove(dump)
		res := call(t, cfg, "dump", args)
		mustFail(t, res, "NUL byte", "which no argument can carry")
		if argv, ok := read(t); ok {
			t.Errorf("%s: the program ran with %q", args, argv)
		}
	}

	// Nothing ran that a shell would have run.
	entries, err := os.ReadDir(sandbox)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"victim"}) {
		t.Errorf("the sandbox holds %q, want only the victim: a shell ran", names)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "still here" {
		t.Errorf("the victim is gone or changed: %q, %v", b, err)
	}
}
