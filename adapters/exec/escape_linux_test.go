//go:build linux

package execaction

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// markedPids lists the processes whose arguments hold marker.
func markedPids(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("cannot list processes: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		argv, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(argv, []byte(marker)) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sleepMarker is an argument for sleep that sleeps 303 seconds and names
// the processes of one test alone, and kills them when the test ends,
// should it fail.
func sleepMarker(t *testing.T) string {
	t.Helper()
	n, _ := rand.Int(rand.Reader, big.NewInt(1e9))
	marker := fmt.Sprintf("303.%09d", n)
	t.Cleanup(func() {
		for _, pid := range markedPids(t, marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return marker
}

// needsContainment skips a test of processes that leave their process
// group where runs cannot be put in cgroups (it fails under CI, whose
// machines can).
func needsContainment(t *testing.T) {
	t.Helper()
	if cg := newCgroup(ownCgroupDir()); cg != nil {
		cg.remove()
		isolateCgroup(t)
		return
	}
	msg := "no cgroup v2 to create cgroups in: processes that leave their process group are not contained here"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestEscapesAreKilled runs programs whose children leave the process group
// (setsid, setpgid) or are orphaned (a double fork), and checks that none
// is left running when the call ends, whether the program exits or times
// out, even when they keep the run's stdin and stdout open.
func TestEscapesAreKilled(t *testing.T) {
	needsContainment(t)
	checkGoroutines(t)
	// Each starts a process that writes its pid to $1 and sleeps $2
	// seconds, and waits until it runs.
	escapes := []struct{ name, spawn string }{
		{"setsid holding stdout", `setsid sh -c 'echo $$ > "$1"; exec sleep "$2"' sh "$1" "$2" &`},
		{"setsid", `setsid sh -c 'echo $$ > "$1"; exec sleep "$2"' sh "$1" "$2" >/dev/null 2>&1 &`},
		{"setpgid", `perl -e 'setpgrp(0, 0) or die; open(my $f, ">", $ARGV[0]) or die; print $f "$$\n"; close $f; exec "sleep", $ARGV[1]' "$1" "$2" >/dev/null 2>&1 &`},
		{"double fork", `(sh -c 'echo $$ > "$1"; exec sleep "$2"' sh "$1" "$2" >/dev/null 2>&1 &) &`},
		{"double fork and setsid", `(setsid sh -c 'echo $$ > "$1"; exec sleep "$2"' sh "$1" "$2" >/dev/null 2>&1 &) &`},
	}
	const wait = `while [ ! -s "$1" ]; do sleep 0.01; done; `
	// More than a pipe holds, which nobody reads: the escaped process
	// keeps stdin open, and writing it blocks until the process is gone
	// (or Wait gives up on it).
	in := fmt.Sprintf(`{"in": %q}`, strings.Repeat("x", 200000))
	for _, esc := range escapes {
		for _, end := range []struct{ name, script, extra, want string }{
			{"exit", wait + "echo done", `timeout = "60s"`, ""},
			{"timeout", wait + "echo done; sleep 60", `timeout = "1s"`, "timed out after 1s"},
		} {
			t.Run(esc.name+"/"+end.name, func(t *testing.T) {
				pidfile := filepath.Join(t.TempDir(), "pid")
				marker := sleepMarker(t)
				src := fmt.Sprintf(`
tool "escape" {
  description = "d"
  arg "in" { type = string }
  exec {
    command = ["/bin/sh", "-c", %s, "sh", %s, %s]
    stdin   = expr("args.in")
    %s
  }
}
`, hclString(esc.spawn+" "+end.script), hclString(pidfile), hclString(marker), end.extra)
				cfg, _ := mustLoad(t, src)
				res := call(t, cfg, "escape", in)
				if end.want == "" {
					mustSucceed(t, res)
					if res.Text() != "done\n" {
						t.Errorf("stdout = %q", res.Text())
					}
				} else {
					mustFail(t, res, end.want)
				}
				// The escaped process ran before the program ended.
				pid := readPid(t, pidfile)
				waitGone(t, pid)
				if pids := markedPids(t, marker); len(pids) > 0 {
					t.Errorf("processes %v of the run are still running", pids)
				}
			})
		}
	}
	noCgroupLeft(t)
}

// isolateCgroup moves the test's process into a cgroup of its own, under
// its own, until the test ends: the runs' cgroups are made there, so that
// noCgroupLeft sees this process's alone, not those of another mcpdecl (a
// test binary of another package) running beside it.
func isolateCgroup(t *testing.T) {
	t.Helper()
	parent := ownCgroupDir()
	dir := filepath.Join(parent, fmt.Sprintf("mcpdecl-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		t.Fatalf("a cgroup for the test: %v", err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), pid, 0o644); err != nil {
		_ = os.Remove(dir)
		t.Fatalf("moving the test into its cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(filepath.Join(parent, "cgroup.procs"), pid, 0o644); err != nil {
			t.Errorf("moving the test back to its cgroup: %v", err)
			return
		}
		_ = removeTree(dir)
	})
}

// noCgroupLeft fails the test if a cgroup of a run is left behind, and
// removes it.
func noCgroupLeft(t *testing.T) {
	t.Helper()
	dir := ownCgroupDir()
	if dir == "" {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "mcpdecl-exec-") {
			t.Errorf("cgroup %s is left behind", filepath.Join(dir, e.Name()))
			_ = removeTree(filepath.Join(dir, e.Name()))
		}
	}
}

// TestNestedCgroups runs a program that puts a child in a cgroup of its
// own, under the run's, as a nested mcpdecl does: the child is killed and
// both cgroups are removed.
func TestNestedCgroups(t *testing.T) {
	needsContainment(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	marker := sleepMarker(t)
	// $1: the server's cgroup directory, $2: the pid file, $3: the marker.
	script := `run="$1/$(sed -n 's|^0::.*/||p' /proc/self/cgroup)"
mkdir "$run/inner" || exit 1
sh -c 'echo $$ > "$1/inner/cgroup.procs" && echo $$ > "$2" && exec sleep "$3"' sh "$run" "$2" "$3" >/dev/null 2>&1 &
while [ ! -s "$2" ]; do sleep 0.01; done
echo done`
	cfg, _ := mustLoad(t, fmt.Sprintf(`
tool "nested" {
  description = "d"
  exec {
    command = ["/bin/sh", "-c", %s, "sh", %s, %s, %s]
  }
}
`, hclString(script), hclString(ownCgroupDir()), hclString(pidfile), hclString(marker)))
	res := call(t, cfg, "nested", `{}`)
	mustSucceed(t, res)
	if res.Text() != "done\n" {
		t.Errorf("stdout = %q", res.Text())
	}
	waitGone(t, readPid(t, pidfile))
	noCgroupLeft(t)
}
