package main

import (
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/lsp"
)

func (a *app) lspCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server for editors, on stdin and stdout",
		Long: `Lsp speaks the Language Server Protocol on stdin and stdout, for the .hcl
files an editor opens: the diagnostics of mcpdecl validate as you type,
completion, snippets and hover documentation from the language's specs,
completion inside expr("…") of what the program may read there, with types,
go to definition and find references for var., local., http_api.,
database., tools, prompts and mocks' targets, an outline of the tools,
resources, prompts and tests, formatting (as mcpdecl fmt does) and the "did
you mean" fixes as code actions.

A configuration is the *.hcl files of a directory, loaded together, with the
editor's unsaved buffers in place of their files (in a directory where several
files declare a server block, each file alone). The server never runs an
action, a program or a query, and never connects to an upstream or a
database. Logs go to stderr. See docs/editors.md for the editors' settings.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := a.logger()
			if err != nil {
				return err
			}
			lookupEnv, diags := a.envLookup()
			if diags.HasErrors() {
				a.report(nil, diags, nil)
				return exitCoder{exitError}
			}
			ver, _ := strings.CutPrefix(describeBuild(buildStamp{version, commit, date}, buildInfo())[0], "mcpdecl ")
			stdio := struct {
				io.Reader
				io.Writer
				io.Closer
			}{a.stdin, a.stdout, io.NopCloser(a.stdin)}
			return lsp.Serve(cmd.Context(), stdio, lsp.Options{
				Registry:  registry(),
				LookupEnv: lookupEnv,
				Logger:    logger,
				Version:   ver,
			})
		},
	}
}

func buildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}
