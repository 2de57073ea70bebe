package main

import (
	"cmp"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/calltrace"
	"github.com/mcpdecl/mcpdecl/engine/server"
)

func (a *app) callCmd() *cobra.Command {
	var trace, clientLog string
	c := &cobra.Command{
		Use:   "call PATH... TOOL [JSON]",
		Short: "Run one tool once and print the MCP result",
		Long: `Call loads the configuration at each PATH, runs TOOL once with the JSON
arguments (an object; none means {}), and prints the MCP result as JSON, as a
client would receive it. It exits with 1 when the result is a tool error.

The last argument is the JSON arguments when it starts with "{" (white
space before it is allowed); then the one before it is TOOL, and the others
are PATHs. Arguments that are not one JSON object, a PATH that does not
exist and a TOOL the configuration does not declare are mistakes on the
command line (exit code 2).

With --trace, every stage of the call is printed on stderr, with its
duration: the arguments, the request and response (or the command, or the
statement), each program's value and the output validation, secrets
redacted. --trace=json prints the same, and the result, as one JSON
document on stderr.

The log messages the tool sends (an exec action's log_stderr, its log
blocks) are printed on stderr as "LEVEL TOOL: MESSAGE" when they are at or
above --client-log LEVEL (debug, info, notice, warning, error, critical,
alert, emergency), as a client that set that level would receive them; by
default at or above the server block's log_level, or none without one.`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, rest []string) error {
			if err := checkTraceMode(trace); err != nil {
				return err
			}
			if clientLog != "" && !slices.Contains(engine.LogLevels, clientLog) {
				return usageError{fmt.Errorf("--client-log %q is not a log level: use one of %s", clientLog, strings.Join(engine.LogLevels, ", "))}
			}
			paths, name, raw, err := splitCallArgs(rest)
			if err != nil {
				return err
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			tool, ok := cfg.Tool(name)
			if !ok {
				return usageError{cfg.UnknownTool(name)}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if level := cmp.Or(clientLog, cfg.Settings.LogLevel); level != "" {
				ctx = engine.WithLog(ctx, printLog(a.stderr, name, level))
			}
			var rec *calltrace.Recorder
			if trace != "" {
				rec = &calltrace.Recorder{}
				ctx = calltrace.With(ctx, rec)
			}
			if tool.Asks() {
				// No one to ask: a confirmation is refused (unless the
				// tool runs without one), a missing argument reported.
				why := "mcpdecl call has no one to ask (a client asks the person; mcpdecl test answers with a test's answer)"
				ctx = engine.WithAsking(ctx, &engine.Asking{Why: why, SamplingWhy: why})
			}
			began := time.Now()
			res := tool.Call(ctx, raw)
			took := time.Since(began)
			b, err := server.ResultJSON(res)
			if err != nil {
				return err
			}
			if rec != nil {
				if err := writeTrace(a.stderr, trace, name, rec.Stages(), took, b); err != nil {
					return err
				}
			}
			fmt.Fprintf(a.stdout, "%s\n", b)
			if res.IsError {
				return exitCoder{exitError}
			}
			return nil
		},
	}
	a.addVarFlag(c)
	addTraceFlag(c, &trace)
	c.Flags().StringVar(&clientLog, "client-log", "", "print the tool's log messages at or above this level on stderr (default: the server block's log_level)")
	return c
}

// printLog writes the log messages of a call of tool at or above level to
// w, one line each: what a client that set that level would be sent.
func printLog(w io.Writer, tool, level string) engine.LogFunc {
	least := slices.Index(engine.LogLevels, level)
	return func(l, text string) {
		if slices.Index(engine.LogLevels, l) >= least {
			fmt.Fprintf(w, "%s %s: %s\n", l, tool, text)
		}
	}
}
