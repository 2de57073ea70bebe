package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpdecl/mcpdecl/engine/server"
)

// version, commit and date are set at build time by release builds:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>"
//
// date is the commit's date, so that a build is reproducible.
var version, commit, date = "", "", ""

// buildStamp is what -ldflags set.
type buildStamp struct{ version, commit, date string }

// describeBuild says what mcpdecl was built from, one fact a line: the
// version, from -ldflags (stamped), else the module's version as `go
// install …@version` records it, else "devel"; then the commit, when the
// build recorded one (with "(modified)" for a dirty work tree). A devel
// build without VCS information says that no commit was recorded rather
// than naming a bogus one; a released module version needs no commit.
//
// A stamped commit and date (release builds, which are built with
// -buildvcs=false or outside a checkout) take the place of those recorded.
func describeBuild(stamped buildStamp, info *debug.BuildInfo) []string {
	ver := stamped.version
	var revision, modified, when string
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
			case "vcs.time":
				when = s.Value
			}
		}
	}
	if stamped.commit != "" {
		revision, modified = stamped.commit, ""
	}
	if stamped.date != "" {
		when = stamped.date
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
	if revision != "" && when != "" {
		lines = append(lines, "date: "+when)
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
			lines := describeBuild(buildStamp{version, commit, date}, info)
			lines = append(lines, "protocol revisions: "+strings.Join(server.ProtocolVersions(), ", "))
			_, err := fmt.Fprintf(a.stdout, "%s\n", strings.Join(lines, "\n"))
			return err
		},
	}
}
