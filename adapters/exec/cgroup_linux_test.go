//go:build linux

package execaction

import "testing"

func TestCgroupDir(t *testing.T) {
	const (
		hybrid = "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n" +
			"33 31 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
		unified = "22 1 0:20 / / rw - ext4 /dev/sda1 rw\n" +
			"30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
		// A container whose cgroup file system is its own cgroup, mounted.
		bound = "30 25 0:26 /docker/abc /sys/fs/cgroup ro,relatime - cgroup2 cgroup rw\n"
		v1    = "33 31 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	)
	for _, tt := range []struct{ name, self, mounts, want string }{
		{"hybrid", "4:memory:/x\n0::/\n", hybrid, "/sys/fs/cgroup/unified"},
		{"unified", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope\n", unified,
			"/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run.scope"},
		{"bound", "0::/docker/abc/sub\n", bound, "/sys/fs/cgroup/sub"},
		{"bound root", "0::/docker/abc\n", bound, "/sys/fs/cgroup"},
		{"bound elsewhere", "0::/docker/abcd\n", bound, ""},
		{"outside the namespace", "0::/../../other\n", unified, ""},
		{"v1 only", "4:memory:/x\n", v1, ""},
		{"no cgroup2 mount", "0::/a\n", v1, ""},
		{"deleted", "0::/a (deleted)\n", unified, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cgroupDir([]byte(tt.self), []byte(tt.mounts)); got != tt.want {
				t.Errorf("cgroupDir = %q, want %q", got, tt.want)
			}
		})
	}
}
