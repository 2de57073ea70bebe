// Package callspan records how each tool call ended on its OpenTelemetry
// span, the span the server makes of the tools/call request: the tracing
// block (its spec and decoding) and the layer of every tool's per-call
// path (an engine.CallLayer) that records the outcome of a call that
// failed and, as the block says, the call's arguments and result,
// redacted and capped. Where spans go, and the spans themselves, are
// package tracing's and the server's.
package callspan
