//go:build unix

package execaction

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkExecTrue measures one call of a tool running /bin/true through
// the engine: arguments, process start, wait and result.
func BenchmarkExecTrue(b *testing.B) {
	cfg, _ := mustLoad(b, `
tool "true" {
  description = "d"
  exec { command = ["/bin/true"] }
}
`)
	tool, _ := cfg.Tool("true")
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		if res := tool.Call(ctx, args); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkExecArgs is the same with an argument and an output mapped from
// stdout, the usual shape of a tool.
func BenchmarkExecArgs(b *testing.B) {
	cfg, _ := mustLoad(b, `
tool "echo" {
  description = "d"
  arg "text" { type = string }
  exec {
    command = ["/bin/echo", "--", expr("args.text")]
    parse   = "lines"
  }
  output "first" {
    type  = string
    value = expr("stdout[0]")
  }
}
`)
	tool, _ := cfg.Tool("echo")
	ctx := context.Background()
	args := json.RawMessage(`{"text": "hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if res := tool.Call(ctx, args); res.IsError {
			b.Fatal(res.Text())
		}
	}
}
