package main

import (
	"runtime/debug"
	"slices"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := func(settings ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(settings); i += 2 {
			out = append(out, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		stamped buildStamp
		info    *debug.BuildInfo
		want    []string
	}{{
		name: "go install at a version",
		info: &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpdecl/mcpdecl", Version: "v1.4.0"}},
		want: []string{"mcpdecl v1.4.0"},
	}, {
		name: "built from a checkout",
		info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc123", "vcs.modified", "false")},
		want: []string{"mcpdecl devel", "commit: abc123"},
	}, {
		name: "built from a modified checkout",
		info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc123", "vcs.modified", "true")},
		want: []string{"mcpdecl devel", "commit: abc123 (modified)"},
	}, {
		name: "-buildvcs=false",
		info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
		want: []string{"mcpdecl devel", "commit: not recorded (built without VCS information)"},
	}, {
		name: "no build information",
		want: []string{"mcpdecl devel", "commit: not recorded (built without VCS information)"},
	}, {
		name:    "stamped by -ldflags",
		stamped: buildStamp{version: "v2.0.0"},
		info:    &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "def456")},
		want:    []string{"mcpdecl v2.0.0", "commit: def456"},
	}, {
		name:    "stamped, without VCS information",
		stamped: buildStamp{version: "v2.0.0"},
		info:    &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
		want:    []string{"mcpdecl v2.0.0"},
	}, {
		name: "built from a checkout, with the commit's time",
		info: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "abc123", "vcs.time", "2026-11-26T10:00:00Z")},
		want: []string{"mcpdecl devel", "commit: abc123", "date: 2026-11-26T10:00:00Z"},
	}, {
		name:    "a release build: everything stamped, no VCS information",
		stamped: buildStamp{version: "v2.1.0", commit: "0123abc", date: "2026-11-26T10:00:00Z"},
		info:    &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
		want:    []string{"mcpdecl v2.1.0", "commit: 0123abc", "date: 2026-11-26T10:00:00Z"},
	}, {
		name:    "a stamped commit wins over the checkout's",
		stamped: buildStamp{version: "v2.1.0", commit: "0123abc"},
		info:    &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "def456", "vcs.modified", "true")},
		want:    []string{"mcpdecl v2.1.0", "commit: 0123abc"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild(tt.stamped, tt.info); !slices.Equal(got, tt.want) {
				t.Errorf("describeBuild = %q, want %q", got, tt.want)
			}
		})
	}
}
