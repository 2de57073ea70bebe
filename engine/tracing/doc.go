// Package tracing is a server's OpenTelemetry tracing: the tracing block
// (block.go: its spec and decoding), the layer of every tool's per-call
// path (layer.go: an engine.CallLayer) that records on a call's span how
// the call ended and, as the block says, its arguments and result,
// redacted and capped, and the SDK set-up that sends the spans over
// OTLP/HTTP (tracing.go). That set-up is off unless the standard OTEL_*
// environment variables ask for it; it builds the tracer provider with the
// SDK's BatchSpanProcessor in front of its otlptracehttp exporter, which
// read those variables themselves (endpoint, headers, protocol, sampler,
// batching, resource). It refuses, naming the variable, a value the SDK
// would silently replace by a default; and it counts the spans dropped,
// because the queue was full or their export failed, for
// mcpdecl_trace_spans_dropped_total. A span never waits for the endpoint:
// the processor drops what its queue cannot hold, so an OTLP endpoint that
// is down or slow never slows a call. The spans themselves are made where
// the work is: the server's span per MCP request in engine/server, the
// spans of upstream requests, statements and runs in the adapters.
package tracing
