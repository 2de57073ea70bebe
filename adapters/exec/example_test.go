//go:build unix

package execaction

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExampleSystem loads examples/system.hcl and calls each of its tools,
// checking their outputs against what the programs say when run directly.
func TestExampleSystem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the example needs git, which is not installed")
	}
	cfg, diags := loadFile(t, filepath.Join("..", "..", "examples", "system.hcl"))
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}

	t.Run("system_info", func(t *testing.T) {
		res := call(t, cfg, "system_info", `{}`)
		mustSucceed(t, res)
		host, _ := os.Hostname()
		want := map[string]string{
			"kernel":   run(t, "uname", "-s"),
			"hostname": host,
			"release":  run(t, "uname", "-r"),
			"machine":  run(t, "uname", "-m"),
		}
		for k, v := range want {
			if res.Structured[k] != v {
				t.Errorf("%s = %v, want %q", k, res.Structured[k], v)
			}
		}
		if want := strings.Join([]string{want["kernel"], host, want["release"], want["machine"]}, " "); res.Text() != want {
			t.Errorf("text = %q, want %q", res.Text(), want)
		}
	})

	t.Run("current_time", func(t *testing.T) {
		res := call(t, cfg, "current_time", `{}`)
		mustSucceed(t, res)
		got, err := time.Parse(time.RFC3339, res.Structured["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(got); d < -time.Minute || d > time.Minute {
			t.Errorf("time = %s, %s from now", got, d)
		}
		if !strings.HasSuffix(res.Structured["time"].(string), "+00:00") || res.Structured["zone"] != "UTC" {
			t.Errorf("in UTC: %v", res.Structured)
		}

		// A POSIX TZ rule, which needs no time zone database.
		res = call(t, cfg, "current_time", `{"timezone": "JST-9"}`)
		mustSucceed(t, res)
		if !strings.HasSuffix(res.Structured["time"].(string), "+09:00") || res.Structured["zone"] != "JST" {
			t.Errorf("in JST-9: %v", res.Structured)
		}

		// The pattern keeps anything odd out before the program runs.
		mustFail(t, call(t, cfg, "current_time", `{"timezone": "UTC; date"}`), "invalid arguments", "/timezone")
	})

	t.Run("disk_usage", func(t *testing.T) {
		dir := t.TempDir()
		res := call(t, cfg, "disk_usage", mustJSON(t, map[string]any{"path": dir}))
		mustSucceed(t, res)
		fss := res.Structured["filesystems"].([]any)
		if len(fss) != 1 {
			t.Fatalf("filesystems = %v", fss)
		}
		fs := fss[0].(map[string]any)
		fields := strings.Fields(strings.Split(run(t, "df", "-P", "-k", "--", dir), "\n")[1])
		if fs["filesystem"] != fields[0] || fs["mounted_on"] != fields[len(fields)-1] {
			t.Errorf("filesystem = %v, df says %q", fs, fields)
		}
		size, used, avail, pct := fs["size_kib"].(int), fs["used_kib"].(int), fs["available_kib"].(int), fs["used_percent"].(int)
		if size <= 0 || used < 0 || avail < 0 || used > size || pct < 0 || pct > 100 {
			t.Errorf("implausible sizes: %v", fs)
		}

		// The default path is /.
		res = call(t, cfg, "disk_usage", `{}`)
		mustSucceed(t, res)
		if fs := res.Structured["filesystems"].([]any)[0].(map[string]any); fs["mounted_on"] != "/" {
			t.Errorf("for /: %v", fs)
		}

		// A path starting with "-" is a path, not an option.
		mustFail(t, call(t, cfg, "disk_usage", `{"path": "--version"}`), "exited with code 1: df: --version: No such file or directory")
		mustFail(t, call(t, cfg, "disk_usage", `{"path": "/no/such/dir"}`), "command "+lookPath(t, "df")+" exited with code 1: df: /no/such/dir: No such file or directory")
	})

	repo := gitRepo(t)

	t.Run("git_log", func(t *testing.T) {
		res := call(t, cfg, "git_log", mustJSON(t, map[string]any{"repo": repo, "limit": 2}))
		mustSucceed(t, res)
		commits := res.Structured["commits"].([]any)
		if len(commits) != 2 {
			t.Fatalf("commits = %v", commits)
		}
		first := commits[0].(map[string]any)
		if first["subject"] != "Third: $(id); rm -rf / #" || first["author"] != "Ada Lovelace" || len(first["hash"].(string)) != 40 {
			t.Errorf("first commit = %v", first)
		}
		if _, err := time.Parse(time.RFC3339, first["date"].(string)); err != nil {
			t.Errorf("date: %v", err)
		}
		if second := commits[1].(map[string]any); second["subject"] != "Second" {
			t.Errorf("second commit = %v", second)
		}

		res = call(t, cfg, "git_log", mustJSON(t, map[string]any{"repo": repo}))
		mustSucceed(t, res)
		if n := len(res.Structured["commits"].([]any)); n != 3 {
			t.Errorf("%d commits, want 3", n)
		}

		notRepo := t.TempDir()
		mustFail(t, call(t, cfg, "git_log", mustJSON(t, map[string]any{"repo": notRepo})),
			"command "+lookPath(t, "git")+" exited with code 128: fatal: not a git repository")
		mustFail(t, call(t, cfg, "git_log", mustJSON(t, map[string]any{"repo": repo, "limit": 0})), "invalid arguments", "/limit")
	})

	t.Run("git_grep", func(t *testing.T) {
		res := call(t, cfg, "git_grep", mustJSON(t, map[string]any{"repo": repo, "text": "needle"}))
		mustSucceed(t, res)
		want := `{"matches":[{"file":"notes.txt","line":2,"text":"a needle: in a haystack"}]}`
		if got := structured(t, res); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}

		// A text starting with "-" is a text, not an option.
		res = call(t, cfg, "git_grep", mustJSON(t, map[string]any{"repo": repo, "text": "--all"}))
		mustSucceed(t, res)
		if got := structured(t, res); got != `{"matches":[{"file":"notes.txt","line":3,"text":"--all of it"}]}` {
			t.Errorf("got %s", got)
		}

		// No match: git grep exits with 1, which error_if accepts.
		res = call(t, cfg, "git_grep", mustJSON(t, map[string]any{"repo": repo, "text": "absent"}))
		mustSucceed(t, res)
		if got := structured(t, res); got != `{"matches":[]}` {
			t.Errorf("got %s", got)
		}

		mustFail(t, call(t, cfg, "git_grep", mustJSON(t, map[string]any{"repo": t.TempDir(), "text": "x"})), "exited with code 128: fatal: not a git repository")
	})
}

// gitRepo makes a git repository with three commits.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("notes.txt", "first line\n")
	git("add", ".")
	git("commit", "-q", "-m", "First")
	write("notes.txt", "first line\na needle: in a haystack\n")
	git("commit", "-q", "-a", "-m", "Second")
	write("notes.txt", "first line\na needle: in a haystack\n--all of it\n")
	git("commit", "-q", "-a", "-m", "Third: $(id); rm -rf / #")
	return dir
}

// run runs a program directly and returns its output, trimmed.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return strings.TrimSpace(string(out))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
