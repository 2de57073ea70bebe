package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// BenchmarkLoad1000 loads a generated configuration of 1,000 HTTP tools the
// way the command line does (one file, and ten files of 100).
func BenchmarkLoad1000(b *testing.B) {
	for _, files := range []int{1, 10} {
		dir := b.TempDir()
		for f, src := range enginetest.LargeConfig(1000, files) {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("tools%02d.hcl", f)), []byte(src), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			a := &app{stdout: io.Discard, stderr: io.Discard, logLevel: "info", logFormat: "text"}
			b.ReportAllocs()
			for b.Loop() {
				cfg, err := a.load([]string{dir})
				if err != nil {
					b.Fatal(err)
				}
				if len(cfg.Tools) != 1000 {
					b.Fatalf("%d tools", len(cfg.Tools))
				}
				_ = cfg.Close()
			}
		})
	}
}
