package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"strings"
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
			msgs, err := p.Get(cmd.Context(), args)
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

func (a *app) completeCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "complete PATH... REF ARG [VALUE]",
		Short: "Complete one argument of a prompt or a resource template and print the MCP result",
		Long: `Complete loads the configuration at each PATH and completes the argument ARG
of REF (a prompt's name, or a resource template's name or URI template)
for the text typed so far, VALUE (none means ""), from the argument's
complete block or its enum, and prints the completion/complete result as
JSON, as a client would receive it. A completion that fails exits with 1; a
REF or ARG the configuration does not declare, with 2.`,
		Args: args(cobra.MinimumNArgs(3)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			// The PATHs are the leading arguments that exist; then REF,
			// ARG and perhaps VALUE.
			n := 0
			for n < len(rest) {
				if _, err := os.Stat(rest[n]); err != nil {
					break
				}
				n++
			}
			paths, tail := rest[:n], rest[n:]
			if len(paths) == 0 || len(tail) < 2 || len(tail) > 3 {
				return usageError{fmt.Errorf("complete takes PATH... REF ARG [VALUE], with the configuration's files or directories first (they must exist)")}
			}
			ref, arg, value := tail[0], tail[1], ""
			if len(tail) == 3 {
				value = tail[2]
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			var values []string
			var more bool
			if p, ok := cfg.Prompt(ref); ok {
				if !slices.ContainsFunc(p.Args, func(pa engine.PromptArg) bool { return pa.Name == arg }) {
					return usageError{fmt.Errorf("the prompt %q has no argument %q", ref, arg)}
				}
				values, more, err = p.Complete(ctx, arg, value, server.MaxCompletions)
			} else if t := templateNamed(cfg, ref); t != nil {
				if !slices.Contains(t.Variables(), arg) {
					return usageError{fmt.Errorf("the resource template %q has no variable %q; its variables are %s", t.URITemplate, arg, strings.Join(t.Variables(), ", "))}
				}
				values, more, err = t.Complete(ctx, arg, value, server.MaxCompletions)
			} else {
				return usageError{fmt.Errorf("no prompt or resource template %q (mcpdecl list shows them)", ref)}
			}
			if err != nil {
				fmt.Fprintf(a.stderr, "Error: completing %s failed: %s\n", arg, cfg.Redactor.Redact(err.Error()))
				return exitCoder{exitError}
			}
			if values == nil {
				values = []string{}
			}
			return a.printJSON(map[string]any{"completion": map[string]any{"values": values, "hasMore": more}})
		},
	}
	a.addVarFlag(c)
	return c
}

// templateNamed is the resource template of cfg whose name or URI template
// is ref, or nil.
func templateNamed(cfg *engine.Config, ref string) *engine.ResourceTemplate {
	for _, t := range cfg.Templates {
		if t.Name == ref || t.URITemplate == ref {
			return t
		}
	}
	return nil
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
