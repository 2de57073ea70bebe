//go:build unix

package execaction

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/text"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// sh is a tool running a shell script as the program under test; the
// script is the test's fixture, the adapter never uses a shell.
func sh(name, script, extra string) string {
	return fmt.Sprintf(`
tool %q {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", %s]
    %s
  }
}
`, name, hclString(script), extra)
}

// argvScript prints each of its arguments in brackets, one a line: the
// fixture that shows what argv a program received.
const argvScript = `printf '[%s]\n' "$@"`

// bracketed is what argvScript prints for args.
func bracketed(args ...string) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString("[" + a + "]\n")
	}
	return b.String()
}

func TestArgvIsLiteral(t *testing.T) {
	src := `
tool "argv" {
  description = "d"
  arg "one" { type = string }
  arg "many" { type = list(string) }
  arg "n" { type = integer }
  arg "f" { type = number }
  arg "b" { type = bool }
  exec {
    command = ["/bin/sh", "-c", ` + hclString(argvScript) + `, "sh", "fixed", expr("args.one"), expr("args.many"), expr("args.n"), expr("args.f"), expr("args.b"), expr("args.b ? ['-v'] : []"), 7, ["x", 2]]
  }
}

tool "printf" {
  description = "d"
  arg "one" { type = string }
  exec {
    command = ["printf", "%s\n", expr("args.one")]
  }
}
`
	cfg, _ := mustLoad(t, src)

	hostile := []string{
		"; rm -rf / #",
		"$(id)",
		"`id`",
		"a\nb",
		"-rf",
		"--help",
		"",
		"'quoted' \"double\"",
		"* ? [a-z]",
		"~",
		"| cat /etc/passwd",
		"&& echo pwned",
		"$HOME ${PATH}",
		"été 🎉",
		"\\",
	}
	for _, h := range hostile {
		t.Run(fmt.Sprintf("%q", h), func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"one": h, "many": []string{h, "-x", h}, "n": 42, "f": 2.5, "b": true})
			res := call(t, cfg, "argv", string(args))
			mustSucceed(t, res)
			if want := bracketed("fixed", h, h, "-x", h, "42", "2.5", "true", "-v", "7", "x", "2"); res.Text() != want {
				t.Errorf("argv printed\n%s\nwant\n%s", res.Text(), want)
			}

			// The same through printf, which prints its one argument.
			args, _ = json.Marshal(map[string]any{"one": h})
			res = call(t, cfg, "printf", string(args))
			mustSucceed(t, res)
			if want := text.Sanitize([]byte(h + "\n")); res.Text() != want {
				t.Errorf("printf printed %q, want %q", res.Text(), want)
			}
		})
	}

	// false splices in nothing.
	res := call(t, cfg, "argv", `{"one": "a", "many": [], "n": -1, "f": 0.1, "b": false}`)
	mustSucceed(t, res)
	if want := bracketed("fixed", "a", "-1", "0.1", "false", "7", "x", "2"); res.Text() != want {
		t.Errorf("argv printed\n%s\nwant\n%s", res.Text(), want)
	}
}

func TestArgvErrors(t *testing.T) {
	cfg, _ := mustLoad(t, `
tool "argv" {
  description = "d"
  arg "v" {
    type     = any
    optional = true
  }
  exec {
    command = ["true", "x", expr("args.v")]
  }
}
`)
	tests := []struct{ args, want string }{
		{`{"v": null}`, "command[2] (/"},
		{`{"v": null}`, "tools.hcl:9) yielded null"},
		{`{}`, "yielded null"},
		{`{"v": {"a": 1}}`, "tools.hcl:9) yielded an object"},
		{`{"v": ["a", null]}`, "yielded a list whose element 1 is null"},
		{`{"v": ["a", ["b"]]}`, "yielded a list whose element 1 is a list"},
		{`{"v": "a\u0000b"}`, "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := call(t, cfg, "argv", tt.args)
			mustFail(t, res, tt.want)
		})
	}
}

// envList reads the output of env: the environment, sorted.
func envList(out string) []string {
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	slices.Sort(got)
	return got
}

