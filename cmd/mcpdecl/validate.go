package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine"
)

// noTools warns of a configuration that declares no tools: it loads, but
// serves nothing, which is rarely what was meant.
const noTools = "the configuration declares no tools: clients will see an empty list; declare a tool block"

func (a *app) validateCmd() *cobra.Command {
	var connect bool
	var format string
	c := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Load and type-check the configuration, printing every problem",
		Long: `Validate loads the configuration at each PATH (an .hcl file, or a directory
whose *.hcl files are read in name order), type-checks every expr program, and
prints every problem found with file:line:col and a source snippet. It exits
with 1 when there is any error. With --connect it also connects to every
database, as serve does (a database's init SQL then runs if it has not yet).

With --format json it prints one JSON document on stdout instead, with every
diagnostic's severity, summary, detail and source range (see docs/commands.md for
its shape); the exit code is the same.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			switch format {
			case "text":
			case "json":
				return a.validateJSON(cmd.Context(), paths, connect)
			default:
				return usageError{fmt.Errorf("--format %q: use text or json", format)}
			}
			cfg, err := a.load(paths)
			if err != nil {
				return err
			}
			defer cfg.Close()
			if connect {
				if err := a.check(cmd.Context(), cfg); err != nil {
					return err
				}
			}
			n := len(cfg.Tools)
			if n == 0 {
				fmt.Fprintf(a.stderr, "Warning: %s.\n", noTools)
			}
			fmt.Fprintf(a.stdout, "The configuration is valid: %s.\n", counts(cfg))
			return nil
		},
	}
	c.Flags().BoolVar(&connect, "connect", false, "also connect to every database and check that it answers")
	c.Flags().StringVar(&format, "format", "text", "how to print the diagnostics: text (on stderr) or json (one document on stdout)")
	a.addVarFlag(c)
	return c
}

// counts says what cfg serves: its tools, and its resources, resource
// templates and prompts when it has some.
func counts(cfg *engine.Config) string {
	s := fmt.Sprintf("%d %s", len(cfg.Tools), plural(len(cfg.Tools), "tool", "tools"))
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{len(cfg.Resources), "resource", "resources"},
		{len(cfg.Templates), "resource template", "resource templates"},
		{len(cfg.Prompts), "prompt", "prompts"},
	} {
		if c.n > 0 {
			s += fmt.Sprintf(", %d %s", c.n, plural(c.n, c.one, c.many))
		}
	}
	return s
}
