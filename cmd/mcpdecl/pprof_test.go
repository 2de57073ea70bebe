package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestPprof: --pprof serves the profiler on its own listener and turns the
// sampling of allocations on, which main turns off, so that a heap profile
// has something in it.
func TestPprof(t *testing.T) {
	saved := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = saved })
	runtime.MemProfileRate = 0

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	stop, err := servePprof(addr, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if runtime.MemProfileRate == 0 {
		t.Error("serving the profiler left the sampling of allocations off")
	}
	if _, err := servePprof(addr, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "cannot listen on "+addr+" for --pprof") {
		t.Errorf("a second listener on the same address: %v", err)
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile:") {
		t.Errorf("heap profile: %d %.200s", resp.StatusCode, body)
	}
}
