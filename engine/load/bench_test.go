package load_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	httpaction "github.com/mcpdecl/mcpdecl/adapters/http"
	"github.com/mcpdecl/mcpdecl/engine"
	"github.com/mcpdecl/mcpdecl/engine/load"
	"github.com/mcpdecl/mcpdecl/internal/enginetest"
)

// benchTool is a tool with three expr mappings in and three out, the shape
// the performance targets are stated for.
const benchTool = `
tool "%s" {
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
  %s
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

const benchBody = `{"name":"Paris","main":{"temp":18.5},"weather":[{"description":"light rain"}]}`

// BenchmarkCallEngine measures the engine's own work per call: argument
// validation, the mappings in and out, output validation and the result,
// with an action that returns a ready-made decoded body.
func BenchmarkCallEngine(b *testing.B) {
	action := `fake {
    body = {
      name    = "Paris"
      main    = { temp = 18.5 }
      weather = [{ description = expr("args.units == 'metric' ? 'light rain' : 'drizzle'") }]
      q       = expr("args.city")
      u       = expr("args.units")
    }
  }`
	cfg, diags := loadString(b, fmt.Sprintf(benchTool, "weather", action), nil, nil)
	if diags.HasErrors() {
		b.Fatal(describe(diags))
	}
	benchCall(b, cfg)
}

// BenchmarkCallHTTP measures one call of an HTTP tool against a loopback
// upstream: the engine's work plus the HTTP round trip.
func BenchmarkCallHTTP(b *testing.B) {
	benchHTTPCall(b, func(url string) string {
		return fmt.Sprintf(benchTool, "weather", weatherHTTP(url, "args.city"))
	})
}

// BenchmarkCallHTTPSteps3 is BenchmarkCallHTTP with the request made three
// times, as three steps that each read the one before: a three-step tool
// should cost at most three one-step calls plus 10%.
func BenchmarkCallHTTPSteps3(b *testing.B) {
	benchHTTPCall(b, func(url string) string {
		step := func(name, city string) string {
			return `step "` + name + `" {
    ` + weatherHTTP(url, city) + `
  }
  `
		}
		src := fmt.Sprintf(benchTool, "weather", step("first", "args.city")+step("second", "steps.first.body.name")+step("third", "steps.second.body.name"))
		return strings.ReplaceAll(src, `expr("body.`, `expr("steps.third.body.`)
	})
}

// BenchmarkCallHTTPCached is BenchmarkCallHTTP with a cache block: every
// call after the first is answered from the memory store.
func BenchmarkCallHTTPCached(b *testing.B) {
	benchHTTPCall(b, func(url string) string {
		return fmt.Sprintf(benchTool, "weather", `annotations { read_only_hint = true }
  cache { ttl = "1h" }
  `+weatherHTTP(url, "args.city"))
	})
}

// weatherHTTP is the benchmarks' HTTP action: the weather of city, an
// expr program, from the upstream at url.
func weatherHTTP(url, city string) string {
	return `http {
    url         = "` + url + `/weather/{city}"
    path_params = { city = expr("` + city + `") }
    query       = { units = expr("args.units"), lang = expr("'en'") }
  }`
}

// benchHTTPCall measures calls of the weather tool of src(url), loaded
// with the HTTP action, url being a loopback upstream's that answers
// benchBody.
func benchHTTPCall(b *testing.B, src func(url string) string) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(benchBody))
	}))
	b.Cleanup(up.Close)
	cfg, _, diags := enginetest.Load(b, engine.NewRegistry(httpaction.New()), src(up.URL), enginetest.Options{})
	if diags.HasErrors() {
		b.Fatal(describe(diags))
	}
	benchCall(b, cfg)
}

func benchCall(b *testing.B, cfg *engine.Config) {
	tool, _ := cfg.Tool("weather")
	args := json.RawMessage(`{"city":"Paris"}`)
	ctx := context.Background()
	if res := tool.Call(ctx, args); res.IsError {
		b.Fatal(res.Text())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := tool.Call(ctx, args); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkLoad1000 loads a generated configuration of 1,000 HTTP tools.
func BenchmarkLoad1000(b *testing.B) { benchmarkLoad(b, 1000) }

// BenchmarkLoad10000 loads one of 10,000, the size of a large imported API.
func BenchmarkLoad10000(b *testing.B) { benchmarkLoad(b, 10000) }

func benchmarkLoad(b *testing.B, n int) {
	var src strings.Builder
	src.WriteString(`http_api "api" {
  base_url = "http://127.0.0.1:1"
}
`)
	action := `http {
    api         = http_api.api
    path        = "/weather/{city}"
    path_params = { city = expr("args.city") }
    query       = { units = expr("args.units") }
  }`
	for i := range n {
		fmt.Fprintf(&src, benchTool, fmt.Sprintf("tool_%05d", i), action)
	}
	dir := b.TempDir()
	name := filepath.Join(dir, "tools.hcl")
	if err := os.WriteFile(name, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	opts := load.Options{Registry: engine.NewRegistry(httpaction.New())}
	b.ReportAllocs()
	for b.Loop() {
		cfg, _, diags := load.Load(opts, name)
		if diags.HasErrors() {
			b.Fatal(describe(diags))
		}
		if len(cfg.Tools) != n {
			b.Fatalf("%d tools", len(cfg.Tools))
		}
		_ = cfg.Close()
	}
}
