package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdecl/mcpdecl/adapters"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/text"
)

// Exit codes of the command.
const (
	exitOK    = 0
	exitError = 1 // a configuration error or a failed call
	exitUsage = 2 // the command line itself is wrong
)

// exitCoder is an error that carries the exit code to end with; its message
// has already been printed.
type exitCoder struct{ code int }

func (e exitCoder) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError marks a mistake on the command line.
type usageError struct{ error }

// Main runs the command line with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	var ec exitCoder
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ec):
		return ec.code
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command"):
		fmt.Fprintf(stderr, "Error: %s\nRun '%s --help' for usage.\n", err, commandPath(root, args))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return exitError
	}
}

// commandPath is the command args name, such as "mcpdecl serve", or
// "mcpdecl" alone when they name no subcommand, for usage hints.
func commandPath(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil {
		return c.CommandPath()
	}
	return root.CommandPath()
}

// app is what the subcommands share.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	vars           []string
	logLevel       string
	serving        bool // serve: logs at info unless --log-level says otherwise
	logFormat      string
	envFiles       []string
	collect        *diagCollector // when set, load gathers diagnostics here instead of printing them
	read           func(string)   // when set, told each file a load reads or tries to read (serve --watch)
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "mcpdecl",
		Short:         "Serve tools declared in HCL over the Model Context Protocol",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "", "log level: debug, info, warn or error (logs go to stderr; default info for serve, warn for the commands that run once)")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "text", "log format: text or json")
	root.AddCommand(a.serveCmd(), a.validateCmd(), a.listCmd(), a.callCmd(), a.versionCmd())
	root.AddCommand(a.fmtCmd())
	root.AddCommand(a.initCmd())
	root.AddCommand(a.testCmd())
	root.AddCommand(a.readCmd(), a.promptCmd(), a.completeCmd())
	root.AddCommand(a.importCmd())
	root.AddCommand(a.schemaCmd())
	root.AddCommand(a.lspCmd())
	root.AddCommand(a.installClientCmd())
	return root
}

// addVarFlag adds --var to a command that loads configuration.
func (a *app) addVarFlag(c *cobra.Command) {
	c.Flags().StringArrayVar(&a.vars, "var", nil, "set a variable: --var name=value (repeatable; wins over MCPDECL_VAR_name and defaults)")
	c.Flags().StringArrayVar(&a.envFiles, "env-file", nil, "read values for env() and MCPDECL_VAR_name from a dotenv file (repeatable; the environment wins over it)")
}

// args checks positional arguments, as a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			// Cobra's "requires at least 2 arg(s), only received 1" says
			// neither what the command takes nor what it was given.
			takes := "no arguments"
			if _, rest, ok := strings.Cut(cmd.Use, " "); ok {
				takes = rest
			}
			given := "none"
			if len(args) > 0 {
				quoted := make([]string, len(args))
				for i, a := range args {
					if r := []rune(a); len(r) > 40 {
						a = string(r[:40]) + "…"
					}
					quoted[i] = strconv.Quote(a)
				}
				given = fmt.Sprintf("%d argument", len(args))
				if len(args) > 1 {
					given += "s"
				}
				given += ": " + strings.Join(quoted, " ")
			}
			return usageError{fmt.Errorf("%s takes %s; it was given %s", cmd.CommandPath(), takes, given)}
		}
		return nil
	}
}

// loadGCPercent is the GOGC in force while a large configuration loads,
// one of at least largeConfig bytes.
const (
	loadGCPercent = 400
	largeConfig   = 64 << 10
)

// configBytes is the size of the files at paths: files, or directories of
// .hcl files. What cannot be read counts for nothing: the loader reports it.
func configBytes(paths []string) int64 {
	var n int64
	names, _ := load.ConfigFiles(paths)
	for _, name := range names {
		if info, err := os.Stat(name); err == nil {
			n += info.Size()
		}
	}
	return n
}

// registry lists the adapters mcpdecl is built with.
func registry() *engine.Registry {
	return adapters.Registry()
}

// load reads the configuration at paths, printing every diagnostic to
// stderr. It returns an exitCoder error when the configuration has errors.
func (a *app) load(paths []string) (*engine.Config, error) {
	cfg, files, diags, secrets, err := a.loadDiagnostics(paths)
	if err != nil {
		return nil, err
	}
	a.report(files, diags, secrets)
	if diags.HasErrors() {
		return nil, exitCoder{exitError}
	}
	return cfg, nil
}

// loadDiagnostics reads the configuration at paths and returns it (nil
// when diags has errors) with the files read, the diagnostics and the
// secrets to redact from them. err is a mistake in the flags.
func (a *app) loadDiagnostics(paths []string) (cfg *engine.Config, files load.Files, diags hcl.Diagnostics, secrets *text.Redactor, err error) {
	vars, err := a.varValues()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	// Loading allocates a lot of short-lived memory (HCL's tokens, schema
	// documents): collecting garbage less often while it runs makes large
	// configurations load about twice as fast, for a little more peak heap.
	// Small ones load in milliseconds either way, and would only keep the
	// larger heap as resident memory.
	if configBytes(paths) >= largeConfig {
		defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	}
	logger, err := a.logger()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	secrets = &text.Redactor{}
	lookupEnv, envDiags := a.envLookup()
	if envDiags.HasErrors() {
		return nil, nil, envDiags, secrets, nil
	}
	cfg, files, diags = load.Load(load.Options{Registry: registry(), Vars: vars, LookupEnv: lookupEnv, Logger: logger, Redactor: secrets, Read: a.read}, paths...)
	diags = append(envDiags, diags...)
	if diags.HasErrors() {
		cfg = nil
	}
	return cfg, files, diags, secrets, nil
}

// varValues reads the --var flags.
func (a *app) varValues() (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range a.vars {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return nil, usageError{fmt.Errorf("--var %q must be name=value", kv)}
		}
		vars[name] = value
	}
	return vars, nil
}

// checkTimeout bounds the reachability checks of a configuration.
const checkTimeout = 15 * time.Second

// check connects to what the configuration's resources reach (databases),
// printing what does not answer.
func (a *app) check(ctx context.Context, cfg *engine.Config) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if err := cfg.Check(ctx); err != nil {
		fmt.Fprintf(a.stderr, "Error: %s\n", cfg.Redactor.Redact(err.Error()))
		return exitCoder{exitError}
	}
	return nil
}

// logger returns the logger the flags ask for, writing to stderr.
func (a *app) logger() (*slog.Logger, error) {
	level := slog.LevelWarn // a command run once says only what went wrong
	if a.logLevel == "" && a.serving {
		level = slog.LevelInfo
	} else if err := level.UnmarshalText([]byte(cmp.Or(a.logLevel, "warn"))); err != nil {
		return nil, usageError{fmt.Errorf("--log-level %q: use debug, info, warn or error", a.logLevel)}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch a.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(a.stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(a.stderr, opts)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format %q: use text or json", a.logFormat)}
}
