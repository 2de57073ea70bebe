package main

import (
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) serveCmd() *cobra.Command {
	var addr string
	c := &cobra.Command{
		Use:   "serve PATH...",
		Short: "Serve the tools over MCP, on stdio or streamable HTTP",
		Long: `Serve loads the configuration at each PATH and serves its tools over the
Model Context Protocol: on stdin and stdout by default, or as streamable HTTP at
/mcp with --http ADDR. On stdio nothing but protocol messages goes to stdout;
logs go to stderr. SIGINT or SIGTERM stops the server, letting calls in flight
finish.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			logger, err := a.logger()
			if err != nil {
				return err
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			srv := server.New(cfg, logger)
			if addr == "" {
				logger.Info("serving on stdio", "tools", len(cfg.Tools))
				return server.ServeStdio(ctx, srv)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("cannot listen on %s: %w", addr, err)
			}
			logger.Info("serving streamable HTTP", "url", "http://"+ln.Addr().String()+server.Path, "tools", len(cfg.Tools))
			return server.ServeHTTP(ctx, ln, server.Handler(srv, server.MaxRequestBody(cfg.Settings), logger), logger)
		},
	}
	c.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (such as 127.0.0.1:8080) at /mcp instead of stdio")
	a.addVarFlag(c)
	return c
}
