//go:build unix

package execaction

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// loadFile loads the configuration at path with the exec adapter.
func loadFile(t testing.TB, path string) (*engine.Config, hcl.Diagnostics) {
	t.Helper()
	cfg, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(New())}, path)
	if cfg != nil {
		t.Cleanup(func() { _ = cfg.Close() })
	}
	return cfg, diags
}

// loadString loads src as tools.hcl in a new temporary directory, which it
// returns too.
func loadString(t testing.TB, src string) (*engine.Config, string, hcl.Diagnostics) {
	t.Helper()
	return enginetest.Load(t, engine.NewRegistry(New()), src, enginetest.Options{})
}

// mustLoad loads src and fails the test on any error.
func mustLoad(t testing.TB, src string) (*engine.Config, string) {
	t.Helper()
	cfg, dir, diags := loadString(t, src)
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	return cfg, dir
}

// call calls a tool of cfg with args, JSON.
func call(t testing.TB, cfg *engine.Config, name, args string) *engine.Result {
	t.Helper()
	return enginetest.Call(context.Background(), t, cfg, name, args)
}

var callCtx = enginetest.Call

var structured = enginetest.Structured

// mustSucceed fails the test if res is a tool error.
func mustSucceed(t testing.TB, res *engine.Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Text())
	}
}

// mustFail fails the test unless res is a tool error whose text holds every
// one of want.
func mustFail(t testing.TB, res *engine.Result, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("not a tool error: %s", res.Text())
	}
	for _, w := range want {
		if !strings.Contains(res.Text(), w) {
			t.Errorf("error does not contain %q:\n%s", w, res.Text())
		}
	}
}

var describeDiags = enginetest.Describe

// alive reports whether process pid exists and has not exited. A zombie,
// which has exited and waits for its parent (init, for an orphan) to reap
// it, does not count.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	// pid (comm) state …: the state follows the last ')'.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		switch stat[i+2] {
		case 'Z', 'X':
			return false
		}
	}
	return true
}

// waitGone waits for process pid to be gone, as long as enginetest.Patience.
func waitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(enginetest.Patience)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive %s later", pid, enginetest.Patience)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readPid reads a pid written to a file by a test script, waiting for it.
func readPid(t testing.TB, name string) int {
	t.Helper()
	deadline := time.Now().Add(enginetest.Patience)
	for {
		b, err := os.ReadFile(name)
		if s := strings.TrimSpace(string(b)); err == nil && s != "" {
			var pid int
			if _, err := fmt.Sscan(s, &pid); err != nil {
				t.Fatalf("pid file %s holds %q", name, s)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s after %s", name, enginetest.Patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkGoroutines fails the test if, after it, more goroutines run than
// before it, allowing them as long as enginetest.Patience to end.
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(enginetest.Patience)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// hclString quotes s as an HCL string literal.
func hclString(s string) string {
	b, _ := json.Marshal(s)
	r := strings.ReplaceAll(string(b), "${", "$${")
	return strings.ReplaceAll(r, "%{", "%%{")
}
