//go:build linux

package execaction

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is the cgroup v2 of one run: a child of the server's own cgroup
// that the program is started in (clone3 with CLONE_INTO_CGROUP, so that it
// is in it from its first instruction), and that every process it starts
// stays in, whatever it does: leaving the process group or the session
// (setsid, setpgid) or being orphaned (a double fork) does not take a
// process out of its cgroup. Killing the cgroup kills them all.
type cgroup struct {
	dir string // the cgroup's directory, in the cgroup2 file system
	fd  int    // the directory, opened for clone3; -1 once closed
}

// newCgroup creates the cgroup of a run under parent (see ownCgroupDir),
// or returns nil when there is none or the server may not create cgroups
// there (a read-only cgroup2 mount, as in most containers, no permission):
// the run is then contained by its process group only.
func newCgroup(parent string) *cgroup {
	if parent == "" {
		return nil
	}
	var name [8]byte
	_, _ = rand.Read(name[:])
	dir := filepath.Join(parent, "mcpdecl-exec-"+hex.EncodeToString(name[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = unix.Rmdir(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// attach makes the process started with attr start in the cgroup.
func (c *cgroup) attach(attr *syscall.SysProcAttr) {
	if c == nil {
		return
	}
	attr.UseCgroupFD = true
	attr.CgroupFD = c.fd
}

// started closes the directory once the process is started, or could not
// be.
func (c *cgroup) started() {
	if c != nil && c.fd >= 0 {
		_ = unix.Close(c.fd)
		c.fd = -1
	}
}

// kill sends SIGKILL to every process in the cgroup, those it forks while
// being killed included.
func (c *cgroup) kill() {
	if c == nil {
		return
	}
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	// Before Linux 5.14, which has cgroup.kill: freeze the cgroup, so that
	// none of its processes forks or exits while they are listed, kill
	// them one by one, and thaw it for them to die.
	freeze := filepath.Join(c.dir, "cgroup.freeze")
	_ = os.WriteFile(freeze, []byte("1"), 0)
	for _, pid := range c.pids() {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	_ = os.WriteFile(freeze, []byte("0"), 0)
}

// pids lists the processes in the cgroup.
func (c *cgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// cgroupRemoveTime bounds the wait for the processes of a killed cgroup to
// be gone, so that it can be removed.
const cgroupRemoveTime = DefaultKillTimeout

// remove kills what is left in the cgroup, waits for it to be empty, and
// removes it. A cgroup that could not be emptied in time (a process stuck
// in the kernel) is left behind, empty of anything that runs.
func (c *cgroup) remove() {
	if c == nil {
		return
	}
	c.started()
	deadline := time.Now().Add(cgroupRemoveTime)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		err := removeTree(c.dir)
		if err == nil || errors.Is(err, unix.ENOENT) || !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return
		}
		c.kill()
		time.Sleep(pause)
	}
}

// removeTree removes the cgroup dir and those the run made under it (a
// program may make its own, as mcpdecl does), deepest first: a cgroup is
// only removed once it has neither processes nor children. The children
// are looked for only when dir cannot be removed as it is, which is rare.
func removeTree(dir string) error {
	err := unix.Rmdir(dir)
	if !errors.Is(err, unix.EBUSY) && !errors.Is(err, unix.ENOTEMPTY) {
		return err
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			_ = removeTree(filepath.Join(dir, e.Name()))
		}
	}
	return unix.Rmdir(dir)
}

// ownCgroupDir is the directory of the server's own cgroup v2, or "" when
// there is none.
func ownCgroupDir() string {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	return cgroupDir(self, mounts)
}

// cgroupDir finds, from the contents of /proc/self/cgroup and
// /proc/self/mountinfo, the directory of the process's cgroup v2, or ""
// when it has none, or none that is mounted where it can be found.
func cgroupDir(self, mountinfo []byte) string {
	var path string
	found := false
	for line := range strings.SplitSeq(string(self), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path, found = p, true
			break
		}
	}
	// A cgroup outside the cgroup namespace's root shows as /../…: it is
	// not below any mount of this namespace.
	if !found || !strings.HasPrefix(path, "/") || strings.HasSuffix(path, " (deleted)") ||
		slices.Contains(strings.Split(path, "/"), "..") {
		return ""
	}
	for line := range bytes.SplitSeq(mountinfo, []byte("\n")) {
		// id parent major:minor root mountpoint options [optional…] - type source super-options
		sep := bytes.Index(line, []byte(" - "))
		if sep < 0 {
			continue
		}
		if after := strings.Fields(string(line[sep+3:])); len(after) == 0 || after[0] != "cgroup2" {
			continue
		}
		f := strings.Fields(string(line[:sep]))
		if len(f) < 5 || strings.ContainsRune(f[3]+f[4], '\\') {
			continue // an escaped name: not worth unescaping
		}
		root, mountpoint := f[3], f[4]
		rel, ok := path, true
		if root != "/" {
			rel, ok = strings.CutPrefix(path, root)
			if ok && rel != "" && rel[0] != '/' {
				ok = false // root /a, path /ab
			}
		}
		if ok {
			return filepath.Join(mountpoint, rel)
		}
	}
	return ""
}
