//go:build unix

package server_test

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU starts measuring the CPU time of the process (user and system,
// every goroutine: the benchmark's client too); the function it returns
// adds it to the benchmark's results as cpu-ns/op. On a machine shared
// with other work, it moves less than ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
