package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) readCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "read PATH... URI",
		Short: "Read one resource and print the MCP result",
		Long: `Read loads the configuration at each PATH, reads the resource at URI (a
resource's, or a resource template's that matches it) and prints the
resources/read result as JSON, as a client would receive it. It exits with 1
when the read fails, and with 2 when no resource has that URI.`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			paths, uri := rest[:len(rest)-1], rest[len(rest)-1]
			if err := checkPaths("read", "PATH... URI", paths); err != nil {
				return err
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			var contents []engine.ResourceContents
			switch r, t := cfg.ResourceAt(uri); {
			case r != nil:
				contents, err = r.Read(ctx)
			case t != nil:
				contents, err = t.Read(ctx, uri)
			default:
				return usageError{fmt.Errorf("no resource or resource template has the URI %q (mcpdecl list shows them)", uri)}
			}
			if err != nil {
				fmt.Fprintf(a.stderr, "Error: reading %s failed: %s\n", uri, cfg.Redactor.Redact(err.Error()))
				return exitCoder{exitError}
			}
			// The contents alone: the result's other members (ttlMs,
			// cacheScope) belong to a server's answer to one client.
			return a.printJSON(map[string]any{"contents": server.ReadResult(contents).Contents})
		},
	}
	a.addVarFlag(c)
	return c
}

func (a *app) promptCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "prompt PATH... NAME [JSON]",
		Short: "Get one prompt and print the MCP result",
		Long: `Prompt loads the configuration at each PATH, gets the prompt NAME with the
JSON arguments (an object of strings; none means {}), and prints the
prompts/get result as JSON, as a client would receive it. Arguments the
prompt refuses exit with 1; a NAME the configuration does not declare, with
2.`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			paths, name, raw, err := splitCallArgs(rest)
			if err != nil {
				return err
			}
			args := map[string]string{}
			if raw != nil {
				if err := json.Unmarshal(raw, &args); err != nil {
					return usageError{fmt.Errorf("a prompt's arguments are text: give them as one JSON object of strings, such as '{\"topic\": \"tea\"}'")}
				}
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			p, ok := cfg.Prompt(name)
			if !ok {
				return usageError{fmt.Errorf("no prompt named %q (mcpdecl list shows them)", name)}
			}
			msgs, err := p.Get(args)
			if err != nil {
				fmt.Fprintf(a.stderr, "Error: %s\n", cfg.Redactor.Redact(err.Error()))
				return exitCoder{exitError}
			}
			return a.printJSON(server.PromptResult(p, msgs))
		},
	}
	a.addVarFlag(c)
	return c
}

// printJSON prints v on stdout as indented JSON.
func (a *app) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

// checkPaths refuses a PATH that does not exist, as a usage error of
// command, whose arguments are usage.
func checkPaths(command, usage string, paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return usageError{fmt.Errorf("no file or directory %q: %s takes %s, with the configuration's files or directories first", p, command, usage)}
		}
	}
	return nil
}
