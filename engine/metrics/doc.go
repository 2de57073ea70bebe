// Package metrics holds a server's Prometheus series: tool calls by tool
// and outcome, their latency, the calls in flight, configuration reloads
// and the configuration's generation, with the Go runtime's and the
// process's own, and serves them for Prometheus to scrape. Label values
// come from the configuration (tool names) or from small fixed sets
// (outcomes), never from clients, so the series stay bounded.
package metrics
