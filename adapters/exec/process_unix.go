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

// group is the process group of one run: the program leads it, and its
// children join it unless they leave on purpose.
type group struct {
	cmd *exec.Cmd

	mu sync.Mutex
	// gone is set once the leader has exited. From then on the group is
	// never signalled again: once the leader is reaped its pid, which names
	// the group, may be given to an unrelated process.
	gone    bool
	stopped bool        // the group was told to stop: the call's context ended
	kill    *time.Timer // sends SIGKILL when the grace period is over
}

// newGroup prepares cmd to run in a process group of its own that is
// stopped, whole, when cmd's context ends: SIGTERM first, SIGKILL after
// killGrace.
func newGroup(cmd *exec.Cmd) *group {
	g := &group{cmd: cmd}
	// A new session is a new process group too, whose id is the leader's
	// pid; it also has no controlling terminal, so that a program that
	// wants to prompt on one (a password) fails at once instead of
	// stopping until the call's time runs out.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = g.terminate
	// When the context ends, or once the program has exited, Wait gives
	// the pipes this long to close: a process that left the group may hold
	// them open.
	cmd.WaitDelay = killGrace
	return g
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
	g.kill = time.AfterFunc(killGrace, g.forceKill)
	return nil
}

// forceKill sends SIGKILL to the group, unless the leader has exited
// already (it was then killed by wait).
func (g *group) forceKill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// wait waits for the started command and kills what it left running in
// its group. It reports whether the group was stopped because the
// context ended.
func (g *group) wait() (stopped bool, err error) {
	pid := g.cmd.Process.Pid
	exited := awaitExit(pid)
	g.mu.Lock()
	if exited {
		// The leader is a zombie, so its pid still names this group alone.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
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
