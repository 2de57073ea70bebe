// Package calltrace is the call tracer of mcpdecl call --trace and of
// mcpdecl test: what each stage of one tool call saw, in order (the
// arguments, what the action sent and received, each program's value, the
// output validation), recorded by the engine and the adapters into the
// [Tracer] a call's context carries, cleaned and cut on the way (see
// [Cleaner]). It is not OpenTelemetry, which is package tracing's.
package calltrace
