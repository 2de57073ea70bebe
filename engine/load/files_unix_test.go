//go:build unix

package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// TestFileFunctionRefusesSpecialFiles checks that file() on a device, a
// FIFO, a directory or a file over the cap fails at once with a diagnostic
// that names the file, instead of filling memory or blocking the load.
func TestFileFunctionRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := writeFile(t, dir, "big.txt", "")
	if err := os.Truncate(big, engine.MaxConfigFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file"},
		{fifo, "named pipe"},
		{dir, "directory"},
		{big, "10 MiB"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			name := writeFile(t, t.TempDir(), "tools.hcl", `tool "t" {
  description = file("`+tc.path+`")
}`)
			done := make(chan string)
			go func() {
				_, _, diags := load.Load(load.Options{Registry: engine.NewRegistry(fakeAdapter{})}, name)
				done <- describe(diags)
			}()
			select {
			case got := <-done:
				if !strings.Contains(got, tc.path) || !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "2:") {
					t.Errorf("diagnostics do not name %s and %q at line 2:\n%s", tc.path, tc.want, got)
				}
			case <-time.After(enginetest.Patience):
				t.Fatal("load blocked on file()")
			}
		})
	}
}
