package enginetest

import (
	"fmt"
	"strings"
)

// largeTool is one tool of LargeConfig: two arguments, an http action
// and three outputs.
const largeTool = `
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

// LargeConfig is a generated configuration of n HTTP tools, for
// benchmarks: the texts of files files (n/files tools each; the first
// also declares the http_api "api" they call, at an address where nothing
// answers), in order.
func LargeConfig(n, files int) []string {
	out := make([]string, files)
	for f := range files {
		var src strings.Builder
		if f == 0 {
			src.WriteString("http_api \"api\" {\n  base_url = \"http://127.0.0.1:1\"\n}\n")
		}
		for i := f * n / files; i < (f+1)*n/files; i++ {
			fmt.Fprintf(&src, largeTool, i)
		}
		out[f] = src.String()
	}
	return out
}
