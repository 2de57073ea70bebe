package testrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	execaction "github.com/mcpdecl/mcpdecl/adapters/exec"
	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	sqlaction "github.com/mcpdecl/mcpdecl/adapters/sql"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/testrun"
)

const benchConfig = `
http_api "api" {
  base_url = "https://api.example.com/v1"
}

tool "get_user" {
  description = "A user by id."
  arg "id" { type = integer }
  http {
    api         = http_api.api
    path        = "/users/{id}"
    path_params = { id = expr("string(args.id)") }
  }
  output "name" {
    type  = string
    value = expr("body.name")
  }
}

tool "double" {
  description = "Twice a number, computed."
  arg "n" { type = number }
  output "twice" {
    type  = number
    value = expr("args.n * 2")
  }
}
`

// suite writes the configuration and a test file of n tests of the tool
// (get_user, mocked, or double) and returns the parsed files.
func suite(b *testing.B, n int, mocked bool) []*testrun.File {
	dir := b.TempDir()
	var src strings.Builder
	for i := range n {
		if mocked {
			fmt.Fprintf(&src, `
test "user_%d" {
  tool = "get_user"
  args = { id = %d }
  mock "http_api" "api" {
    request { path = "/users/%d" }
    response { body = { name = "user %d" } }
  }
  assert {
    condition = expr("structured.name == 'user %d' && requests[0].method == 'GET'")
  }
}
`, i, i, i, i, i)
		} else {
			fmt.Fprintf(&src, `
test "double_%d" {
  tool = "double"
  args = { n = %d }
  assert {
    condition = expr("structured.twice == %d")
  }
}
`, i, i, 2*i)
		}
	}
	for name, text := range map[string]string{"tools.hcl": benchConfig, "tools.test.hcl": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	files, _, diags := testrun.Parse([]string{filepath.Join(dir, "tools.test.hcl")}, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	return files
}

// BenchmarkRun runs a suite of 100 tests, one at a time and in parallel,
// and reports the time per test: the runner's overhead (a fresh load of
// the configuration, the mock server, the assertions) plus the call.
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name     string
		mocked   bool
		parallel int
	}{
		{"computed/serial", false, 1},
		{"computed/parallel", false, 0},
		{"http_mock/serial", true, 1},
		{"http_mock/parallel", true, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const n = 100
			files := suite(b, n, bc.mocked)
			r := &testrun.Runner{
				Registry: engine.NewRegistry(httpaction.New(), execaction.New(), sqlaction.New()),
				Parallel: bc.parallel,
			}
			tests := r.Selected(files)
			for b.Loop() {
				failed := 0
				if err := r.Run(context.Background(), tests, func(res *testrun.Result) {
					if !res.Passed() {
						failed++
					}
				}); err != nil {
					b.Fatal(err)
				}
				if failed > 0 {
					b.Fatalf("%d tests failed", failed)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/test")
		})
	}
}
