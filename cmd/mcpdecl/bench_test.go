package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad1000 loads a generated configuration of 1,000 HTTP tools the
// way the command line does (one file, and ten files of 100).
func BenchmarkLoad1000(b *testing.B) {
	const tool = `
tool "tool_%04d" {
  description = "Current weather for a city."
  arg "city" {
    type       = string
    min_length = 1
  }
  arg "units" {
    type    = string
    enum    = ["metric", "imperial"]
    default = "metric"
  }
  http {
    api         = http_api.api
    path        = "/weather/{city}"
    path_params = { city = expr("args.city") }
    query       = { units = expr("args.units") }
  }
  output "temperature" {
    type  = number
    value = expr("body.main.temp")
  }
  output "conditions" {
    type  = string
    value = expr("body.weather[0].description")
  }
  output "city" {
    type  = string
    value = expr("body.name")
  }
}
`
	const api = "http_api \"api\" {\n  base_url = \"http://127.0.0.1:1\"\n}\n"
	for _, files := range []int{1, 10} {
		dir := b.TempDir()
		for f := range files {
			var src strings.Builder
			if f == 0 {
				src.WriteString(api)
			}
			for i := f * 1000 / files; i < (f+1)*1000/files; i++ {
				fmt.Fprintf(&src, tool, i)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("tools%02d.hcl", f)), []byte(src.String()), 0o644); err != nil {
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
