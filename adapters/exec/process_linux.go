//go:build linux

package execaction

import "golang.org/x/sys/unix"

// awaitExit blocks until the process pid has exited, and leaves it
// unreaped, a zombie, so that its pid still names its process group. It
// returns false if it could not wait.
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}
