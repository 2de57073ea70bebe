package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/mcpdecl/mcpdecl/engine/metrics"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

// MetricsTokenEnv names the environment variable of the bearer token that
// /metrics requires, when it is set.
const MetricsTokenEnv = "MCPDECL_METRICS_TOKEN"

// serveMetrics serves m at metrics.Path on its own listener at addr (for
// --metrics-addr), behind token when it is not empty, until the returned
// function is called.
func serveMetrics(addr string, m *metrics.Metrics, token string, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for --metrics-addr: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(metrics.Path, m.Handler(token))
	limits := server.Limits{
		ReadHeaderTimeout: server.DefaultReadHeaderTimeout,
		ReadTimeout:       server.DefaultReadTimeout,
		WriteTimeout:      server.DefaultReadTimeout,
		IdleTimeout:       server.DefaultIdleTimeout,
		MaxConnections:    16,
	}
	stop := serveAside(ln, mux, limits, logger, "the metrics endpoint")
	logger.Info("serving metrics", "url", "http://"+ln.Addr().String()+metrics.Path, "token", token != "")
	return stop, nil
}