func TestEnvIsolation(t *testing.T) {
	t.Setenv("EXEC_TEST_SECRET", "hunter2-secret")
	t.Setenv("EXEC_TEST_OVERRIDE", "server")
	src := `
variable "token" {
  default   = "t0ken-value"
  sensitive = true
}
tool "isolated" {
  description = "d"
  arg "x" {
    type     = string
    optional = true
  }
  exec {
    command = ["env"]
    env = {
      FOO = "bar"
      NUM = 3
      TOKEN = var.token
      FROM_ARG = expr("args.x")
    }
  }
}
tool "inherited" {
  description = "d"
  exec {
    command     = ["env"]
    inherit_env = true
    env = {
      EXEC_TEST_OVERRIDE = "config"
    }
  }
}
tool "path" {
  description = "d"
  exec {
    command = ["env"]
    env = {
      PATH = "/opt/bin"
    }
  }
}
tool "leak" {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", "echo \"token is $TOKEN\" >&2; exit 1"]
    env     = { TOKEN = var.token }
  }
}
`
	cfg, _ := mustLoad(t, src)

	res := call(t, cfg, "isolated", `{"x": "from-arg"}`)
	mustSucceed(t, res)
	got := envList(res.Text())
	// The program got the token; the result shows it redacted, as every
	// result does with the values of sensitive variables.
	want := []string{"FOO=bar", "FROM_ARG=from-arg", "NUM=3", "PATH=" + os.Getenv("PATH"), "TOKEN=(sensitive)"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("env = %q, want %q", got, want)
	}

	// An expr yielding null leaves the variable out.
	res = call(t, cfg, "isolated", `{}`)
	mustSucceed(t, res)
	if got := envList(res.Text()); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "FROM_ARG=") }) {
		t.Errorf("FROM_ARG is set: %q", got)
	}

	res = call(t, cfg, "inherited", `{}`)
	mustSucceed(t, res)
	got = envList(res.Text())
	for _, w := range []string{"EXEC_TEST_SECRET=hunter2-secret", "EXEC_TEST_OVERRIDE=config", "PATH=" + os.Getenv("PATH")} {
		if !slices.Contains(got, w) {
			t.Errorf("inherited env lacks %q", w)
		}
	}
	if slices.Contains(got, "EXEC_TEST_OVERRIDE=server") {
		t.Errorf("env did not win over the inherited value")
	}

	res = call(t, cfg, "path", `{}`)
	mustSucceed(t, res)
	if got := envList(res.Text()); !slices.Equal(got, []string{"PATH=/opt/bin"}) {
		t.Errorf("env = %q", got)
	}

	// A secret echoed by the program is redacted from the error.
	res = call(t, cfg, "leak", `{}`)
	mustFail(t, res, "token is (sensitive)")
	if strings.Contains(res.Text(), "t0ken-value") {
		t.Errorf("the secret leaked: %s", res.Text())
	}
}

func TestEnvErrorsHideValues(t *testing.T) {
	cfg, _ := mustLoad(t, `
tool "bad" {
  description = "d"
  arg "v" { type = any }
  exec {
    command = ["true"]
    env     = { SECRET = expr("args.v") }
  }
}
`)
	res := call(t, cfg, "bad", `{"v": {"password": "pa55word-xyz"}}`)
	mustFail(t, res, "tools.hcl:7) yielded an object", "env SECRET (")
	if strings.Contains(res.Text(), "pa55word") {
		t.Errorf("the value leaked: %s", res.Text())
	}
	res = call(t, cfg, "bad", `{"v": "a\u0000b"}`)
	mustFail(t, res, "env SECRET", "NUL byte")
}

func TestStdin(t *testing.T) {
	src := `
tool "echo" {
  description = "d"
  arg "in" { type = any }
  exec {
    command = ["cat"]
    stdin   = expr("args.in")
  }
}
tool "fixed" {
  description = "d"
  exec {
    command = ["cat"]
    stdin   = { a = [1, 2.5, "x<y"], b = null }
  }
}
tool "none" {
  description = "d"
  exec {
    command = ["cat"]
  }
}
`
	cfg, _ := mustLoad(t, src)
	tests := []struct{ tool, args, want string }{
		{"echo", `{"in": "as is\nno newline at the end"}`, "as is\nno newline at the end"},
		{"echo", `{"in": ""}`, ""},
		{"echo", `{"in": null}`, ""},
		{"echo", `{"in": {"b": [1, true], "a": "x&y"}}`, "{\"a\":\"x&y\",\"b\":[1,true]}\n"},
		{"echo", `{"in": 12}`, "12\n"},
		{"fixed", `{}`, "{\"a\":[1,2.5,\"x<y\"],\"b\":null}\n"},
		{"none", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			res := call(t, cfg, tt.tool, tt.args)
			mustSucceed(t, res)
			if res.Text() != tt.want {
				t.Errorf("stdout = %q, want %q", res.Text(), tt.want)
			}
		})
	}
}

