//go:build !unix && !windows

package execaction

import (
	"os"
	"os/exec"
)

// supported says whether exec blocks can run here: they need process
// groups, so a Unix system.
const supported = false

type group struct{ cmd *exec.Cmd }

func (g *group) start(_ string, build func() *exec.Cmd) error {
	g.cmd = build()
	return g.cmd.Start()
}

func (*group) cutOff() {}

func (g *group) wait() (bool, error) { return false, g.cmd.Wait() }

func exitStatus(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }

// ownCgroupDir is "": runs have no cgroups here.
func ownCgroupDir() string { return "" }
