//go:build unix && !linux

package execaction

import "syscall"

// cgroup would be the cgroup of one run; there are none on this system,
// and a run is contained by its process group only.
type cgroup struct{}

// newCgroup returns nil: this system has no cgroups.
func newCgroup(string) *cgroup { return nil }

// ownCgroupDir is "": this system has no cgroups.
func ownCgroupDir() string { return "" }

func (*cgroup) attach(*syscall.SysProcAttr) {}
func (*cgroup) started()                    {}
func (*cgroup) kill()                       {}
func (*cgroup) remove()                     {}
