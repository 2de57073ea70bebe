//go:build unix

package execaction

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// supported says whether exec blocks can run here.
const supported = true

// group holds the processes of one run: the program leads a process group
// its children join unless they leave on purpose and, on Linux where the
// server may create cgroups, a cgroup none of them can leave.
type group struct {
	cmd   *exec.Cmd
	cg    *cgroup       // nil when the run has no cgroup
	grace time.Duration // from SIGTERM to SIGKILL: the exec block's kill_timeout

	mu sync.Mutex
	// gone is set once the leader has exited. From then on the group is
	// never signalled again: once the leader is reaped its pid, which names
	// the group, may be given to an unrelated process.
	gone    bool
	stopped bool        // the group was told to stop: the call's context ended
	kill    *time.Timer // sends SIGKILL when the grace period is over
}

// start starts the command build returns, in a session, and so a process
// group, of its own, and in a cgroup of its own under cgroups (see
// ownCgroupDir) where there can be one.
// When its context ends, the whole run is stopped: SIGTERM to the group
// first, SIGKILL to the group and the cgroup after g.grace.
func (g *group) start(cgroups string, build func() *exec.Cmd) error {
	g.cg = newCgroup(cgroups)
	g.cmd = g.prepare(build())
	err := g.cmd.Start()
	g.cg.started()
	if err != nil && g.cg != nil {
		// The kernel may refuse to start a process in a cgroup (clone3
		// missing or forbidden by a seccomp filter, a cgroup it may not
		// move processes to): try again without one, which also says why
		// the program itself cannot start, if that is the reason.
		g.cg.remove()
		g.cg = nil
		g.cmd = g.prepare(build())
		err = g.cmd.Start()
	}
	return err
}

// prepare sets cmd up to run in the group.
func (g *group) prepare(cmd *exec.Cmd) *exec.Cmd {
	// A new session is a new process group too, whose id is the leader's
	// pid; it also has no controlling terminal, so that a program that
	// wants to prompt on one (a password) fails at once instead of
	// stopping until the call's time runs out.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	g.cg.attach(cmd.SysProcAttr)
	cmd.Cancel = g.terminate
	// When the context ends, or once the program has exited, Wait gives
	// the pipes this long to close: without a cgroup, a process that left
	// the group may hold them open.
	cmd.WaitDelay = g.grace
	return cmd
}

// terminate is cmd.Cancel: it asks the whole group to stop, and arms the
// timer that kills it.
func (g *group) terminate() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return os.ErrProcessDone
	}
	g.stopped = true
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGTERM)
	// A stopped process only acts on SIGTERM once continued.
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGCONT)
	g.kill = time.AfterFunc(g.grace, g.forceKill)
	return nil
}

// forceKill sends SIGKILL to the group and the cgroup, unless the leader
// has exited already (they were then killed by wait).
func (g *group) forceKill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		g.killAll()
	}
}

// cutOff kills the whole run at once because its output passed
// max_output: reading stops there, and the program is not left to write,
// or to spin, until its time runs out.
func (g *group) cutOff() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return
	}
	g.killAll()
}

// killAll sends SIGKILL to the group and the cgroup. g.mu is held and the
// leader not reaped.
func (g *group) killAll() {
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	g.cg.kill()
}

// wait waits for the started command and kills what it left running in
// its group and cgroup. It reports whether the run was stopped because the
// context ended.
func (g *group) wait() (stopped bool, err error) {
	pid := g.cmd.Process.Pid
	exited := awaitExit(pid)
	g.mu.Lock()
	if exited {
		// The leader is a zombie, so its pid still names this group alone.
		g.killAll()
	} else {
		g.cg.kill()
	}
	g.gone = true
	if g.kill != nil {
		g.kill.Stop()
	}
	stopped = g.stopped
	g.mu.Unlock()
	err = g.cmd.Wait()
	if !exited {
		// Without a way to wait for the leader without reaping it, kill
		// the rest of the group now; its pid was just released, and is
		// very unlikely to name another group already.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	g.cg.remove()
	return stopped, err
}

// exitStatus is the exit code of a finished process, 128+n when signal n
// killed it, as shells say, and the signal's description then.
func exitStatus(ps *os.ProcessState) (code int, signal string) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		sig := ws.Signal()
		return 128 + int(sig), fmt.Sprintf("signal %d (%s)", int(sig), sig)
	}
	return ps.ExitCode(), ""
}
