package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/metrics"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) serveCmd() *cobra.Command {
	var addr string
	var watch bool
	var pprofAddr string
	var toolset string
	var discovery bool
	var metricsOnHTTP bool
	var metricsAddr string
	c := &cobra.Command{
		Use:   "serve PATH...",
		Short: "Serve the tools over MCP, on stdio or streamable HTTP",
		Long: `Serve loads the configuration at each PATH and serves its tools over the
Model Context Protocol: on stdin and stdout by default, or as streamable HTTP at
/mcp with --http ADDR. On stdio nothing but protocol messages goes to stdout;
logs go to stderr. SIGINT or SIGTERM stops the server, letting calls in flight
finish.

Over HTTP, /healthz answers 200 while the process runs and /readyz 200 when
the configuration is loaded and its databases (and the auth block's JWKS)
answer, 503 otherwise; neither needs a token nor tells why.

With --metrics, the HTTP listener also serves Prometheus metrics at /metrics;
--metrics-addr ADDR serves them on a listener of their own (over stdio too).
When MCPDECL_METRICS_TOKEN is set, /metrics requires it as a bearer token; it
is never behind the auth block.

With --watch, a change to the configuration files reloads it, as SIGHUP
always does: the new configuration is checked in full first (a broken edit is
logged and the old tools keep serving), then swapped in at once, and clients
are told that the list of tools changed. Calls in flight finish on the
configuration they started with.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			a.serving = true
			logger, err := a.logger()
			if err != nil {
				return err
			}
			if metricsOnHTTP && addr == "" {
				return usageError{fmt.Errorf("--metrics serves /metrics on the --http listener; over stdio, give --metrics-addr ADDR instead")}
			}
			for _, f := range []struct{ flag, addr string }{{"--http", addr}, {"--metrics-addr", metricsAddr}, {"--pprof", pprofAddr}} {
				if err := checkListenAddr(f.addr); err != nil {
					return usageError{fmt.Errorf("%s %q: %v; give HOST:PORT, such as 127.0.0.1:8080 (port 0 picks a free one)", f.flag, f.addr, err)}
				}
			}
			if toolset != "" && addr != "" {
				return usageError{fmt.Errorf("--toolset is for stdio: over HTTP each toolset is served at %s/NAME, besides every tool at %s", server.Path, server.Path)}
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			if _, ok := cfg.Toolset(toolset); toolset != "" && !ok {
				_ = cfg.Close()
				return usageError{fmt.Errorf("--toolset %q: the configuration declares no such toolset%s", toolset, toolsetNames(cfg))}
			}
			if err := a.check(cmd.Context(), cfg); err != nil {
				_ = cfg.Close()
				return err
			}
			if err := server.CheckAudit(cfg); err != nil {
				_ = cfg.Close()
				return err
			}
			if len(cfg.Tools) == 0 {
				logger.Warn(noTools)
			}
			if pprofAddr != "" {
				stopProfiling, err := servePprof(pprofAddr, logger)
				if err != nil {
					_ = cfg.Close()
					return err
				}
				defer stopProfiling()
			}
			var m *metrics.Metrics
			if metricsOnHTTP || metricsAddr != "" {
				m = metrics.New()
			}
			metricsToken := os.Getenv(MetricsTokenEnv)
			if metricsAddr != "" {
				stopMetrics, err := serveMetrics(metricsAddr, m, metricsToken, logger)
				if err != nil {
					_ = cfg.Close()
					return err
				}
				defer stopMetrics()
			}
			tr, err := startTracing(m, logger)
			if err != nil {
				_ = cfg.Close()
				return err
			}
			defer stopTracing(tr, logger)
			down := &shutdown{logger: logger}
			ctx, stop := down.onSignal(cmd.Context())
			defer stop()
			live := server.NewLive(cfg, logger, server.Options{Watch: watch, HTTP: addr != "", TextAudit: a.logFormat == "text", Toolset: toolset, Discovery: discovery,
				Metrics: m, MetricsOnHTTP: metricsOnHTTP, MetricsToken: metricsToken, Tracing: tr})
			defer live.Close()

			reloads := make(chan string, 1)
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			go func() {
				for range hup {
					trigger(reloads, "SIGHUP")
				}
			}()
			if watch {
				w, err := watchFiles(paths, reloads, logger)
				if err != nil {
					return err
				}
				defer w.Close()
				follow := func(files []string) {
					if err := w.watch(files); err != nil {
						logger.Warn("watching the files the configuration read", "error", err)
					}
				}
				follow(append(cfg.Files(), absPaths(a.envFiles)...))
				// From here on, each reload's files, even a failed one's:
				// a file it could not read reloads when it appears.
				a.read = func(path string) { follow([]string{path}) }
			}
			go a.reloadLoop(ctx, paths, live, reloads, logger, m.Reloaded)

			if addr == "" {
				if toolset != "" {
					logger.Info("serving on stdio", served(cfg, "toolset", toolset, "watch", watch)...)
				} else {
					logger.Info("serving on stdio", served(cfg, "watch", watch)...)
				}
				stdin := &eofReader{ReadCloser: os.Stdin, eof: func() { down.begin("stdin closed") }}
				return down.stopped(live.ServeStdio(ctx, stdin))
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("cannot listen on %s: %w", addr, err)
			}
			logger.Info("serving streamable HTTP", served(cfg, "url", "http://"+ln.Addr().String()+server.Path, "watch", watch)...)
			if st := cfg.Settings; st.HTTPSessions {
				logger.Info("keeping HTTP sessions for clients before 2026-07-28, in this process alone: a load balancer must route each Mcp-Session-Id to it", "max_http_sessions", st.MaxHTTPSessions, "http_session_idle_timeout", st.HTTPSessionIdleTimeout)
			}
			for _, ts := range cfg.Toolsets {
				logger.Info("serving a toolset", "toolset", ts.Name, "url", "http://"+ln.Addr().String()+server.Path+"/"+ts.Name, "tools", len(ts.Tools))
			}
			warnOpenScopes(cfg, logger)
			warnOpenAddress(cfg, ln.Addr(), logger)
			return down.stopped(server.ServeHTTP(ctx, ln, live.HTTPHandler(), server.DefaultLimits(cfg.Settings, raiseOpenFiles(logger)), logger))
		},
	}
	c.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (such as 127.0.0.1:8080) at /mcp instead of stdio")
	c.Flags().StringVar(&toolset, "toolset", "", "over stdio, serve the tools of this toolset alone (over HTTP, each toolset is at /mcp/NAME)")
	c.Flags().BoolVar(&discovery, "discovery", false, "serve three tools (search_tools, describe_tool, call_tool) in place of a catalog too large to list")
	c.Flags().BoolVar(&watch, "watch", false, "reload the configuration when its files change, and tell clients")
	c.Flags().BoolVar(&metricsOnHTTP, "metrics", false, "serve Prometheus metrics at /metrics on the --http listener (MCPDECL_METRICS_TOKEN, when set, is the bearer token it requires)")
	c.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on a listener of their own at ADDR, such as 127.0.0.1:9464 (over stdio too)")
	c.Flags().StringVar(&pprofAddr, "pprof", "", "serve Go's profiler (net/http/pprof) on ADDR, such as 127.0.0.1:6060; keep it off public interfaces")
	a.addVarFlag(c)
	return c
}

// trigger asks for a reload, unless one is already pending.
func trigger(reloads chan<- string, why string) {
	select {
	case reloads <- why:
	default:
	}
}

// hasAuth reports whether cfg has an auth block: whether HTTP requests
// need a token.
func hasAuth(cfg *engine.Config) bool {
	for _, r := range cfg.Blocks() {
		if _, ok := r.(server.Authenticator); ok {
			return true
		}
	}
	return false
}

// warnOpenAddress warns when the HTTP listener at addr can be reached from
// other machines (any address but loopback: 0.0.0.0 and :: included) and
// no auth block asks for a token: anyone who reaches it can call every
// tool. That is fine behind a proxy that authenticates, which the server
// cannot see, so it warns and serves.
func warnOpenAddress(cfg *engine.Config, addr net.Addr, logger *slog.Logger) {
	if hasAuth(cfg) {
		return
	}
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return
	}
	logger.Warn("serving HTTP on an address other machines can reach, with no auth block: anyone who reaches it can list and call every tool, without a token. Add an auth block (bearer tokens or OAuth), listen on 127.0.0.1 (--http 127.0.0.1:PORT), or make sure a proxy in front authenticates every request", "address", addr.String())
}

// warnOpenScopes warns when tools declare scopes but nothing checks tokens:
// over HTTP without an auth block, anyone can call them.
func warnOpenScopes(cfg *engine.Config, logger *slog.Logger) {
	if hasAuth(cfg) {
		return
	}
	for _, t := range cfg.Tools {
		if len(t.Scopes()) > 0 {
			logger.Warn("tools declare scopes, but without an auth block no token is checked: anyone who reaches this address can call every tool; add an auth block", "tool", t.Name())
			return
		}
	}
}

// served is the attributes of a log line that says what cfg serves: its
// tools, and its resources, templates and prompts when it has some; then
// more.
func served(cfg *engine.Config, more ...any) []any {
	attrs := []any{"tools", len(cfg.Tools)}
	for _, c := range []struct {
		name string
		n    int
	}{{"resources", len(cfg.Resources)}, {"resource_templates", len(cfg.Templates)}, {"prompts", len(cfg.Prompts)}} {
		if c.n > 0 {
			attrs = append(attrs, c.name, c.n)
		}
	}
	return append(attrs, more...)
}

// toolsetNames lists cfg's toolsets for a message, or says it has none.
func toolsetNames(cfg *engine.Config) string {
	if len(cfg.Toolsets) == 0 {
		return "; it declares none"
	}
	var names []string
	for _, t := range cfg.Toolsets {
		names = append(names, t.Name)
	}
	return "; it declares " + strings.Join(names, ", ")
}

// checkListenAddr says what is wrong with addr as an address to listen on
// (HOST:PORT, the host may be empty), before anything is loaded; "" is no
// listener.
func checkListenAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err == nil {
		return nil
	}
	if _, err := net.LookupPort("tcp", port); err != nil { // a service name, such as http
		return fmt.Errorf("the port %q is not a number from 0 to 65535", port)
	}
	return nil
}
