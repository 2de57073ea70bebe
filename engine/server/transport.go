package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"

	"github.com/mcpdecl/mcpdecl/engine"
)

// Path is where the streamable HTTP endpoint is mounted.
const Path = "/mcp"

// ServeStdio serves l on stdin (standard input, or a reader that wraps it)
// and standard output until the client disconnects or ctx is done.
func (l *Live) ServeStdio(ctx context.Context, stdin io.ReadCloser) error {
	return l.ServeIO(ctx, stdin, nopCloser{os.Stdout})
}

// ServeIO serves l on r and w as ServeStdio does on standard input and
// output: one JSON-RPC message a line. A line that is not a message, or
// longer than MaxRequestBody allows, is answered with a JSON-RPC error
// (-32700 parse error, -32600 invalid request; id null) and the session
// goes on. When r ends, the calls already read are answered (waiting up to
// ShutdownTimeout) before ServeIO returns; when ctx is done, so are they,
// and those still running after ShutdownTimeout are cancelled.
func (l *Live) ServeIO(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	l.mu.Lock()
	maxLine := MaxRequestBody(l.current.cfg.Settings)
	l.mu.Unlock()
	served := make(chan struct{})
	defer close(served)
	go func() {
		select {
		case <-served:
			return
		case <-ctx.Done():
		}
		// The SDK waits for the calls in flight, whose own timeouts may
		// be an hour: give them the grace period, then cancel them.
		grace := time.NewTimer(ShutdownTimeout)
		defer grace.Stop()
		select {
		case <-served:
		case <-grace.C:
			l.logger.Warn("calls still running after the grace period are cancelled", "grace", ShutdownTimeout)
			l.stop()
		}
	}()
	// Connect and Wait rather than Server.Run: Run logs a cancelled ctx,
	// which is how every normal stop by signal arrives, at Error.
	ss, err := l.srv.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: int(maxLine), DrainTimeout: ShutdownTimeout}, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
	}
	_ = ss.Close()
	<-ended
	return nil
}

// nopCloser is a writer whose Close does nothing: standard output belongs
// to the process, and stays open until it exits.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// envelope is the room a JSON-RPC request takes beyond its arguments.
const envelope = 64 << 10

// MaxRequestBody is the largest HTTP request body to accept for settings:
// the largest arguments, and room for the JSON-RPC envelope.
func MaxRequestBody(settings engine.Settings) int64 {
	return settings.MaxArgumentBytes + envelope
}

// ShutdownTimeout bounds how long calls in flight may take to finish once
// the server is asked to stop.
const ShutdownTimeout = 10 * time.Second

// ServeHTTP serves h on ln within limits until ctx is done, then shuts down
// gracefully, letting calls in flight finish for up to ShutdownTimeout;
// those still running then are left to the caller to cancel (Live.Close).
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, limits Limits, logger *slog.Logger) error {
	if limits.MaxConnections > 0 {
		ln = netutil.LimitListener(ln, limits.MaxConnections)
	}
	logger.Debug("HTTP connection limits", "max_connections", limits.MaxConnections, "read_timeout", limits.ReadTimeout, "write_timeout", limits.WriteTimeout, "idle_timeout", limits.IdleTimeout)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if f, ok := h.(*sessionFront); ok {
		// A session's GET stream lasts until its client leaves: ending
		// the sessions ends them, and the shutdown waits for calls alone.
		srv.RegisterOnShutdown(f.sessions.closeAll)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("calls still running after the grace period are cancelled", "grace", ShutdownTimeout)
		return nil
	} else if err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