func TestLargeStdin(t *testing.T) {
	// More than a pipe holds, to a program that reads none of it: the call
	// must still end.
	cfg, _ := mustLoad(t, `
tool "ignore" {
  description = "d"
  arg "in" { type = string }
  exec {
    command      = ["true"]
    stdin        = expr("args.in")
    kill_timeout = "1h" # a call that waited on the unread input would last it
  }
}
`)
	big, _ := json.Marshal(map[string]string{"in": strings.Repeat("x", 1000000)})
	mustSucceed(t, call(t, cfg, "ignore", string(big)))
}

func TestParse(t *testing.T) {
	out := func(name, parse, script string) string {
		return fmt.Sprintf(`
tool %q {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", %s]
    parse   = %q
  }
  error_if = expr("false")
  output "stdout" { value = expr("stdout") }
  output "type" { value = expr("type(stdout)") }
}
`, name, hclString(script), parse)
	}
	src := out("text", "text", `printf 'a\nb\n'`) +
		out("lines", "lines", `printf 'a\nb\n'`) +
		out("lines_no_eol", "lines", `printf 'a\n\nb'`) +
		out("lines_crlf", "lines", `printf 'a\r\nb\r\n'`) +
		out("lines_empty", "lines", `true`) +
		out("lines_one_eol", "lines", `echo`) +
		out("json", "json", `echo '{"n": 3, "f": 2.5, "big": 12345678901234567, "e": 1e3, "s": "\u001b[31mx", "l": [true, null]}'`) +
		out("json_scalar", "json", `echo ' "hi" '`) +
		out("json_failed", "json", `echo 'not json'; exit 2`) +
		sh("json_bad", `printf '{"a": [1, 2,\n "b": tru}'`, `parse = "json"`) +
		sh("json_empty", `true`, `parse = "json"`) +
		sh("json_two", `echo '{} {}'`, `parse = "json"`) +
		sh("json_cut", `echo '{"a": "abcdefghijklmnopqrstuvwxyz"}'`, `parse = "json"
    max_output = 10
    truncate = true`)
	cfg, _ := mustLoad(t, src)

	tests := []struct{ tool, want string }{
		{"text", `{"stdout":"a\nb\n","type":"string"}`},
		{"lines", `{"stdout":["a","b"],"type":"array"}`},
		{"lines_no_eol", `{"stdout":["a","","b"],"type":"array"}`},
		{"lines_crlf", `{"stdout":["a","b"],"type":"array"}`},
		{"lines_empty", `{"stdout":[],"type":"array"}`},
		{"lines_one_eol", `{"stdout":[""],"type":"array"}`},
		// The escape decoded from the JSON is cleaned from the structured
		// content, as from text.
		{"json", `{"stdout":{"big":12345678901234567,"e":1000,"f":2.5,"l":[true,null],"n":3,"s":"x"},"type":"map"}`},
		{"json_scalar", `{"stdout":"hi","type":"string"}`},
		{"json_failed", `{"stdout":"not json\n","type":"string"}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, cfg, tt.tool, `{}`)
			mustSucceed(t, res)
			if got := structured(t, res); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}

	// The exact types programs see.
	res := call(t, cfg, "json", `{}`)
	obj := res.Structured["stdout"].(map[string]any)
	for k, want := range map[string]any{"n": 3, "f": 2.5, "big": 12345678901234567, "e": 1000} {
		if !reflect.DeepEqual(obj[k], want) {
			t.Errorf("%s = %#v, want %#v", k, obj[k], want)
		}
	}

	mustFail(t, call(t, cfg, "json_bad", `{}`),
		`command /bin/sh printed invalid JSON on stdout (parse = "json"): invalid character ':' after array element at byte 18, after: "{\"a\": [1, 2,\n \"b\":"`)
	mustFail(t, call(t, cfg, "json_empty", `{}`), `printed invalid JSON on stdout (parse = "json"): it printed nothing`)
	mustFail(t, call(t, cfg, "json_two", `{}`), "there is more than one JSON value, or text after it at byte 4")
	mustFail(t, call(t, cfg, "json_cut", `{}`), "the JSON value is cut short at byte 10", "cut at 10 bytes (max_output, with truncate = true)")
}

func TestMaxOutput(t *testing.T) {
	big := `head -c 1048577 /dev/zero | tr '\0' a`
	src := sh("default", big, "") +
		sh("stderr", big+" >&2", "") +
		sh("stopped", big+"; echo never >&2; exit 3", "") +
		sh("small", `echo 12345678901; echo abcdefghijk >&2`, "max_output = 10") +
		sh("exact", `printf 1234567890`, "max_output = 10") +
		sh("cut", `echo 12345678901; echo abcdefghijk >&2`, "max_output = 10\n truncate = true") +
		sh("cut_rune", `printf 'aaaaaaaaé'`, "max_output = 9\n truncate = true") +
		`
tool "vars" {
  description = "d"
  exec {
    command    = ["/bin/sh", "-c", "printf abcdefghij >&2; echo 12345678901; exit 3"]
    max_output = 10
    truncate   = true
  }
  output "exit_code" { value = expr("exit_code") }
  output "stdout" { value = expr("stdout") }
  output "stderr" { value = expr("stderr") }
  output "truncated" { value = expr("truncated") }
}
tool "not_cut" {
  description = "d"
  exec {
    command    = ["/bin/sh", "-c", "echo 123"]
    max_output = 10
    truncate   = true
  }
  output "truncated" { value = expr("truncated") }
}
`
	cfg, _ := mustLoad(t, src)
	mustFail(t, call(t, cfg, "default", `{}`),
		"command /bin/sh wrote more than 1048576 bytes to stdout, the limit of max_output, and was stopped; raise max_output, or set truncate = true to keep the first 1048576 bytes")
	mustFail(t, call(t, cfg, "stderr", `{}`), "wrote more than 1048576 bytes to stderr, the limit of max_output, and was stopped")
	// Stopped at the limit: the rest of the script never runs.
	res := call(t, cfg, "stopped", `{}`)
	mustFail(t, res, "wrote more than 1048576 bytes to stdout, the limit of max_output, and was stopped")
	if strings.Contains(res.Text(), "exit") || strings.Contains(res.Text(), "never") {
		t.Errorf("the program went on after the limit: %s", res.Text())
	}
	mustFail(t, call(t, cfg, "small", `{}`), "wrote more than 10 bytes to stdout")

	res = call(t, cfg, "exact", `{}`)
	mustSucceed(t, res)
	if res.Text() != "1234567890" {
		t.Errorf("exact = %q", res.Text())
	}
	res = call(t, cfg, "cut", `{}`)
	mustSucceed(t, res)
	if res.Text() != "1234567890" {
		t.Errorf("cut = %q", res.Text())
	}
	res = call(t, cfg, "cut_rune", `{}`)
	mustSucceed(t, res)
	if res.Text() != "aaaaaaaa" {
		t.Errorf("cut_rune = %q, want the é, cut in half, left out", res.Text())
	}
	res = call(t, cfg, "vars", `{}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"exit_code":0,"stderr":"abcdefghij","stdout":"1234567890","truncated":true}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	res = call(t, cfg, "not_cut", `{}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"truncated":false}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestTimeout(t *testing.T) {
	// Each dies on SIGTERM: were the call to wait for the grace period
	// (an hour here) it would outlast the test.
	src := sh("slow", `sleep 3600`, `timeout = "200ms"`+"\n kill_timeout = \"1h\"") + `
tool "slow_tool" {
  description = "d"
  timeout     = "200ms"
  exec {
    command      = ["sleep", "3600"]
    kill_timeout = "1h"
  }
}
tool "slow_talker" {
  description = "d"
  exec {
    command      = ["/bin/sh", "-c", "echo 'Password:' >&2; sleep 3600"]
    timeout      = "300ms"
    kill_timeout = "1h"
  }
}
`
	cfg, _ := mustLoad(t, src)
	for _, tt := range []struct{ tool, want string }{
		{"slow", "command /bin/sh timed out after 200ms and was stopped"},
		{"slow_tool", "the call timed out after 200ms: command " + lookPath(t, "sleep") + " was stopped before it finished"},
		{"slow_talker", "timed out after 300ms and was stopped; its stderr: Password:"},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			mustFail(t, call(t, cfg, tt.tool, `{}`), tt.want)
		})
	}
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := resolveProgram(name, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTimeoutKillsGroup runs a program whose child ignores SIGTERM: the call
// returns after the grace period, and neither is left running.
func TestTimeoutKillsGroup(t *testing.T) {
	checkGoroutines(t)
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	shfile := filepath.Join(dir, "shpid")
	// The child's sleep lasts an hour: a call that waited for it would
	// outlast the test.
	script := fmt.Sprintf(`trap '' TERM; echo $$ > %s; sleep 3600 & echo $! > %s; wait`, shfile, pidfile)
	const grace = 500 * time.Millisecond
	cfg, _ := mustLoad(t, sh("stubborn", script, `timeout = "300ms"`+"\n kill_timeout = \"500ms\""))

	start := time.Now()
	res := call(t, cfg, "stubborn", `{}`)
	elapsed := time.Since(start)
	mustFail(t, res, "timed out after 300ms and was stopped")
	if elapsed < 300*time.Millisecond+grace {
		t.Errorf("took %s: SIGTERM was ignored, so SIGKILL should have come after the %s of kill_timeout", elapsed, grace)
	}
	waitGone(t, readPid(t, pidfile))
	waitGone(t, readPid(t, shfile))
}

// TestExitKillsLeftovers runs a program that leaves a child behind, holding
// its stdout: the call returns at once, and the child is killed.
func TestExitKillsLeftovers(t *testing.T) {
	checkGoroutines(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	// Waiting for the leftover would take its whole hour, and outlast the
	// test.
	script := fmt.Sprintf(`trap '' TERM; sleep 3600 & echo $! > %s; echo done`, pidfile)
	cfg, _ := mustLoad(t, sh("leaver", script, `kill_timeout = "1h"`))
	res := call(t, cfg, "leaver", `{}`)
	mustSucceed(t, res)
	if res.Text() != "done\n" {
		t.Errorf("stdout = %q", res.Text())
	}
	waitGone(t, readPid(t, pidfile))
}

func TestCancel(t *testing.T) {
	checkGoroutines(t)
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	shfile := filepath.Join(dir, "shpid")
	// The grandchild sleeps an hour, and dies on SIGTERM: a call that
	// waited for it, or for the grace period, would outlast the test.
	script := fmt.Sprintf(`echo $$ > %s; sleep 3600 & echo $! > %s; wait`, shfile, pidfile)
	cfg, _ := mustLoad(t, sh("long", script, `kill_timeout = "1h"`))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the grandchild runs (or after enginetest.Patience,
		// to fail).
		for deadline := time.Now().Add(enginetest.Patience); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, _ := os.ReadFile(pidfile); len(b) > 0 {
				break
			}
		}
		cancel()
	}()
	res := callCtx(ctx, t, cfg, "long", `{}`)
	mustFail(t, res, "the call was cancelled")
	waitGone(t, readPid(t, pidfile))
	waitGone(t, readPid(t, shfile))

	// A call cancelled before it starts runs nothing.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	mustFail(t, callCtx(ctx, t, cfg, "long", `{}`), "cancelled")
}

func TestExitCode(t *testing.T) {
	src := sh("fail", `echo out; printf 'fatal: \033[31mnot a git repository\033[0m\n  (or any parent)\n' >&2; exit 128`, "") +
		sh("quiet", `exit 3`, "") +
		sh("stdout_only", `echo 'usage: x [-h]'; exit 2`, "") +
		sh("killed", `kill -9 $$`, "") +
		sh("long", `head -c 2000 /dev/zero | tr '\0' e >&2; exit 1`, "") +
		`
tool "judged" {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", "echo out; echo err >&2; exit 4"]
  }
  error_if = expr("false")
  output "exit_code" { value = expr("exit_code") }
  output "stdout" { value = expr("stdout") }
  output "stderr" { value = expr("stderr") }
}
tool "grep" {
  description = "d"
  arg "text" { type = string }
  arg "file" {
    type    = string
    default = "-"
  }
  exec {
    command = ["grep", "-e", expr("args.text"), "--", expr("args.file")]
    stdin   = "apple\nbanana\ncherry\n"
    parse   = "lines"
  }
  error_if = expr("exit_code > 1")
  output "matches" {
    type  = list(string)
    value = expr("stdout")
  }
}
tool "grep_message" {
  description = "d"
  exec {
    command = ["grep", "-e", "x", "--", "/nonexistent"]
  }
  error_if      = expr("exit_code > 1")
  error_message = expr("'grep failed with ' + string(exit_code) + ': ' + trim(stderr)")
}
`
	cfg, _ := mustLoad(t, src)
	mustFail(t, call(t, cfg, "fail", `{}`), "command /bin/sh exited with code 128: fatal: not a git repository (or any parent)")
	if res := call(t, cfg, "quiet", `{}`); res.Text() != "command /bin/sh exited with code 3" {
		t.Errorf("quiet: %q", res.Text())
	}
	mustFail(t, call(t, cfg, "stdout_only", `{}`), "command /bin/sh exited with code 2; stdout: usage: x [-h]")
	mustFail(t, call(t, cfg, "killed", `{}`), "command /bin/sh was killed by signal 9 (killed)")
	res := call(t, cfg, "long", `{}`)
	mustFail(t, res, "exited with code 1: eeee", "e…")
	if len(res.Text()) > 600 {
		t.Errorf("the message is %d bytes long", len(res.Text()))
	}

	res = call(t, cfg, "judged", `{}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"exit_code":4,"stderr":"err\n","stdout":"out\n"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}

	res = call(t, cfg, "grep", `{"text": "an"}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"matches":["banana"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// No match: grep exits with 1, which error_if accepts.
	res = call(t, cfg, "grep", `{"text": "kiwi"}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"matches":[]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A real failure: 2.
	mustFail(t, call(t, cfg, "grep", `{"text": "a", "file": "/nonexistent"}`), "exited with code 2: grep: /nonexistent: No such file or directory")
	mustFail(t, call(t, cfg, "grep_message", `{}`), "grep failed with 2: grep: /nonexistent: No such file or directory")
}

func TestSignalExitCode(t *testing.T) {
	cfg, _ := mustLoad(t, `
tool "killed" {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", "kill -TERM $$"]
  }
  error_if = expr("exit_code != 143")
  output "exit_code" { value = expr("exit_code") }
}
`)
	res := call(t, cfg, "killed", `{}`)
	mustSucceed(t, res)
	if got := structured(t, res); got != `{"exit_code":143}` {
		t.Errorf("got %s", got)
	}
}

func TestANSI(t *testing.T) {
	cfg, _ := mustLoad(t, sh("colour", `printf '\033[1;31mred\033[0m \033]0;title\007ok\r\n\033[2Kline\tTab\bX'; printf '\033[33mwarn\033[0m\n' >&2`, "")+`
tool "vars" {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", "printf '\\033[1mbold\\033[0m\\n'; printf '\\033[33mwarn\\033[0m\\n' >&2"]
    parse   = "lines"
  }
  output "stdout" { value = expr("stdout") }
  output "stderr" { value = expr("stderr") }
}
`)
	res := call(t, cfg, "colour", `{}`)
	mustSucceed(t, res)
	if want := "red ok\nline\tTabX"; res.Text() != want {
		t.Errorf("stdout = %q, want %q", res.Text(), want)
	}
	res = call(t, cfg, "vars", `{}`)
	mustSucceed(t, res)
	if got, want := structured(t, res), `{"stderr":"warn\n","stdout":["bold"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDirAndRelativeProgram(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("#!/bin/sh\necho \"hello $1 from $(pwd)\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `
tool "default" {
  description = "d"
  exec { command = ["pwd"] }
}
tool "relative" {
  description = "d"
  exec {
    command = ["pwd"]
    dir     = "sub"
  }
}
tool "absolute" {
  description = "d"
  exec {
    command = ["pwd"]
    dir     = "/"
  }
}
tool "script" {
  description = "d"
  exec {
    command = ["./hello.sh", "x"]
    dir     = "sub"
  }
}
`
	name := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := loadFile(t, name)
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	for tool, want := range map[string]string{
		"default":  dir + "\n",
		"relative": filepath.Join(dir, "sub") + "\n",
		"absolute": "/\n",
		"script":   "hello x from " + filepath.Join(dir, "sub") + "\n",
	} {
		res := call(t, cfg, tool, `{}`)
		mustSucceed(t, res)
		if res.Text() != want {
			t.Errorf("%s: %q, want %q", tool, res.Text(), want)
		}
	}
}

func TestProgramRemovedAfterLoad(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := mustLoad(t, fmt.Sprintf(`
tool "gone" {
  description = "d"
  exec { command = [%s] }
}
`, hclString(prog)))
	mustSucceed(t, call(t, cfg, "gone", `{}`))
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	mustFail(t, call(t, cfg, "gone", `{}`), "command "+prog+" could not be started: it no longer exists")
}

func TestConcurrency(t *testing.T) {
	cfg, _ := mustLoad(t, `
tool "echo" {
  description = "d"
  arg "n" { type = integer }
  exec {
    command = ["echo", expr("args.n")]
  }
  output "n" { value = expr("int(trim(stdout))") }
}
`)
	tool, _ := cfg.Tool("echo")
	done := make(chan error)
	for i := range 32 {
		go func() {
			res := tool.Call(context.Background(), json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)))
			if res.IsError || res.Structured["n"] != i {
				done <- fmt.Errorf("call %d: %v %s", i, res.Structured, res.Text())
				return
			}
			done <- nil
		}()
	}
	for range 32 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestDefaultMaxConcurrency(t *testing.T) {
	a := &action{}
	if got := a.DefaultMaxConcurrency(); got != runtime.NumCPU() {
		t.Errorf("DefaultMaxConcurrency() = %d, want %d", got, runtime.NumCPU())
	}
}

// TestNoGoroutineLeaks runs calls of every kind and checks that no
// goroutine outlives them.
func TestNoGoroutineLeaks(t *testing.T) {
	cfg, _ := mustLoad(t, sh("ok", `cat; echo err >&2`, `stdin = "in"`)+
		sh("big", `head -c 3000000 /dev/zero`, "")+
		sh("cut", `head -c 3000000 /dev/zero`, "max_output = 10\n truncate = true")+
		sh("fail", `exit 1`, "")+
		sh("slow", `sleep 30`, `timeout = "50ms"`)+
		sh("leaver", `sleep 30 & echo x`, ""))
	// Warm up, so that the runtime's own goroutines are started.
	call(t, cfg, "ok", `{}`)
	before := runtime.NumGoroutine()
	for range 3 {
		for _, name := range []string{"ok", "big", "cut", "fail", "slow", "leaver"} {
			call(t, cfg, name, `{}`)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		callCtx(ctx, t, cfg, "slow", `{}`)
		cancel()
	}
	deadline := time.Now().Add(enginetest.Patience)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStoppedProgram runs a program that stops itself: SIGTERM alone would
// wait for a SIGCONT, so the call would last the whole grace period (an hour
// here: it would outlast the test).
func TestStoppedProgram(t *testing.T) {
	cfg, _ := mustLoad(t, sh("stopped", `kill -STOP $$; sleep 3600`, `timeout = "200ms"`+"\n kill_timeout = \"1h\""))
	mustFail(t, call(t, cfg, "stopped", `{}`), "timed out after 200ms")
}

// TestNoTerminal runs a program that wants a terminal: it has none, so it
// fails at once instead of waiting on one (a wait would end in "timed out",
// after an hour).
func TestNoTerminal(t *testing.T) {
	cfg, _ := mustLoad(t, sh("tty", `exec < /dev/tty`, `timeout = "1h"`))
	mustFail(t, call(t, cfg, "tty", `{}`), "command /bin/sh exited with code", "/dev/tty")
}
