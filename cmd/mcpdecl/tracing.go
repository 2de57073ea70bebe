package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/engine/metrics"
	"github.com/mcpdecl/mcpdecl/engine/tracing"
)

// flushTimeout bounds the sending of the last spans at shutdown.
const flushTimeout = 5 * time.Second

// startTracing starts sending traces when the OTEL_* environment variables
// ask for them (see [tracing.FromEnv]); it returns nil when they do not.
// With metrics, the spans it drops are counted.
func startTracing(m *metrics.Metrics, logger *slog.Logger) (*tracing.Tracing, error) {
	info, _ := debug.ReadBuildInfo()
	ver := strings.TrimPrefix(describeBuild(buildStamp{version: version}, info)[0], "mcpdecl ")
	tr, err := tracing.FromEnv(tracing.Options{Version: ver, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("cannot send traces: %w", err)
	}
	if tr != nil {
		logger.Info("sending traces over OTLP", "endpoint", tr.Endpoint())
		m.CountDroppedSpans(tr.Dropped)
	}
	return tr, nil
}

// stopTracing sends the spans still queued, for flushTimeout at most.
func stopTracing(tr *tracing.Tracing, logger *slog.Logger) {
	if tr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		logger.Warn("the last traces could not be sent", "endpoint", tr.Endpoint(), "error", err)
	}
}
