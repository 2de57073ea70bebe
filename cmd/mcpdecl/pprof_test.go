package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
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

// TestPprofBounds: the profiler's listener cuts a request whose body comes a
// byte at a time, and closes idle connections, as the MCP endpoint does.
func TestPprofBounds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	limits := pprofLimits()
	limits.ReadTimeout, limits.IdleTimeout = 300*time.Millisecond, 300*time.Millisecond
	stop, err := servePprofWithin(addr, limits, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	requests := map[string]string{
		"slow body": "POST /debug/pprof/symbol HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n0",
		"idle":      "GET /debug/pprof/cmdline HTTP/1.1\r\nHost: x\r\n\r\n",
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			defer close(done)
			go func() { // the slow body goes on, a byte at a time
				for name == "slow body" {
					select {
					case <-done:
						return
					case <-time.After(100 * time.Millisecond):
						if _, err := conn.Write([]byte("+")); err != nil {
							return
						}
					}
				}
			}()
			_ = conn.SetReadDeadline(time.Now().Add(enginetest.Patience))
			_, err = io.ReadAll(conn)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the connection is still open after %s", enginetest.Patience)
			}
		})
	}
}
