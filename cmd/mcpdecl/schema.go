package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
	"github.com/mcpdecl/mcpdecl/testrun"
)

//go:generate go run . schema --markdown --output ../../docs/language.md

func (a *app) schemaCmd() *cobra.Command {
	var markdown bool
	var output string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the language as JSON (blocks, attributes, types, docs, examples), derived from the specs",
		Long: "Print the language as JSON: every block declared by a spec, with its attributes (type, bounds, default, " +
			"documentation), nested blocks and an example. " +
			"With --markdown, print the reference instead (docs/language.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var out []byte
			if markdown {
				out = spec.Markdown(language())
			} else {
				j, err := spec.JSON(language())
				if err != nil {
					return err
				}
				out = append(j, '\n')
			}
			if output != "" {
				return os.WriteFile(output, out, 0o644)
			}
			_, err := a.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the reference in Markdown")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

// language is every block with a spec: the configuration's, its adapters'
// included, then the test files'.
func language() []*spec.Block {
	return append(load.Language(registry()), testrun.Language()...)
}
