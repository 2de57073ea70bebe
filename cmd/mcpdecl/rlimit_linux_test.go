package main

import (
	"log/slog"
	"syscall"
	"testing"
)

// TestRaiseOpenFiles: a soft open-file limit below the hard one is raised
// to it, and the limit in force is returned.
func TestRaiseOpenFiles(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	if orig.Max < 256 {
		t.Skipf("the hard open-file limit is %d, too low to lower the soft one under it", orig.Max)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	low := syscall.Rlimit{Cur: 128, Max: orig.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	if got := raiseOpenFiles(slog.New(slog.DiscardHandler)); got != orig.Max {
		t.Errorf("raiseOpenFiles returned %d, want the hard limit %d", got, orig.Max)
	}
	var now syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil {
		t.Fatal(err)
	}
	if now.Cur != orig.Max {
		t.Errorf("the soft limit is %d after raising, want %d", now.Cur, orig.Max)
	}
}
