package main

import (
	"fmt"
	"log"
	"path/filepath"
)

// example is one of the example configurations, served as a user would.
type example struct {
	file, tool string
	build      string // "plain" or "static"
	calls      int
	s          sample
}

// runExamples serves each example configuration over stdio, as a desktop
// client would start it, and measures the time to the first tools/list and
// the peak RSS after some calls of one of its tools.
func runExamples(st *setup, o options) ([]example, error) {
	list := []struct {
		file, tool string
		args       map[string]any
		vars       []string
		calls      int
	}{
		{"examples/httpbin.hcl", "echo", map[string]any{"message": "hello", "tags": []string{"a", "b"}}, []string{"base_url=" + st.upstream}, max(o.calls/3, 50)},
		{"examples/shop.hcl", "top_products", map[string]any{"limit": 3}, []string{"shop_db=" + filepath.Join(st.dir, "example-shop.db")}, max(o.calls/3, 50)},
		{"examples/system.hcl", "system_info", nil, nil, max(o.calls/10, 30)},
	}
	builds := []struct{ build, path string }{{"plain", st.mcpdecl}, {"static", st.static}}
	var out []example
	for _, e := range list {
		path, err := filepath.Abs(e.file)
		if err != nil {
			return nil, err
		}
		runs := make([][]sample, len(builds))
		for round := range o.rounds {
			// The two builds alternate, in an order that rotates.
			for k := range builds {
				i := (k + round) % len(builds)
				bin := builds[i]
				s := server{name: "mcpdecl " + e.file, args: func(http bool, addr, pprof string) []string {
					a := []string{bin.path, "serve", "--log-level", "warn"}
					for _, v := range e.vars {
						a = append(a, "--var", v)
					}
					return append(a, path)
				}}
				log.Printf("example %s, %s build, round %d/%d", e.file, bin.build, round+1, o.rounds)
				smp, err := run(s, false, call{tool: e.tool, args: e.args}, e.calls, 8, runOpts{})
				if err != nil {
					return nil, fmt.Errorf("example %s: %w", e.file, err)
				}
				runs[i] = append(runs[i], smp)
			}
		}
		for i, bin := range builds {
			out = append(out, example{file: e.file, build: bin.build, tool: e.tool, calls: e.calls, s: median(runs[i])})
		}
	}
	return out, nil
}
