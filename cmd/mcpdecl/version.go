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

// describeBuild says what mcpdecl was built from, one fact a line: the
// version, from -ldflags (stamped), else the module's version as `go
// install …@version` records it, else "devel"; then the commit, when the
// build recorded one (with "(modified)" for a dirty work tree). A devel
// build without VCS information says that no commit was recorded rather
// than naming a bogus one; a released module version needs no commit.
func describeBuild(stamped string, info *debug.BuildInfo) []string {
	ver := stamped
	var revision, modified string
	if info != nil {
		if ver == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			ver = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	devel := ver == ""
	if devel {
		ver = "devel"
	}
	lines := []string{"mcpdecl " + ver}
	switch {
	case revision != "" && modified == "true":
		lines = append(lines, "commit: "+revision+" (modified)")
	case revision != "":
		lines = append(lines, "commit: "+revision)
	case devel:
		lines = append(lines, "commit: not recorded (built without VCS information)")
	}
	return lines
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the supported MCP revisions",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			lines := describeBuild(version, info)
			lines = append(lines, "protocol revisions: "+strings.Join(server.ProtocolVersions(), ", "))
			_, err := fmt.Fprintf(a.stdout, "%s\n", strings.Join(lines, "\n"))
			return err
		},
	}
}
