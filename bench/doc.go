// Command bench measures mcpdecl against a hand-written server on the
// official MCP Go SDK (bench/baseline), side by side on this machine, and
// writes BENCHMARKS.md and bench/chart.svg. Run it from the repository's
// root:
//
//	go run ./bench                         # the full run, about ten minutes
//	go run ./bench -quick                  # fewer calls, one round
//	go run ./bench -cpuprofile /tmp/prof   # also profile every server under load
//	go run ./bench -before main            # also run mcpdecl as built from main, to compare a change
//	go run ./bench -observe                # also run mcpdecl with metrics on, and with traces on
//	go run ./bench -toolbox PATH           # also run MCP Toolbox (built elsewhere) and compare CPU per call
//	go run ./bench -only peer -toolbox PATH  # only the comparison with Toolbox
//	go run ./bench -only catalogue         # only the size of tools/list, in process: seconds
//	go run ./bench -only steps -rounds 3   # only the three-step tool against its three one-step tools
//
// It builds mcpdecl, the baseline on go-sdk v1.8.0 as released (its own
// module) and the same baseline on the SDK as mcpdecl builds it
// (third_party/go-sdk); starts a local upstream (go-httpbin, plus a handler
// returning bodies of a given size); writes mcpdecl's configurations (10,
// 100 and 1,000 tools) and a seeded SQLite database into a temporary
// directory; and drives each server with the SDK's client over stdio and
// streamable HTTP. Runs alternate between the servers, in an order that
// rotates each round; the report gives medians, and ratios as the median
// of per-round ratios: calls per second, the server's CPU time per call
// (user + system, from /proc/PID/stat), p50 and p99 latency, the peak
// resident memory of the server process (VmHWM), and the time from
// starting the process to the answer of the first tools/list. It also
// compares a three-step tool with the three one-step tools that do its
// steps' work (server CPU per call), serves the example configurations, compares the SQLite tool with raw
// database/sql in process, runs the engine's Go benchmarks, and measures
// tools/list (bytes and o200k tokens) of the examples and of imported
// documents under each output_schemas.
package main
