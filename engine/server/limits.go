package server

import (
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
)

// The default bounds of the HTTP front's connections.
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included;
	// the call it carries then runs for up to the server's timeout.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a kept-alive connection may wait for
	// its next request.
	DefaultIdleTimeout = 60 * time.Second
	// writeMargin is the time an answer may take to be written beyond the
	// reading of its request and the call's timeout.
	writeMargin = 10 * time.Second
	// fdReserve is the share of the open-file limit kept for what the
	// tools connect to (databases, upstreams, files, processes).
	fdReserve = 2
)

// Limits bound the connections of the HTTP front, so that slow or idle
// clients cannot hold them, nor exhaust the process's open files.
type Limits struct {
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the end
	// of its answer; calls at [Path] extend it by the current settings'
	// timeout.
	WriteTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout time.Duration
	// MaxConnections caps the connections open at once; further clients
	// wait to be accepted. Zero means no cap.
	MaxConnections int
}

// DefaultLimits returns the limits for settings in a process that may open
// openFiles files (0 when unknown): the connection cap is lowered to half
// of openFiles when it is larger, to leave room for what the tools connect
// to.
func DefaultLimits(settings engine.Settings, openFiles uint64) Limits {
	maxConns := settings.MaxConnections
	if openFiles > 0 && uint64(maxConns) > openFiles/fdReserve {
		maxConns = int(max(openFiles/fdReserve, 1))
	}
	return Limits{
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		ReadTimeout:       DefaultReadTimeout,
		WriteTimeout:      callWriteTimeout(settings),
		IdleTimeout:       DefaultIdleTimeout,
		MaxConnections:    maxConns,
	}
}

// callWriteTimeout is the write timeout of a call under settings: time to
// read its request, run it, and write its answer.
func callWriteTimeout(settings engine.Settings) time.Duration {
	return DefaultReadTimeout + settings.Timeout + writeMargin
}
