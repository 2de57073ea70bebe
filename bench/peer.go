package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// toolboxName is MCP Toolbox for Databases in the report.
const toolboxName = "MCP Toolbox"

// itemQuery is the statement of the SQLite tool that reads one row by a
// bound id, in mcpdecl and in Toolbox.
const itemQuery = "SELECT name, price FROM items WHERE id = ?"

// toolboxConfig is Toolbox's configuration with the tools it is compared
// on: the HTTP tool (go-httpbin's /json, whose body it returns as it is)
// and one row of the seeded table by a bound id.
func toolboxConfig(st *setup) string {
	return fmt.Sprintf(`kind: source
name: up
type: http
baseUrl: %s
---
kind: source
name: shop
type: sqlite
database: %s
---
kind: tool
name: slideshow
type: http
source: up
method: GET
path: /json
description: The slideshow.
---
kind: tool
name: item
type: sqlite-sql
source: shop
description: One item by its id.
statement: %q
parameters:
  - name: id
    type: integer
    description: The item's id.
`, st.upstream, st.db, itemQuery)
}

// toolboxConfigFile is where toolboxConfig is written.
func (st *setup) toolboxConfigFile() string { return filepath.Join(st.dir, "toolbox.yaml") }

// toolboxServer is Toolbox serving toolboxConfig: over stdio, or over
// HTTP at the address the harness chose (Toolbox takes a port, and logs
// no URL).
func (st *setup) toolboxServer() server {
	config := st.toolboxConfigFile()
	return server{
		name: toolboxName,
		args: func(http bool, addr, _ string) []string {
			a := []string{st.toolbox, "--config", config, "--log-level", "warn"}
			if !http {
				return append(a, "--stdio")
			}
			host, port, _ := strings.Cut(addr, ":")
			return append(a, "--address", host, "--port", port)
		},
		endpoint: func(addr string) string { return "http://" + addr + "/mcp" },
	}
}

// peerJobs are the workloads of the comparison with Toolbox: the rows of
// issue #20's table.
func peerJobs(calls int) []job {
	slideshow := call{tool: "slideshow"}
	item := call{tool: "item", args: map[string]any{"id": 42}}
	var jobs []job
	for _, c := range []int{1, 8, 32} {
		jobs = append(jobs, job{"peer", "HTTP tool", "http", slideshow, calls, c, 10})
	}
	for _, c := range []int{1, 8} {
		jobs = append(jobs, job{"peer", "HTTP tool", "stdio", slideshow, calls, c, 10})
	}
	jobs = append(jobs,
		job{"peer", "SQLite, one row by id", "http", item, calls, 8, 10},
		job{"peer", "SQLite, one row by id", "http", item, calls, 1, 10},
		job{"peer", "SQLite, one row by id", "stdio", item, calls, 8, 10},
		job{"peer", "SQLite, one row by id", "stdio", item, calls, 1, 10},
	)
	return jobs
}

// prepareToolbox writes Toolbox's configuration and reads its version.
func (st *setup) prepareToolbox() (string, error) {
	if err := os.WriteFile(st.toolboxConfigFile(), []byte(toolboxConfig(st)), 0o600); err != nil {
		return "", err
	}
	out, err := exec.Command(st.toolbox, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", st.toolbox, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// peerTable writes the comparison with Toolbox (-toolbox): calls per
// second and server CPU per call of both, run next to each other in every
// round, against #20's target (mcpdecl's CPU per call ≤ 0.75× Toolbox's).
func (r *report) peerTable(b *strings.Builder) {
	if r.opts.toolbox == "" {
		return
	}
	fmt.Fprintf(b, "\n## Against MCP Toolbox for Databases\n\n%s (`%s`), built outside this repository (`go build` of its source at the commit #20 names, 28a4910 of the fork xaas-cloud/genai-toolbox) and given with `-toolbox`, serving the same go-httpbin `/json` (an `http` tool, which returns the body as it is) and the same SQLite table (a `sqlite-sql` tool reading one row by a bound id), against mcpdecl's `slideshow` (three fields mapped into validated outputs) and `item` (the row into validated outputs), in the same rounds. Target: mcpdecl's server CPU per call ≤ 0.75× Toolbox's.\n\n", toolboxName, r.toolboxVersion)
	b.WriteString("| workload | transport | concurrency | calls/s mcpdecl | calls/s Toolbox | Toolbox ÷ mcpdecl | CPU per call mcpdecl | Toolbox | mcpdecl ÷ Toolbox | ≤ 0.75× | RSS mcpdecl | RSS Toolbox |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.results {
		if x.group != "peer" {
			continue
		}
		m, t := x.med(mcpdeclName), x.med(toolboxName)
		c := x.ratio(toolboxName, cpu)
		fmt.Fprintf(b, "| %s | %s | %d | %.0f | %.0f | %.2f× | %s | %s | %.2f× | %s | %s | %s |\n", x.label, x.transport, x.conc,
			m.callsPerSec, t.callsPerSec, x.ratioOf(toolboxName, mcpdeclName, cps), ms(m.cpuPerCall), ms(t.cpuPerCall), c, verdict(c <= 0.75), mb(m.rssKB), mb(t.rssKB))
	}
}
