package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

// buildInfo returns the version and commit mcpdecl was built from.
func buildInfo() (ver, commit string) {
	ver, commit = version, "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		if ver == "" {
			ver = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	if ver == "" {
		ver = "(devel)"
	}
	return ver, commit
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the supported MCP revisions",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ver, commit := buildInfo()
			fmt.Fprintf(a.stdout, "mcpdecl %s\ncommit: %s\nprotocol revisions: %s\n", ver, commit, strings.Join(server.ProtocolVersions(), ", "))
			return nil
		},
	}
}
