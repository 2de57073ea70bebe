// Command bench measures mcpdecl against a hand-written server on the
// official MCP Go SDK (bench/baseline), side by side on this machine, and
// writes BENCHMARKS.md and bench/chart.svg:
//
//	go run ./bench            # a full run, some minutes
//	go run ./bench -quick     # fewer calls and rounds
//
// It builds both servers, starts a local upstream (go-httpbin, plus a
// handler returning bodies of a given size), writes mcpdecl's configuration
// and a seeded SQLite database into a temporary directory, and drives each
// server with the SDK's client over stdio and streamable HTTP at several
// concurrencies. Runs alternate (mcpdecl, baseline, mcpdecl, …) and the
// report gives the median of the rounds: calls per second, p50 and p99
// latency, the peak resident memory of the server process (VmHWM), and the
// time from starting the process to the answer of the first tools/list.
// It also runs the Go benchmarks that measure the engine alone.
package main
