package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// shutdown logs why serve stops, once, and when it has stopped.
type shutdown struct {
	logger *slog.Logger
	once   sync.Once
}

// begin logs "shutting down" with reason, the first time it is called.
func (s *shutdown) begin(reason string) {
	s.once.Do(func() { s.logger.Info("shutting down", "reason", reason) })
}

// stopped logs "stopped" when the server ended without an error, and
// returns err.
func (s *shutdown) stopped(err error) error {
	if err == nil {
		s.logger.Info("stopped")
	}
	return err
}

// onSignal returns a context that SIGINT or SIGTERM cancels, logging the
// signal as the reason to shut down. stop releases the signals.
func (s *shutdown) onSignal(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig := <-sigs:
			s.begin("signal " + signalName(sig))
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
		<-done
	}
}

// signalName is the conventional name of sig, such as SIGTERM.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// eofReader calls eof once when reading ends: at the end of input or on a
// read error.
type eofReader struct {
	io.ReadCloser
	once sync.Once
	eof  func()
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		r.once.Do(r.eof)
	}
	return n, err
}
