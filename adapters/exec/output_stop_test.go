//go:build unix

package execaction

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEndlessOutput runs programs that write without end: the run is
// stopped at max_output, long before its timeout, with an error or, with
// truncate, the first max_output bytes.
func TestEndlessOutput(t *testing.T) {
	checkGoroutines(t)
	// perl ignores SIGPIPE and write errors: only killing it stops it.
	const stubborn = `$SIG{PIPE} = "IGNORE"; open(my $f, ">", $ARGV[0]); print $f "$$\n"; close $f; $| = 1; while (1) { print "y\n" }`
	pidfile := filepath.Join(t.TempDir(), "pid")
	src := `
tool "yes" {
  description = "d"
  exec {
    command    = ["yes"]
    timeout    = "1h"
    max_output = 1000
  }
}
tool "yes_cut" {
  description = "d"
  exec {
    command    = ["yes"]
    timeout    = "1h"
    max_output = 1000
    truncate   = true
  }
  output "exit_code" { value = expr("exit_code") }
  output "truncated" { value = expr("truncated") }
  output "stdout" { value = expr("stdout") }
}
tool "yes_stderr" {
  description = "d"
  exec {
    command    = ["/bin/sh", "-c", "echo out; exec yes >&2"]
    timeout    = "1h"
    max_output = 1000
    truncate   = true
  }
  output "stdout" { value = expr("stdout") }
  output "stderr" { value = expr("len(stderr)") }
  output "truncated" { value = expr("truncated") }
}
tool "stubborn" {
  description = "d"
  exec {
    command    = ["perl", "-e", ` + hclString(stubborn) + `, ` + hclString(pidfile) + `]
    timeout    = "1h"
    max_output = 1000
    truncate   = true
  }
  output "exit_code" { value = expr("exit_code") }
  output "truncated" { value = expr("truncated") }
}
`
	cfg, _ := mustLoad(t, src)
	// A run that max_output did not stop would end in "timed out", after
	// an hour.
	for _, tt := range []struct {
		tool, want string
		fails      bool
	}{
		{"yes", "command " + lookPath(t, "yes") + " wrote more than 1000 bytes to stdout, the limit of max_output, and was stopped; raise max_output", true},
		{"yes_cut", `{"exit_code":0,"stdout":"` + strings.Repeat(`y\n`, 500) + `","truncated":true}`, false},
		{"yes_stderr", `{"stderr":1000,"stdout":"out\n","truncated":true}`, false},
		{"stubborn", `{"exit_code":0,"truncated":true}`, false},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, cfg, tt.tool, `{}`)
			if tt.fails {
				mustFail(t, res, tt.want)
				return
			}
			mustSucceed(t, res)
			if got := structured(t, res); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	waitGone(t, readPid(t, pidfile))
}
