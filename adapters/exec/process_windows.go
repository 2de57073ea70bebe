//go:build windows

package execaction

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// supported says whether exec blocks can run here.
const supported = true

// group holds the processes of one run: the program and everything it
// starts are in a Job Object that kills them all when it is closed
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), or terminated. A process cannot
// leave its job.
type group struct {
	cmd   *exec.Cmd
	job   windows.Handle
	grace time.Duration // how long Wait gives the pipes: the exec block's kill_timeout
	// proc is a handle to the program that can wait for it without
	// reaping it: cmd.Wait is called only once the job is terminated.
	proc windows.Handle

	mu      sync.Mutex
	gone    bool // the program has exited and the job was terminated
	stopped bool // the job was terminated because the call's context ended
}

// start creates the job, starts the command build returns suspended,
// assigns it to the job and lets it run: it cannot start a process before
// it is in the job, so none escapes. When the call's context ends, the job
// is terminated at once: Windows has no SIGTERM that every program heeds.
func (g *group) start(_ string, build func() *exec.Cmd) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("setting up a job object: %w", err)
	}
	g.job = job
	g.cmd = build()
	g.cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
	g.cmd.Cancel = g.terminate
	// When the context ends, or once the program has exited, Wait gives
	// the pipes this long to close.
	g.cmd.WaitDelay = g.grace
	if err := g.cmd.Start(); err != nil {
		windows.CloseHandle(job)
		g.job = 0
		return err
	}
	if err := g.enter(); err != nil {
		// The program never ran: kill it, and say why.
		_ = g.cmd.Process.Kill()
		_ = g.cmd.Wait()
		g.release()
		return err
	}
	return nil
}

// enter puts the suspended program in the job, and resumes it.
func (g *group) enter() error {
	pid := uint32(g.cmd.Process.Pid)
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, pid)
	if err != nil {
		return fmt.Errorf("opening the process: %w", err)
	}
	g.proc = proc
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := windows.AssignProcessToJobObject(g.job, proc); err != nil {
		return fmt.Errorf("assigning the process to its job object: %w", err)
	}
	if g.stopped {
		// The context ended while the program was being started.
		return windows.TerminateJobObject(g.job, 1)
	}
	return resumeThreads(pid)
}

// resumeThreads resumes the threads of the process pid, started
// suspended: os.StartProcess keeps the handle of its main thread to itself.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the threads of the process: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("opening a thread of the process: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming the process: %w", err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("listing the threads of the process: %w", err)
	}
	if resumed == 0 {
		return errors.New("resuming the process: it has no thread")
	}
	return nil
}

// terminate is cmd.Cancel: it kills the whole job.
func (g *group) terminate() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return os.ErrProcessDone
	}
	g.stopped = true
	return windows.TerminateJobObject(g.job, 1)
}

// cutOff kills the whole run at once because its output passed
// max_output.
func (g *group) cutOff() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

// wait waits for the program, kills whatever it left running in its job,
// and reaps it. It reports whether the run was stopped because the context
// ended.
func (g *group) wait() (stopped bool, err error) {
	_, _ = windows.WaitForSingleObject(g.proc, windows.INFINITE)
	g.mu.Lock()
	_ = windows.TerminateJobObject(g.job, 1)
	g.gone = true
	stopped = g.stopped
	g.mu.Unlock()
	err = g.cmd.Wait()
	g.release()
	return stopped, err
}

// release closes the handles; closing the job kills what is left in it.
func (g *group) release() {
	if g.proc != 0 {
		windows.CloseHandle(g.proc)
		g.proc = 0
	}
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// exitStatus is the exit code of a finished process; Windows has no
// signals.
func exitStatus(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }

// ownCgroupDir is "": Windows has no cgroups, jobs take their place.
func ownCgroupDir() string { return "" }
