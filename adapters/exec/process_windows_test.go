//go:build windows

package execaction

// Tests of the Windows path, run on Windows (or under Wine:
// GOOS=windows go test -c, then wine the test binary). The test binary
// is also the program the tools run: MCPDECL_EXEC_HELPER says what to do.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

func TestMain(m *testing.M) {
	switch os.Getenv("MCPDECL_EXEC_HELPER") {
	case "":
		os.Exit(m.Run())
	case "echo": // print the arguments as JSON
		_ = json.NewEncoder(os.Stdout).Encode(os.Args[1:])
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "spawn": // start a child that sleeps, write its pid to the file os.Args[1], then sleep or exit
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "MCPDECL_EXEC_HELPER=sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := os.WriteFile(os.Args[1], []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if len(os.Args) > 2 && os.Args[2] == "exit" {
			os.Exit(0)
		}
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(4)
}

// tempDir is a new directory, removed at the end of the test as far as the
// system allows: Wine refuses the calls with which t.TempDir removes a
// directory, which would fail every test there.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpdecl-exec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// helperTool is a tool that runs this test binary as helper mode, with
// the extra HCL attrs of its exec block.
func helperTool(t *testing.T, mode, command, attrs string) *engine.Config {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
tool "run" {
  description = "Runs the helper."
  arg "a" {
    type    = list(string)
    default = []
  }
  exec {
    command = [%q%s]
    env     = { MCPDECL_EXEC_HELPER = %q }
    %s
  }
}
`, filepath.ToSlash(self), command, mode, attrs)
	cfg, _, diags := enginetest.Load(t, engine.NewRegistry(New()), src, enginetest.Options{Dir: tempDir(t)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return cfg
}

// Each element of command reaches the program as one argument, whatever it
// holds: the command line is quoted for CommandLineToArgvW.
func TestWindowsArguments(t *testing.T) {
	cfg := helperTool(t, "echo", `, expr("args.a")`, `parse = "json"`)
	want := []string{"plain", "two words", "", `"quoted"`, `back\slash\`, `trailing\\`, `\"`, `a & calc`, `x|y`, `%PATH%`, `^`, `<in >out`, "tab\there", `C:\Program Files\x`}
	b, _ := json.Marshal(map[string]any{"a": want})
	res := enginetest.Call(context.Background(), t, cfg, "run", string(b))
	if res.IsError {
		t.Fatal(res.Text())
	}
	var got []string
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Text())), &got); err != nil {
		t.Fatalf("%v: %s", err, res.Text())
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("the program received\n%q\nwant\n%q", got, want)
	}
}

// gone reports whether the process pid has exited, waiting for it a while.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 10000)
	return ev == windows.WAIT_OBJECT_0
}

// A cancelled call (as one whose time runs out) kills the program and the
// child it started.
func TestWindowsCancelKillsTheTree(t *testing.T) {
	pidFile := filepath.Join(tempDir(t), "pid")
	cfg := helperTool(t, "spawn", fmt.Sprintf(`, %q`, filepath.ToSlash(pidFile)), ``)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *engine.Result, 1)
	go func() { done <- enginetest.Call(ctx, t, cfg, "run", `{}`) }()
	// Cancel once the child runs: the helper writes its pid then.
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			break
		}
		select {
		case res := <-done:
			t.Fatalf("the call ended before the child started: %s", res.Text())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Text(), "cancelled") {
		t.Fatalf("want the call cancelled, got: %s", res.Text())
	}
	checkChildGone(t, pidFile)
}

// When the program exits, the child it left running is killed.
func TestWindowsExitKillsWhatIsLeft(t *testing.T) {
	pidFile := filepath.Join(tempDir(t), "pid")
	cfg := helperTool(t, "spawn", fmt.Sprintf(`, %q, "exit"`, filepath.ToSlash(pidFile)), ``)
	res := enginetest.Call(context.Background(), t, cfg, "run", `{}`)
	if res.IsError {
		t.Fatal(res.Text())
	}
	checkChildGone(t, pidFile)
}

// checkChildGone checks that the child whose pid the helper wrote to
// pidFile is gone.
func checkChildGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the helper wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !gone(t, pid) {
		t.Errorf("the child %d is still running", pid)
		_ = exec.Command("taskkill", "/F", "/PID", strconv.Itoa(pid)).Run()
	}
}

// A batch file is refused at load.
func TestWindowsBatchRefused(t *testing.T) {
	dir := tempDir(t)
	bat := filepath.Join(dir, "x.bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho %1\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
tool "run" {
  description = "Runs a batch file."
  exec {
    command = [%q]
  }
}
`, filepath.ToSlash(bat))
	_, _, diags := enginetest.Load(t, engine.NewRegistry(New()), src, enginetest.Options{Dir: dir})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "batch file") {
		t.Fatalf("want a load error about a batch file, got: %v", diags)
	}
}
