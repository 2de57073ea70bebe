// Package tracing sends a server's OpenTelemetry traces over OTLP: it
// builds the tracer provider from the standard OTEL_* environment variables
// (endpoint, headers, sampler, resource attributes), off unless they ask
// for it, and hands the spans to the exporter through a bounded queue that
// drops (and counts) what it cannot hold, so that an OTLP endpoint that is
// down or slow never slows a call. The spans themselves are made where the
// work is: the server's span per MCP request in engine/server, the spans of
// upstream requests, statements and runs in the adapters.
package tracing
