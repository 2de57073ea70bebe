package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/engine/spec"
)

//go:generate go run . schema --markdown --output ../../docs/language.md

func (a *app) schemaCmd() *cobra.Command {
	var markdown bool
	var output string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the language as JSON (blocks, attributes, types, docs, examples), derived from the specs",
		Long: "Print the language as JSON: every block declared by a spec, with its attributes (type, bounds, default, " +
			"documentation), nested blocks and an example; not_yet_specified names the blocks not yet declared by a spec. " +
			"With --markdown, print the reference instead (docs/language.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var out []byte
			if markdown {
				out = spec.Markdown(load.Language(registry()), load.NotYetSpecified)
			} else {
				j, err := spec.JSON(load.Language(registry()), load.NotYetSpecified)
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
