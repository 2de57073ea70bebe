// Package audit is the audit log: the audit block (its spec, decoding and
// rules) and the layer of every tool's per-call path (an
// engine.CallLayer) that writes one line per call, with the time, the
// tool, the caller, the duration, the outcome and the size of the result,
// and, when the block says so, the arguments, redacted and capped. The
// server opens the log of the configuration it serves (see [Of] and
// [Log.Open]); a configuration that no server opened writes none.
package audit
