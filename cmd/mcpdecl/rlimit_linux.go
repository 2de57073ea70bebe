package main

import (
	"log/slog"
	"syscall"
)

// raiseOpenFiles raises the soft limit on open files (RLIMIT_NOFILE) to the
// hard limit, so that the HTTP front's connections and what the tools
// connect to do not run out of descriptors, and returns the limit in force
// (0 when unknown). Go's runtime usually raises it already; the limit is set
// only when it is still lower, as setting it also passes the raised limit
// on to the processes the exec tools start.
func raiseOpenFiles(logger *slog.Logger) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		logger.Debug("cannot read the open-file limit", "error", err)
		return 0
	}
	if lim.Cur < lim.Max {
		raised := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			logger.Debug("cannot raise the open-file limit", "soft", lim.Cur, "hard", lim.Max, "error", err)
			return lim.Cur
		}
		logger.Debug("raised the open-file limit", "from", lim.Cur, "to", lim.Max)
		return lim.Max
	}
	logger.Debug("open-file limit", "limit", lim.Cur)
	return lim.Cur
}
