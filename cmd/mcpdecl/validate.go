package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) validateCmd() *cobra.Command {
	var connect bool
	c := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Load and type-check the configuration, printing every problem",
		Long: `Validate loads the configuration at each PATH (an .hcl file, or a directory
whose *.hcl files are read in name order), type-checks every expr program, and
prints every problem found with file:line:col and a source snippet. It exits
with 1 when there is any error. With --connect it also connects to every
database, as serve does (a database's init SQL then runs if it has not yet).`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
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
			fmt.Fprintf(a.stdout, "The configuration is valid: %d %s.\n", n, plural(n, "tool", "tools"))
			return nil
		},
	}
	c.Flags().BoolVar(&connect, "connect", false, "also connect to every database and check that it answers")
	a.addVarFlag(c)
	return c
}
