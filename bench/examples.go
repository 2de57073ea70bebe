package main

import (
	"fmt"
	"log"
	"path/filepath"
)

// example is one of the example configurations, served as a user would.
type example struct {
	file, tool string
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
	var out []example
	for _, e := range list {
		path, err := filepath.Abs(e.file)
		if err != nil {
			return nil, err
		}
		s := server{name: "mcpdecl " + e.file, args: func(http bool, addr, pprof string) []string {
			a := []string{st.mcpdecl, "serve", "--log-level", "warn"}
			for _, v := range e.vars {
				a = append(a, "--var", v)
			}
			return append(a, path)
		}}
		var runs []sample
		for round := range o.rounds {
			log.Printf("example %s, round %d/%d", e.file, round+1, o.rounds)
			smp, err := run(s, false, call{tool: e.tool, args: e.args}, e.calls, 8, runOpts{})
			if err != nil {
				return nil, fmt.Errorf("example %s: %w", e.file, err)
			}
			runs = append(runs, smp)
		}
		out = append(out, example{file: e.file, tool: e.tool, calls: e.calls, s: median(runs)})
	}
	return out, nil
}
