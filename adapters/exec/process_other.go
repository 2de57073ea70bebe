//go:build !unix

package execaction

import (
	"os"
	"os/exec"
)

// supported says whether exec blocks can run here: they need process
// groups, so a Unix system.
const supported = false

type group struct{ cmd *exec.Cmd }

func newGroup(cmd *exec.Cmd) *group { return &group{cmd: cmd} }

func (g *group) wait() (bool, error) { return false, g.cmd.Wait() }

func exitStatus(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }
