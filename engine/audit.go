package engine

// Audit says where the audit log goes: one JSON line per tool call with the
// time, the tool, the caller, the duration, the outcome and the size of the
// result.
type Audit struct {
	// File is the path the lines are appended to; empty means standard
	// error.
	File string
	// Arguments adds the call's arguments to each line, sensitive ones
	// masked.
	Arguments bool
}

// TraceValues says which values of a tool call go into the call's span,
// when the server sends traces: by default none, as a span may be read by
// more people than the server's callers. The values recorded are redacted
// like the audit log's (every known secret, each sensitive argument as
// [text.Mask]) and capped in size.
type TraceValues struct {
	// Arguments records the call's arguments (gen_ai.tool.call.arguments).
	Arguments bool
	// Results records the result (gen_ai.tool.call.result).
	Results bool
}
