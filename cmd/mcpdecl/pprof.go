package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"golang.org/x/net/netutil"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// memProfileRate is the runtime's default sampling rate of allocations,
// which main turns off unless the profiler is served.
const memProfileRate = 512 * 1024

// pprofLimits bound the profiler's connections as the MCP endpoint's are
// bounded, with room to write a CPU profile or trace of up to a minute
// (the default is 30 seconds), and few connections.
func pprofLimits() server.Limits {
	return server.Limits{
		ReadHeaderTimeout: server.DefaultReadHeaderTimeout,
		ReadTimeout:       server.DefaultReadTimeout,
		WriteTimeout:      90 * time.Second,
		IdleTimeout:       server.DefaultIdleTimeout,
		MaxConnections:    16,
	}
}

// servePprof serves Go's profiler on its own listener at addr, apart from
// the MCP endpoint, until the returned function is called. Heap profiles
// count the allocations made from then on.
func servePprof(addr string, logger *slog.Logger) (func(), error) {
	return servePprofWithin(addr, pprofLimits(), logger)
}

// servePprofWithin is servePprof with the connections bounded by limits.
func servePprofWithin(addr string, limits server.Limits, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for --pprof: %w", addr, err)
	}
	if runtime.MemProfileRate == 0 {
		runtime.MemProfileRate = memProfileRate
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	stop := serveAside(ln, mux, limits, logger, "the profiler")
	logger.Info("serving the profiler", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return stop, nil
}

// serveAside serves h on ln, apart from the MCP endpoint, with the
// connections bounded by limits, until the returned function is called;
// what names it in the log should it stop on its own.
func serveAside(ln net.Listener, h http.Handler, limits server.Limits, logger *slog.Logger, what string) func() {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
	}
	if limits.MaxConnections > 0 {
		ln = netutil.LimitListener(ln, limits.MaxConnections)
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn(what+" stopped", "error", err)
		}
	}()
	return func() { _ = srv.Close() }
}
