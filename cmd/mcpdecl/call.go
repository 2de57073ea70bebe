package main

import (
	"encoding/json"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) callCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "call PATH... TOOL [JSON]",
		Short: "Run one tool once and print the MCP result",
		Long: `Call loads the configuration at each PATH, runs TOOL once with the JSON
arguments (an object; none means {}), and prints the MCP result as JSON, as a
client would receive it. It exits with 1 when the result is a tool error.

The last argument is taken as JSON when it starts with "{".`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			var raw json.RawMessage
			if last := rest[len(rest)-1]; len(last) > 0 && last[0] == '{' {
				raw = json.RawMessage(last)
				rest = rest[:len(rest)-1]
			}
			if len(rest) < 2 {
				return usageError{fmt.Errorf("call needs at least one PATH and a TOOL name")}
			}
			paths, name := rest[:len(rest)-1], rest[len(rest)-1]
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			tool, ok := cfg.Tool(name)
			if !ok {
				names := make([]string, len(cfg.Tools))
				for i, t := range cfg.Tools {
					names[i] = t.Name()
				}
				return fmt.Errorf("no tool named %q; the tools are: %v", name, names)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			res := tool.Call(ctx, raw)
			b, err := server.ResultJSON(res)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s\n", b)
			if res.IsError {
				return exitCoder{exitError}
			}
			return nil
		},
	}
	a.addVarFlag(c)
	return c
}
